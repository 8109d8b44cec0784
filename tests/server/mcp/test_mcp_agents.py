"""The MCP server for agents, in process: ``check_answer`` (spans, quotes, corrections within the deadline and
the operator's caps), what the server advertises, and tools that say the index is being prepared."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

import mcp
from fastapi.testclient import TestClient
from mcp.server.mcpserver.exceptions import ToolError

from factdebate.guard_engine.types import GuardOptions
from factdebate.server.mcp import tools as mcp_tools
from factdebate.server.mcp.prepare import Preparation
from factdebate.server.mcp.server import AgentServer, build_server
from factdebate.util.version import __version__
from tests.server.conftest import AppFactory

REPLY = "The Eiffel Tower is in Rome. It was completed in 1889."
PASSAGE = {"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris. It was completed in 1889.",
           "url": "https://en.wikipedia.org/wiki/Eiffel_Tower"}
OFFLINE = {"FACTDEBATE_SEARCH": "local", "FACTDEBATE_LLM__CACHE": "false", "FACTDEBATE_GUARD__MAX_TIER": "fast",
           "FACTDEBATE_GUARD__TIER": "fast"}


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**OFFLINE, "FACTDEBATE_LLM": "scripted:disagree"}.items():
        monkeypatch.setenv(name, value)


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    content: dict[str, Any] = result.structured_content
    return content


async def test_check_answer_returns_spans_quotes_and_corrections(scripted: None) -> None:
    server = build_server()
    result = _structured(await asyncio.wait_for(server.call_tool("check_answer", {
        "answer": REPLY, "evidence": [PASSAGE], "evidence_mode": "given", "tier": "fast", "deadline_s": 30}), 120))
    assert result["deadline_s"] == 30 and result["tier"] == "fast"
    assert result["to_fix"], result  # the scripted checker refutes what its first passage does not copy
    for index in result["to_fix"]:
        claim = result["claims"][index]
        assert claim["label"] == "REFUTES" and claim["status"] == "checked"
        start, end = claim["span"]["start"], claim["span"]["end"]
        assert REPLY[start:end].strip()  # offsets into the reply the agent sent
        assert claim["quotes"] and claim["quotes"][0]["quote"] in PASSAGE["text"]
        assert claim["correction"] and claim["correction_quote"]
    assert result["usage"]["seconds"] <= 30 + 5  # the check kept to its deadline (generous: a busy machine)


async def test_check_answer_keeps_to_the_operators_caps(scripted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_DEADLINE_S", "40")
    server = build_server()
    lowered = _structured(await server.call_tool("check_answer", {
        "answer": REPLY, "evidence": [PASSAGE], "evidence_mode": "given", "deadline_s": 999}))
    assert lowered["deadline_s"] == 40  # a deadline over the cap is lowered to it
    with pytest.raises(ToolError, match=r"guard\.max_tier"):
        await server.call_tool("check_answer", {"answer": REPLY, "tier": "deep"})
    with pytest.raises(ToolError, match="deadline_s"):
        await server.call_tool("check_answer", {"answer": REPLY, "deadline_s": -1})


async def test_the_server_offers_tools_only_with_annotations_and_its_version(scripted: None) -> None:
    async with mcp.Client(build_server()) as client:
        capabilities = client.server_capabilities
        assert capabilities.tools is not None
        assert capabilities.prompts is None and capabilities.resources is None  # no empty lists to show
        assert client.server_info is not None and client.server_info.version == __version__
        tools = (await client.list_tools()).tools
    assert {tool.name for tool in tools} == set(mcp_tools.TOOLS)
    for tool in tools:
        assert tool.annotations is not None and tool.description
        assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is True
        # A real output schema (each was {"type": "object"}), the fields a client reads named.
        assert tool.output_schema is not None and tool.output_schema.get("properties"), tool.name
    answer = next(t for t in tools if t.name == "check_answer").output_schema
    assert answer is not None and {"to_fix", "claims", "deadline_s"} <= set(answer["properties"])
    assert '"contradicts"' in json.dumps(answer)  # each quote's stance, spelt out


async def test_the_options_a_tool_shares_with_the_http_api_read_as_the_api_reference_shows_them(
        scripted: None, make_app: AppFactory) -> None:
    """An agent reads each option it shares with the HTTP API in tools/list as /openapi.json shows it: the same
    description, bounds and choices (rounds 1 to 10, the three tiers); the guard's, as the guard's options."""
    async with mcp.Client(build_server()) as client:
        tools = {tool.name: tool.input_schema["properties"] for tool in (await client.list_tools()).tools}
    with TestClient(make_app()) as http:
        api = http.get("/openapi.json").json()["components"]["schemas"]
    guard = GuardOptions.model_json_schema()["properties"]
    shared = {("verify_claim", "VerifyRequest"): ["method", "agents", "rounds", "search", "k", "evidence",
                                                  "evidence_mode"],
              ("check_response", "ResponseRequest"): ["method", "k", "evidence", "evidence_mode"]}
    for (tool, request), names in shared.items():
        for name in names:
            assert tools[tool][name]["description"] == api[request]["properties"][name]["description"], name
    assert {"type": "integer", "minimum": 1, "maximum": 10} in tools["verify_claim"]["rounds"]["anyOf"]
    for name in ("evidence", "evidence_mode", "tier", "max_tier", "deadline_s"):
        assert tools["check_answer"][name]["description"] == guard[name]["description"], name
    assert {"type": "string", "enum": ["fast", "standard", "deep"]} in tools["check_answer"]["max_tier"]["anyOf"]
    assert {"type": "number", "exclusiveMinimum": 0} in tools["check_answer"]["deadline_s"]["anyOf"]


async def test_tools_say_the_index_is_being_prepared(scripted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_tools, "INDEX_WAIT_S", 0.2)
    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree")
    release = threading.Event()
    index = Preparation()

    def build(prep: Preparation) -> None:  # a build a quarter done, held until the test lets it end
        prep.follow("embedding passages", 30, 120)
        release.wait(60)

    index.start(build)
    server = AgentServer()
    mcp_tools.register_tools(server, index=index)
    server.tools_ready.set()
    try:
        with pytest.raises(ToolError, match=r"being prepared \(25 %: embedding passages"):
            await server.call_tool("verify_claim", {"claim": "The Eiffel Tower is in Paris.",
                                                    "agents": ["search", "none"]})
        with pytest.raises(ToolError, match="being prepared"):
            await server.call_tool("search_evidence", {"query": "Eiffel Tower"})
        # Evidence of its own needs no index: answered while the index is prepared.
        given = await server.call_tool("check_answer", {"answer": REPLY, "evidence": [PASSAGE],
                                                        "evidence_mode": "given", "deadline_s": 30})
        assert _structured(given)["claims"]
    finally:
        release.set()
    assert await index.wait(30) and index.error is None


@pytest.mark.usefixtures("builtin_index")
async def test_check_answer_answers_at_the_fast_tier_while_the_vectors_build(
        scripted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a fresh install no corpus-backed tool answered while the vectors were built. The fast tier
    searches only the full-text index (ready in seconds): check_answer answers from it at once, held to that tier
    and saying so when more was allowed; before even the full-text index is there it says how far the build is."""
    monkeypatch.setattr(mcp_tools, "INDEX_WAIT_S", 0.2)
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_TIER", "standard")
    words, vectors = threading.Event(), threading.Event()
    index = Preparation()

    def build(prep: Preparation) -> None:  # held before the full-text index, then with it and no vectors
        prep.follow("indexing words", 5, 40)
        words.wait(60)
        prep.full_text.set()
        prep.follow("embedding passages", 10, 40)
        vectors.wait(60)

    index.start(build)
    server = AgentServer()
    mcp_tools.register_tools(server, index=index)
    server.tools_ready.set()
    # about a passage of the full-text index, which the scripted checker quotes against it (a flag rests on a
    # passage about what the claim names: guard_engine/fast.bears_on)
    wrong = {"answer": "Alice's Adventures in Wonderland is a French novel.", "deadline_s": 60}
    try:
        with pytest.raises(ToolError, match=r"being prepared \(12 %: indexing words"):
            await server.call_tool("check_answer", wrong)
        words.set()
        assert await index.wait_full_text(10)
        held = _structured(await server.call_tool("check_answer", wrong))
        asked = _structured(await server.call_tool("check_answer", {**wrong, "max_tier": "fast"}))
    finally:
        words.set()
        vectors.set()
    assert held["claims"] and all(c["status"] == "checked" and c["tier"] == "fast" for c in held["claims"]), held
    assert held["to_fix"] and held["claims"][0]["quotes"]  # passages the full-text search found
    assert held["note"].startswith("checked at the fast tier only") and "'standard'" in held["note"]
    assert "(25 %: embedding passages, 10 of 40 passages" in held["note"]
    assert asked["claims"] and "note" not in asked  # fast was all it asked for: nothing to say


