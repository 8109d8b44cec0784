"""The guard's conformance suite: each fault scenario (scenarios.py: the checker down, slow
past the deadline or answering garbage; the upstream failing, hanging, answering garbage or stopping
mid-sentence; context over every limit; corrections the quote contradicts; rewrites that repeat the claim;
``n = 3`` under ``block``; tool messages carrying instructions; statements dressed as opinions or questions) is
run through every door this process can open:

- the proxy, plain (``POST /v1/chat/completions``) and streamed (``stream: true``), in front of a scripted
  upstream model on loopback (tests/server/guard_support.py);
- ``POST /v1/guard/check`` (the reply handed over by a framework);
- the Python API (``factdebate.guard``);
- MCP: the ``check_answer`` tool through the MCP SDK's client, in-process (its memory streams), beside the
  other doors. The tool checks a reply an agent hands over and annotates, so it runs the scenarios about a
  given reply (``mcp_skip`` says which are left out and why: the upstream's faults, an empty reply, a session's
  tool results) and is judged on its verdicts, which must equal ``/v1/guard/check``'s. (``check_response`` is
  the configured method's check of a reply, without the guard's tiers, deadline or quotes: not a guard door.)

And a stream the client cuts (``test_a_stream_the_client_cuts_ends_everything``). Asserted for every scenario
and door: no false sentence reaches the client as checked (a reply that still holds one has no SUPPORTS label
and a claim that marks it refuted or unchecked, or a degraded check); every unchecked claim, and a degraded
check, says why; the policies hold (``block`` withholds what was refuted, ``on_unchecked: block`` what was not
checked, ``hold`` every sentence refuted); and a reply gets the same verdicts through every door where no
deadline decides. Under ``hold`` the stream is also read verdict by verdict
(``test_under_hold_no_refuted_sentence_is_streamed_before_its_verdict``).

LiteLLM's real proxy server and NeMo Guardrails' real ``LLMRails``, whose versions conflict with this
environment's, run from their own environments in test_gateways.py (a subset of these scenarios). A scenario
that finds a bug not fixed yet is marked ``xfail`` with the issue item that owns it, never left out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

import factdebate as fd
from factdebate.guard_engine.messages import person_question, text_of
from factdebate.guard_engine.policy import WITHHELD
from factdebate.run.build import build_resources
from factdebate.settings.model import Settings
from tests.guard.conformance.scenarios import (
    FALSE_SENTENCES,
    FALSE_WORDS,
    HOLD,
    PASSAGE,
    SCENARIOS,
    Checker,
    Faults,
    Scenario,
)
from tests.helpers import BagOfWordsEncoder, StaticTool
from tests.readiness import wait_until_ready
from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import Upstream, upstream_app

CONFIG: dict[str, Any] = {  # the operator's file, for the service and the Python API alike
    "llm": {"debater": "scripted:agree", "cache": False}, "method": "single",
    # A deadline far above a scripted check's seconds: only the scenarios that set their own (checker-slow)
    # may be decided by the clock; 10 s was reached by a 61-message session on a loaded machine.
    "guard": {"tier": "fast", "max_tier": "fast", "deadline_s": 60.0, "upstream_timeout_s": 2.0,
              "max_message_chars": 8000, "max_evidence_chars": 6000, "max_evidence_items": 20},
    "response": {"max_claims": 6},
}
BASE_OPTIONS = {"tier": "fast", "evidence": [PASSAGE], "evidence_mode": "given"}
# One client for every door's request: a new httpx client builds its TLS context first (0.2 s a request here,
# most of a scripted check's time), even for a plain-HTTP loopback server.
HTTP = httpx.Client(timeout=60)


@dataclass
class World:
    checker: Checker
    upstream: Upstream
    guard_url: str
    config_file: Path
    upstream_url: str = ""
    build: Callable[[Settings], Any] | None = None  # the resources every door's checks use


@dataclass
class Outcome:
    door: str
    delivered: str | None  # what the client got as the answer (None: an error, nothing delivered)
    result: dict[str, Any] | None  # the check's result (None when the door refused or failed)
    problem: str = ""  # the error the client got instead


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with open_world(tmp_path_factory.mktemp("conformance")) as opened:
        yield opened


@contextmanager
def open_world(folder: Path, wrap: Callable[[Any], Any] = lambda app: app,
               checker: Checker | None = None, upstream_timeout_s: float | None = None) -> Iterator[World]:
    """The scripted checker (``checker``: another world's) and upstream model, and the guard in front of them
    (its ASGI app through ``wrap``). ``upstream_timeout_s``: a longer wait for the scripted upstream, for a world
    whose doors run many requests at once and has no scenario that depends on the suite's 2 s."""
    from factdebate.server.app import create_app

    checker, upstream = checker or Checker(), Upstream()
    config_file = folder / "guard.yaml"
    config = CONFIG if upstream_timeout_s is None else {
        **CONFIG, "guard": {**CONFIG["guard"], "upstream_timeout_s": upstream_timeout_s}}
    config_file.write_text(json.dumps(config))  # JSON is YAML: the Python door reads the same settings

    def build(settings: Settings) -> Any:
        tools = {kind: StaticTool(kind, []) for kind in ("rag", "search")}
        return build_resources(settings, backends={"debater": checker, "judge": checker, "scorer": checker},
                               tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)

    with pytest.MonkeyPatch.context() as patch, LiveServer(upstream_app(upstream)) as model:
        patch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        app = create_app(api_keys=[KEY], config_file=config_file, db_path=folder / "service.sqlite", build=build,
                         rate_limit_per_minute=0)
        with LiveServer(wrap(app)) as guard:
            yield World(checker, upstream, guard.url, config_file, model.url, build)


def prepare(world: World, scenario: Scenario) -> None:
    world.checker.faults = scenario.faults
    fresh = Upstream(answer=scenario.reply, **scenario.upstream)
    revised = scenario.revised
    if revised is not None:
        fresh.revise = lambda messages: revised
    for name in ("answer", "latency", "token_delay", "tool_calls", "fail", "revise"):
        setattr(world.upstream, name, getattr(fresh, name))


def options_of(scenario: Scenario) -> dict[str, Any]:
    return {**BASE_OPTIONS, **scenario.options}


def conversation(scenario: Scenario) -> list[dict[str, Any]]:
    return scenario.messages or [{"role": "user", "content": "Where is the Eiffel Tower?"}]


def through_proxy(world: World, scenario: Scenario) -> list[Outcome]:
    """One outcome per choice."""
    body: dict[str, Any] = {"model": "scripted", "messages": conversation(scenario), "factdebate": options_of(scenario)}
    if scenario.n > 1:
        body["n"] = scenario.n
    reply = HTTP.post(f"{world.guard_url}/v1/chat/completions", json=body, headers=AUTH)
    data = reply.json()
    if reply.status_code != 200:
        return [Outcome("proxy", None, None, f"{reply.status_code} {data}")]
    choices = data["choices"]
    outcomes = []
    for number, choice in enumerate(choices):
        result = choice.get("factdebate") or (data["factdebate"] if number == 0 else None)
        outcomes.append(Outcome(f"proxy choice {number + 1}", choice["message"].get("content") or "", result))
    assert len(choices) == scenario.n or not scenario.reply, "every choice asked for is passed on, checked"
    return outcomes


def through_stream(world: World, scenario: Scenario) -> Outcome:
    body = {"model": "scripted", "messages": conversation(scenario), "factdebate": options_of(scenario),
            "stream": True}
    text, result, problem = "", None, ""
    with HTTP.stream("POST", f"{world.guard_url}/v1/chat/completions", json=body, headers=AUTH) as reply:
        if reply.status_code != 200:
            return Outcome("stream", None, None, f"{reply.status_code} {reply.read()!r}")
        for line in reply.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if "error" in chunk:
                problem = json.dumps(chunk["error"])
            if "factdebate" in chunk:
                result = chunk["factdebate"]
            for choice in chunk.get("choices") or []:
                text += (choice.get("delta") or {}).get("content") or ""
    return Outcome("stream", text, result, problem)


def through_check(world: World, scenario: Scenario) -> Outcome:
    body: dict[str, Any] = {"text": scenario.reply, "factdebate": options_of(scenario), "model": "scripted",
                            "messages": conversation(scenario)}
    reply = HTTP.post(f"{world.guard_url}/v1/guard/check", json=body, headers=AUTH)
    data = reply.json()
    if reply.status_code != 200:
        return Outcome("/v1/guard/check", None, None, f"{reply.status_code} {data}")
    return Outcome("/v1/guard/check", data["text"], data)


def through_python(world: World, scenario: Scenario) -> Outcome:
    revised = scenario.revised

    async def reviser(answer: str, refuted: list[Any]) -> str:
        assert revised is not None
        return revised

    messages = [*conversation(scenario), {"role": "assistant", "content": scenario.reply}]
    result = fd.guard(messages, backends={"debater": world.checker}, config_file=world.config_file,
                      reviser=reviser if revised is not None else None, **options_of(scenario))
    return Outcome("python", result.text, result.model_dump(mode="json"))


def mcp_skip(scenario: Scenario) -> str:
    """Why ``scenario`` is not run through the MCP tool ``check_answer`` ('' when it is). The tool checks a reply
    an agent hands over, with the agent's question and evidence, and annotates (what to send is the agent's
    choice): so the policies' own work (block, rewrite, hold, ``on_unchecked``) is not the tool's, yet the
    verdicts it returns must be the same as ``/v1/guard/check``'s for the same reply."""
    if scenario.proxy_only:
        return "an upstream fault: MCP has no upstream, the agent hands over its reply"
    if not scenario.reply.strip():
        return "no reply: an agent has no text to check (check_answer refuses an empty answer)"
    if sum(m.get("role") == "tool" for m in scenario.messages) > 1:
        return ("how the chat routes turn a session's tool results into evidence (ranked, capped, titled); "
                "check_answer takes no conversation: the agent passes evidence, under the caller's limits")
    return ""


def mcp_arguments(scenario: Scenario) -> dict[str, Any]:
    """``check_answer``'s arguments: the reply, the person's question, and the evidence, a tool message's text
    among it as an agent would pass what its tool returned."""
    options = options_of(scenario)
    tools = [{"title": "kb_search result", "text": text_of(m.get("content"))}
             for m in scenario.messages if m.get("role") == "tool"]
    arguments: dict[str, Any] = {"answer": scenario.reply, "question": person_question(conversation(scenario)),
                                 "evidence": [*options["evidence"], *tools], "evidence_mode": options["evidence_mode"],
                                 "tier": options["tier"]}
    if "deadline_s" in options:
        arguments["deadline_s"] = options["deadline_s"]
    return arguments


def mcp_outcome(scenario: Scenario, answer: Any) -> Outcome:
    if answer.is_error:
        return Outcome("mcp", None, None, " ".join(getattr(c, "text", "") for c in answer.content))
    result = answer.structured_content or json.loads(answer.content[0].text)
    # The tool delivers nothing itself: the agent has the reply, and whatever it sends on is the reply.
    return Outcome("mcp", scenario.reply, result)


def judge(scenario: Scenario, out: Outcome) -> None:
    """The suite's rules, for one door's outcome."""
    where = f"{scenario.name} through {out.door}"
    if out.result is None:
        assert out.problem, f"{where}: neither a result nor an error"
        return
    result, delivered = out.result, out.delivered or ""
    for claim in result["claims"]:
        if claim["status"] != "checked":
            assert claim["reason"], f"{where}: claim {claim['claim']!r} is {claim['status']} without a reason"
    if result["degraded"]:
        assert result["degraded_reason"], f"{where}: degraded without a reason"
    for false in FALSE_SENTENCES:
        if false not in delivered or false not in scenario.reply + (scenario.revised or ""):
            continue
        assert result["label"] != "SUPPORTS", f"{where}: {false!r} delivered under SUPPORTS"
        marked = result["degraded"] or any(
            (c["label"] == "REFUTES" or c["status"] != "checked") and _names(c, result, false)
            for c in [*result["claims"], *result.get("revision_claims", [])])
        assert marked, f"{where}: {false!r} delivered, and no claim marks it refuted or unchecked: {result['claims']}"
    # A door that applies no policy (MCP's check_answer: the agent decides) is judged on its verdicts alone.
    if result.get("policy") == "block" and result["label"] == "REFUTES":
        assert result["action_taken"] == "blocked", f"{where}: refuted under block, not blocked"
    unchecked = result["degraded"] or any(c["status"] != "checked" for c in result["claims"])
    if result.get("on_unchecked") == "block" and unchecked and delivered.strip():
        assert result["action_taken"] == "blocked", f"{where}: unchecked under on_unchecked: block, not blocked"
    if result.get("policy") == "hold" and result["action_taken"] != "blocked":
        answer = delivered.split(FOOTNOTES)[0]
        for claim in result["claims"]:
            if claim["status"] == "checked" and claim["label"] == "REFUTES":
                said = _said(claim, result, scenario.reply)
                assert said not in answer, f"{where}: {said!r} refuted, yet shown under hold: {answer!r}"
                assert WITHHELD in answer, f"{where}: refuted under hold and nothing withheld"
    if result.get("action_taken") == "blocked" and scenario.reply.strip():
        # The refusal may name what it withheld, as withheld; the answer itself is not delivered.
        assert scenario.reply not in delivered, f"{where}: blocked, yet the answer was delivered"


FOOTNOTES = "\n\n---\nFact check:"


def _said(claim: dict[str, Any], result: dict[str, Any], reply: str) -> str:
    """The words of the reply that state ``claim``: the text its span marks, or the claim itself."""
    span = claim.get("span")
    text = result.get("original_text") or reply
    return text[span["start"]:span["end"]] if span else claim["claim"]


def _names(claim: dict[str, Any], result: dict[str, Any], false: str) -> bool:
    """Whether ``claim`` is about the false sentence: by its words, or by the text its span marks."""
    span = claim.get("span")
    marked = result.get("original_text", "")[span["start"]:span["end"]] if span and "original_text" in result else ""
    words = [w for w in FALSE_WORDS if w in false] or ["Berlin"]  # "Yes." answers a question about Berlin
    return any(w in claim["claim"] or w in marked for w in words)


def verdicts(out: Outcome, reply: str) -> list[tuple[str, str, str | None]]:
    """Each claim's verdict, named by the words of the reply its span marks (a door may word the claim of
    "It is in Berlin." with its antecedent resolved, or not: the sentence and its verdict are what count)."""
    assert out.result is not None
    return sorted((reply[c["span"]["start"]:c["span"]["end"]] if c.get("span") else c["claim"], c["status"],
                   c["label"]) for c in out.result["claims"])


def scenario_params() -> list[Any]:
    return [pytest.param(s, id=s.name, marks=[pytest.mark.xfail(reason=s.xfail, strict=False)] if s.xfail else [])
            for s in SCENARIOS]


@dataclass
class McpDoor:
    """``check_answer`` through the MCP SDK's client, in-process (its memory streams), to the MCP server with
    the operator's file and the suite's checker: one session, its loop on a thread of its own (a blocking
    portal), so a call runs beside the other doors'."""

    portal: Any
    client: Any

    def start(self, scenario: Scenario) -> Future[Any]:
        return cast("Future[Any]", self.portal.start_task_soon(self.client.call_tool, "check_answer",
                                                                mcp_arguments(scenario)))


@pytest.fixture(scope="module")
def mcp(world: World) -> Iterator[McpDoor]:
    from anyio.from_thread import start_blocking_portal
    from mcp import Client

    from factdebate.scale.resource_pool import ResourcePool
    from factdebate.server.mcp.server import build_server

    server = build_server(world.config_file, ResourcePool(size=4, build=world.build))
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(server)) as client:
        yield McpDoor(portal, client)


