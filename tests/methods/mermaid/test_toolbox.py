"""MERMAID over real MCP servers: factdebate's wikipedia (offline) and search servers started by the method
as subprocesses, plus a third-party-style server named in ``mcp_servers`` that joins the toolset. Every
Wikipedia tool is called once through the executor; a claim date reaches the tools as search_before."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from factdebate.core.claim_context import claim_date
from factdebate.core.types import Label
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.helpers import BagOfWordsEncoder
from tests.methods.mermaid.support import answer, decomposition, script
from tests.paths import TESTS

pytest.importorskip("mcp")
pytest.importorskip("tantivy")

TOY = str(TESTS / "tools" / "mcp_toy_server.py")
WIKI = ["search_wikipedia", "get_summary", "get_article", "get_sections", "get_related_topics",
        "summarize_article_section", "extract_key_facts"]
PLAN = [("search_wikipedia", {"query": "temple complex in Cambodia"}),
        ("get_summary", {"title": "Angkor Wat"}),
        ("get_article", {"title": "Angkor Wat"}),
        ("get_sections", {"title": "Angkor Wat"}),
        ("get_related_topics", {"title": "Angkor Wat"}),
        ("summarize_article_section", {"title": "Angkor Wat", "section": "0"}),
        ("extract_key_facts", {"title": "Angkor Wat", "focus": "Cambodia"}),
        ("search_local", {"query": "Angkor Wat Cambodia"}),
        ("lookup", {"query": "Cambodia, then paris"}),  # a query must share a word with the claim
        ("broken", {"query": "Angkor Wat"})]


def replies(call: CallInfo, text: str) -> str:
    if call.prompt == "mermaid_decompose":
        return decomposition("Angkor Wat", "Cambodia", "Architecture")
    if call.round <= len(PLAN):
        name, arguments = PLAN[call.round - 1]
        return json.dumps({"thought": f"try {name}", "action": {"name": name, "reason": "coverage",
                                                                   "input": arguments}})
    return answer("True")


@pytest.mark.slow
@pytest.mark.usefixtures("builtin_index")  # the 40-article index and the encoder, made once per run
async def test_executor_calls_every_tool_of_real_servers_and_an_external_one(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_RETRIEVAL__BUILTIN_DOCS", "40")
    settings = load_settings(overrides={
        "method": "mermaid", "llm": {"cache": False},
        "methods": {"mermaid": {"max_steps": len(PLAN) + 1, "memory_path": str(tmp_path / "m.sqlite"),
                                "memory_semantic": False}},
        "mcp_servers": {"toy": {"command": sys.executable, "args": [TOY]}}})
    backend = ScriptedBackend(script(replies))
    resources = build_resources(settings, backends={"debater": backend}, encoder_factory=BagOfWordsEncoder)
    events: list[dict] = []
    async with resources:
        with claim_date("15-3-2001"):  # AVeriTeC's form; the tools get it as search_before
            verdict = await run_claim("Angkor Wat is in Cambodia", settings, resources, sinks=[events.append])
    assert verdict.label == Label.SUPPORTS
    steps = verdict.rounds[0].turns[0].steps
    assert [s.tool for s in steps] == [name for name, _ in PLAN] + ["answer"]
    by_tool = {s.tool: s for s in steps}
    for name in WIKI:
        assert not by_tool[name].observation.startswith("error"), (name, by_tool[name].observation)
        assert by_tool[name].evidence, name
    assert "Angkor Wat" in by_tool["search_wikipedia"].observation
    assert "Cambodia" in by_tool["get_summary"].observation
    assert "NOT applied" in by_tool["get_summary"].observation and "2001-03-15" in by_tool["get_summary"].observation
    assert "Paris is the capital of France" in by_tool["lookup"].observation  # the external server's tool
    assert by_tool["broken"].observation.startswith("error:") and "archive is closed" in by_tool["broken"].observation
    assert verdict.usage.tool_calls == len(PLAN)
    # The step prompt listed the external server's tools beside factdebate's.
    first = backend.calls[1][1][0]["content"]
    assert "- lookup:" in first and "- search_wikipedia:" in first and "- search_local:" in first
    written = next(e for e in events if e["event"] == "memory_write")
    assert written["added"] > 0 and {r["entity"] for r in written["records"]} <= {"Angkor Wat", "Cambodia"}
    assert all(r["tool"] != "broken" for r in written["records"])