async def test_a_failed_preparation_is_said_by_the_tools_that_need_it(scripted: None) -> None:
    index = Preparation()

    def fail(prep: Preparation) -> None:
        raise OSError("disk full")

    index.start(fail)
    assert await index.wait(30)
    server = AgentServer()
    mcp_tools.register_tools(server, index=index)
    server.tools_ready.set()
    with pytest.raises(ToolError, match="could not be prepared: disk full"):
        await server.call_tool("search_evidence", {"query": "Eiffel Tower"})


def test_http_options_are_checked_before_anything_starts(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from factdebate.cli.main import run

    monkeypatch.delenv("FACTDEBATE_API_KEYS", raising=False)
    monkeypatch.delenv("FACTDEBATE_SERVICE_CONFIG", raising=False)
    assert run(["mcp", "--no-auth"]) == 2  # stdio has no callers to tell apart
    assert run(["mcp", "--http"]) == 2
    assert "no API keys configured" in capsys.readouterr().err
    assert run(["mcp", "--http", "--no-auth", "--host", "0.0.0.0"]) == 2
    assert "loopback" in capsys.readouterr().err
    monkeypatch.setenv("FACTDEBATE_API_KEYS", "short")
    assert run(["mcp", "--http"]) == 2
    assert "shorter than" in capsys.readouterr().err


def test_a_build_tells_the_preparation_how_far_it_is() -> None:
    from factdebate.corpus.progress import stage_reporter, watch_builds

    index = Preparation()
    stop = watch_builds(index.follow)
    try:
        with stage_reporter(False) as report:
            report.stage("embedding passages", 200)
            report.advance(50)
    finally:
        stop()
    assert "(25 %: embedding passages, 50 of 200 passages" in index.not_ready()
    with stage_reporter(False) as report:  # no longer watched
        report.stage("another build", 10)
    assert index.stage == "embedding passages"


async def test_a_callers_max_tier_caps_the_ladder(scripted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 58: ``tier: fast`` did not cap the cost (a refuted claim climbed to deep, 41 model calls). A caller's
    ``max_tier`` does, within the operator's; the description says what each tier costs."""
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_TIER", "deep")
    server = build_server()
    capped = _structured(await server.call_tool("check_answer", {
        "answer": "The Eiffel Tower is in Rome.", "evidence": [PASSAGE], "evidence_mode": "given", "tier": "fast",
        "max_tier": "fast", "deadline_s": 60}))
    assert [c["tier"] for c in capped["claims"]] == ["fast"] and capped["to_fix"]  # refuted, and it stayed there
    climbed = _structured(await server.call_tool("check_answer", {
        "answer": "The Eiffel Tower is in Rome.", "evidence": [PASSAGE], "evidence_mode": "given", "tier": "fast",
        "deadline_s": 60}))
    assert climbed["claims"][0]["tier"] == "standard" and climbed["usage"]["model_calls"] > capped["usage"][
        "model_calls"]  # without the cap a refuted claim climbs
    with pytest.raises(ToolError, match="above the max_tier 'fast'"):
        await server.call_tool("check_answer", {"answer": REPLY, "tier": "standard", "max_tier": "fast"})
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_TIER", "standard")
    lowered = _structured(await build_server().call_tool("check_answer", {
        "answer": REPLY, "evidence": [PASSAGE], "evidence_mode": "given", "max_tier": "deep", "deadline_s": 60}))
    assert {c["tier"] for c in lowered["claims"]} <= {"fast", "standard"}  # never above the operator's
    [tool] = [t for t in await server.list_tools() if t.name == "check_answer"]
    assert "max_tier" in tool.input_schema["properties"] and "fast: 1 model call per claim" in (tool.description or "")


async def test_each_quote_says_whether_it_supports_or_contradicts_the_claim(scripted: None) -> None:
    result = _structured(await build_server().call_tool("check_answer", {
        "answer": REPLY, "evidence": [PASSAGE], "evidence_mode": "given", "tier": "fast", "deadline_s": 60}))
    stances = {(c["label"], q["stance"]) for c in result["claims"] for q in c["quotes"]}
    assert ("REFUTES", "contradicts") in stances, result  # the scripted checker refutes and cites its passage
    assert stances <= {("REFUTES", "contradicts"), ("SUPPORTS", "supports"), ("REFUTES", "neither"),
                       ("SUPPORTS", "neither"), ("NOT ENOUGH INFO", "neither")}


async def test_work_longer_than_a_second_sends_progress(scripted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """No progress notifications. A check whose model takes 0.3 s a call reports every second (here
    every 0.05 s) what it last did, the seconds elapsed growing."""
    from factdebate.server.mcp import progress as mcp_progress

    monkeypatch.setattr(mcp_progress, "EVERY_S", 0.05)
    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree@0.3")
    reports: list[tuple[float, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        reports.append((done, message))

    async with mcp.Client(build_server()) as client:
        result = await client.call_tool("verify_claim", {"claim": "The Eiffel Tower is in Paris.", "agents": [
            "none", "none"], "rounds": 1, "method": "tool-mad"}, progress_callback=progress)
        assert not result.is_error, result.content
    assert reports, "no progress was reported"
    assert [done for done, _ in reports] == sorted({done for done, _ in reports})  # growing, never repeated
    assert all(message and message.endswith(" s)") for _, message in reports)


@pytest.mark.usefixtures("builtin_index")
async def test_searches_answer_from_the_full_text_index_while_the_vectors_build(
        scripted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a fresh install no corpus-backed tool answered for 20 minutes while the vectors were built,
    though the full-text index was ready after 0.9 s. A search now answers from it at once, saying so."""
    monkeypatch.setattr(mcp_tools, "INDEX_WAIT_S", 0.2)
    release = threading.Event()
    index = Preparation()

    def build(prep: Preparation) -> None:  # the full-text index built, the vectors held mid-way
        prep.full_text.set()
        prep.follow("embedding passages", 10, 40)
        release.wait(60)

    index.start(build)
    server = AgentServer()
    mcp_tools.register_tools(server, index=index)
    server.tools_ready.set()
    try:
        meant = _structured(await server.call_tool("search_evidence", {"query": "capital", "tool": "rag"}))
        plain = _structured(await server.call_tool("search_evidence", {"query": "capital", "tool": "search"}))
        nothing = await server.call_tool("search_evidence", {"query": "zyxwvut qwrtplk", "tool": "rag"})
    finally:
        release.set()
    # found nothing: what the client reads still says how it searched (the note rode on the passages only)
    assert _structured(nothing) == {"result": []}
    [said] = [block.text for block in nothing.content]
    assert said.startswith("No passages found; answered from the full-text index") and "(25 %: embedding" in said
    passages, words = meant["result"], plain["result"]
    assert passages and all(p["tool"] == "local" for p in passages)
    assert all(p["note"].startswith("answered from the full-text index") and "(25 %: embedding passages" in p["note"]
               for p in passages)
    assert words and not any("note" in p for p in words)  # the full-text search asked for: nothing to say