@pytest.mark.parametrize("scenario", scenario_params())
def test_no_door_delivers_a_false_sentence_as_checked(world: World, mcp: McpDoor,
                                                      scenario: Scenario) -> None:
    prepare(world, scenario)
    # MCP's call runs beside the others (its checks wait on the same deadlines: the suite's seconds, not twice).
    by_mcp = None if mcp_skip(scenario) else mcp.start(scenario)
    outcomes = [*through_proxy(world, scenario)]
    if scenario.n == 1:
        outcomes.append(through_stream(world, scenario))
    if not scenario.proxy_only:
        outcomes += [through_check(world, scenario), through_python(world, scenario)]
    if by_mcp is not None:
        outcomes.append(mcp_outcome(scenario, by_mcp.result(timeout=60)))
    for out in outcomes:
        judge(scenario, out)
    if scenario.proxy_only:
        return
    # The same reply, the same verdicts through every door (a deadline may decide otherwise: not compared then).
    checked = [out for out in outcomes if out.result is not None and scenario.reply.strip()]
    if scenario.timing or len(checked) < 2:
        return
    first = verdicts(checked[0], scenario.reply)
    for out in checked[1:]:
        found = verdicts(out, scenario.reply)
        if found != first and scenario.differs:
            pytest.xfail(f"{out.door} differs from {checked[0].door}: {scenario.differs}")
        assert found == first, f"{scenario.name}: {out.door} differs from {checked[0].door}: {found} != {first}"


@pytest.mark.parametrize("scenario", [s for s in HOLD if s.faults == Faults() and "on_unchecked" not in s.options
                                      and "question" not in s.name and s.reply.strip() and not s.differs],
                         ids=lambda s: s.name)
def test_under_hold_no_refuted_sentence_is_streamed_before_its_verdict(world: World, scenario: Scenario) -> None:
    """Read verdict by verdict (``X-Factdebate-Verdicts: each``), word by word: the text a refuted claim marks is
    in none of the text streamed before its verdict, nor after it (the footnotes name it, as withheld). (The
    question answered "Yes." is left out here: its claim is unchecked, not refuted, and unchecked text is shown
    under hold with its footnote, as ``on_unchecked: pass`` says; the suite's rules above hold for it.)"""
    prepare(world, scenario)
    # Paced so verdicts interleave with the text; the 2,106-word reply past max_message_chars at a tenth of it
    # (10 s of sleeping otherwise, for nothing more: its checked part is a few sentences).
    world.upstream.token_delay = 0.005 if len(scenario.reply) < 2_000 else 0.0005
    body = {"model": "scripted", "messages": conversation(scenario), "factdebate": options_of(scenario),
            "stream": True}
    events: list[tuple[str, Any]] = []
    try:
        with httpx.stream("POST", f"{world.guard_url}/v1/chat/completions", json=body, timeout=60,
                          headers={**AUTH, "X-Factdebate-Verdicts": "each"}) as reply:
            assert reply.status_code == 200 and reply.headers["X-Factdebate-Check-Id"]
            for line in reply.iter_lines():
                if not line.startswith("data: {"):
                    continue
                chunk = json.loads(line[6:])
                if "factdebate_claim" in chunk:
                    events.append(("claim", chunk["factdebate_claim"]))
                elif "factdebate" in chunk:
                    events.append(("result", chunk["factdebate"]))
                for choice in chunk.get("choices") or []:
                    events.append(("text", (choice.get("delta") or {}).get("content") or ""))
    finally:
        world.upstream.token_delay = 0.0
    result = events[-1][1]
    assert events[-1][0] == "result" and result["action_taken"] == "held", result
    refuted = 0
    for at, (kind, claim) in enumerate(events):
        if kind != "claim" or claim["label"] != "REFUTES":
            continue
        refuted += 1
        said = _said(claim, result, scenario.reply)
        before = "".join(t for k, t in events[:at] if k == "text")
        assert said not in before, f"{scenario.name}: {said!r} streamed before its verdict"
    answer = "".join(t for k, t in events if k == "text").split(FOOTNOTES)[0]
    assert refuted and WITHHELD in answer
    assert not any(f in answer for f in FALSE_SENTENCES if f != "Yes."), answer


def test_there_are_at_least_fifty_scenarios() -> None:
    assert len(SCENARIOS) >= 50
    assert sum(not mcp_skip(s) for s in SCENARIOS) >= 50, "most are about a given reply: MCP's door runs them"


def test_a_stream_the_client_cuts_ends_everything(world: World) -> None:
    prepare(world, Scenario("client-cut", reply=" ".join(["Paris is the capital of France."] * 40)))
    world.upstream.token_delay = 0.05
    body = {"model": "scripted", "messages": conversation(SCENARIOS[0]), "stream": True,
            "factdebate": {**BASE_OPTIONS, "policy": "flag"}}
    with httpx.stream("POST", f"{world.guard_url}/v1/chat/completions", json=body, headers=AUTH,
                      timeout=60) as reply:
        for line in reply.iter_lines():
            if '"content"' in line:
                break  # the client reads one chunk and hangs up
    # by the guard's state, bounded by this process's CPU (the guard runs in it), not 30 s of wall
    wait_until_ready(lambda: httpx.get(f"{world.guard_url}/v1/health").json()["active_runs"] == 0, os.getpid(),
                     "the cut stream's run ended in the guard (this process)", cpu_budget_s=30, every_s=0.1)
    world.upstream.token_delay = 0.0
