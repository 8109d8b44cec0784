"""The conformance suite's conversational world (conversations.py): every conversation's false
reply and its all-true twin through every door -- the proxy plain and streamed, ``POST /v1/guard/check``,
LiteLLM's guardrail route (the conversation from its ``pre_call``, the reply in its ``post_call``),
``factdebate.guard``, ``factdebate.aguard_stream`` and MCP ``check_answer`` (given the conversation) -- under
``flag``, and the false replies under ``block`` and ``hold`` through every door but MCP's (``check_answer``
annotates: what to send is the agent's).

Asserted: no false statement is delivered without a claim that marks it refuted or unchecked (nor under a
SUPPORTS label); ``block`` refuses it and ``hold`` never shows it; no true twin is flagged (every claim checked
and supported, the reply delivered as written); and the same verdicts through every door, plain and streamed.
One guard, upstream and checker for the module (test_conformance.open_world).
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import factdebate as fd
from factdebate.guard_engine.policy import WITHHELD
from tests.guard.conformance.conversations import WORLD, Conversation, WorldChecker, truth
from tests.guard.conformance.scenarios import Scenario
from tests.guard.conformance.test_conformance import (
    FOOTNOTES,
    HTTP,
    McpDoor,
    Outcome,
    World,
    mcp,
    open_world,
    options_of,
    prepare,
    through_check,
    through_proxy,
    through_python,
    through_stream,
    verdicts,
)
from tests.server.conftest import AUTH

__all__ = ["mcp"]  # the suite's MCP door, opened on this module's world

FALSE = {claim for claim, label in truth().items() if label == "REFUTES"}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with open_world(tmp_path_factory.mktemp("conversations"), checker=WorldChecker(),
                    upstream_timeout_s=30.0) as opened:
        yield opened


def scenario(convo: Conversation, twin: str, policy: str) -> Scenario:
    """The reply as a door's case; under ``rewrite`` the model asked to revise writes the all-true twin."""
    return Scenario(f"{convo.name}-{twin}-{policy}", reply=convo.false if twin == "false" else convo.true,
                    options={"evidence": convo.evidence(), "policy": policy}, messages=convo.before,
                    revised=convo.true if policy == "rewrite" else None)


def through_mcp(mcp: McpDoor, convo: Conversation, reply: str) -> Outcome:
    arguments = {"answer": reply, "conversation": convo.before, "evidence": convo.evidence(),
                 "evidence_mode": "given", "tier": "fast"}
    answer = mcp.portal.call(mcp.client.call_tool, "check_answer", arguments)
    if answer.is_error:
        return Outcome("mcp", None, None, " ".join(getattr(c, "text", "") for c in answer.content))
    return Outcome("mcp", reply, answer.structured_content)


def through_litellm(world: World, case: Scenario) -> Outcome:
    """LiteLLM's guardrail route as LiteLLM 1.108 calls it under ``mode: [pre_call, post_call]``: before the model,
    the request's texts and its conversation (``structured_messages``); after it, the reply's text alone, under
    the same ``litellm_call_id``; the options as the guardrail's params. What the client gets is the text as
    LiteLLM's answer leaves it."""
    url, params, call = f"{world.guard_url}/beta/litellm_basic_guardrail_api", options_of(case), uuid.uuid4().hex
    asked = {"input_type": "request", "texts": [m["content"] for m in case.messages if m["role"] == "user"],
             "structured_messages": case.messages, "model": "scripted", "litellm_call_id": call,
             "additional_provider_specific_params": params}
    before = HTTP.post(url, json=asked, headers=AUTH)
    assert before.json() == {"action": "NONE"}, before.text  # the request passes
    body = {"input_type": "response", "texts": [case.reply], "model": "scripted", "litellm_call_id": call,
            "additional_provider_specific_params": params}
    reply = HTTP.post(url, json=body, headers=AUTH)
    data = reply.json()
    if reply.status_code != 200:
        return Outcome("litellm", None, None, f"{reply.status_code} {data}")
    action = data["action"]
    delivered = (data["blocked_reason"] if action == "BLOCKED" else data["texts"][0]
                 if action == "GUARDRAIL_INTERVENED" else case.reply)
    return Outcome("litellm", delivered, data["factdebate"][0])


def through_python_stream(world: World, case: Scenario) -> Outcome:
    """``factdebate.aguard_stream``: the reply's words as its deltas, the conversation before it; what the reader
    sees is the text it yields."""

    async def deltas() -> AsyncIterator[str]:
        for word in re.findall(r"\S+\s*|\s+", case.reply):
            yield word

    revised = case.revised

    async def reviser(answer: str, refuted: list[Any]) -> str:
        assert revised is not None
        return revised

    async def run() -> Outcome:
        shown, result = "", None
        async for out in fd.aguard_stream(deltas(), messages=case.messages, backends={"debater": world.checker},
                                          config_file=world.config_file, **options_of(case),
                                          reviser=reviser if revised is not None else None):
            shown += out.text if out.kind == "text" else ""
            if out.result is not None:
                result = out.result.model_dump(mode="json")
        return Outcome("aguard_stream", shown, result)

    return asyncio.run(run())


def every_door(world: World, mcp: McpDoor, convo: Conversation, twin: str, policy: str) -> list[Outcome]:
    """The conversation's reply through every door at once (each check is the scripted checker's, in
    milliseconds; the requests' round trips are the time); MCP's ``check_answer`` only under ``flag``, the
    policy it reports under."""
    case = scenario(convo, twin, policy)
    prepare(world, case)
    with ThreadPoolExecutor(7) as pool:
        doors = [pool.submit(through_proxy, world, case), pool.submit(lambda: [through_stream(world, case)]),
                 pool.submit(lambda: [through_check(world, case)]), pool.submit(lambda: [through_python(world, case)]),
                 pool.submit(lambda: [through_litellm(world, case)]),
                 pool.submit(lambda: [through_python_stream(world, case)])]
        if policy == "flag":
            doors.append(pool.submit(lambda: [through_mcp(mcp, convo, case.reply)]))
        return [out for door in doors for out in door.result()]


def _fold(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".")


def marked(convo: Conversation, result: dict[str, Any]) -> bool:
    """Whether a claim of ``result`` marks the false statement refuted or unchecked: placed on its words, or
    (placed nowhere) one of the world's false claims."""
    if result["degraded"]:
        return True
    start = convo.false.index(convo.wrong)
    end = start + len(convo.wrong)
    for claim in result["claims"]:
        if claim["status"] == "checked" and claim["label"] != "REFUTES":
            continue
        span = claim.get("span")
        if span is not None and span["start"] < end and start < span["end"]:
            return True
        if span is None and _fold(claim["claim"]) in FALSE:
            return True
    return False


def judge(convo: Conversation, twin: str, out: Outcome) -> list[str]:
    """What is wrong with one door's outcome (empty: nothing)."""
    where = f"{convo.name} ({twin}) through {out.door}"
    if out.result is None:
        return [f"{where}: no result: {out.problem}"]
    result, delivered = out.result, out.delivered or ""
    problems = []
    if twin == "false":
        shown = convo.wrong in delivered.split(FOOTNOTES)[0]
        if shown and (result["label"] == "SUPPORTS" or not marked(convo, result)):
            problems.append(f"{where}: {convo.wrong!r} delivered unmarked: {result['claims']}")
        policy = result.get("policy")
        if policy == "block" and result["action_taken"] != "blocked":
            problems.append(f"{where}: not blocked under block: {result['claims']}")
        if policy == "hold" and convo.wrong in delivered.split(FOOTNOTES)[0]:
            problems.append(f"{where}: {convo.wrong!r} shown under hold: {delivered!r}")
        if policy == "hold" and WITHHELD not in delivered and result["action_taken"] != "blocked":
            problems.append(f"{where}: nothing withheld under hold: {delivered!r}")
    else:
        bad = [c for c in result["claims"] if c["status"] != "checked" or c["label"] != "SUPPORTS"]
        if result["degraded"] or bad or result["label"] != "SUPPORTS" or not result["claims"]:
            problems.append(f"{where}: the true twin is flagged: {result['label']}, {result['claims']}, "
                            f"{result.get('degraded_reason')}")
        if out.door != "mcp" and (delivered != convo.true or result["action_taken"] not in ("annotated", "none")):
            problems.append(f"{where}: the true twin was not delivered as written: {result['action_taken']}, "
                            f"{delivered!r}")
    return problems


CASES = [pytest.param(convo, twin, id=f"{convo.name}-{twin}") for convo in WORLD for twin in ("false", "true")]


@pytest.mark.parametrize(("convo", "twin"), CASES)
def test_every_door_marks_the_false_statement_and_passes_its_twin(world: World, mcp: McpDoor,
                                                                   convo: Conversation, twin: str) -> None:
    case = scenario(convo, twin, "flag")
    prepare(world, case)
    # The doors at once (each check is the scripted checker's, in milliseconds; the requests' round trips are
    # the time): the module's 86 cases in the time of their slowest door.
    with ThreadPoolExecutor(7) as pool:
        doors = [pool.submit(through_proxy, world, case), pool.submit(lambda: [through_stream(world, case)]),
                 pool.submit(lambda: [through_check(world, case)]), pool.submit(lambda: [through_python(world, case)]),
                 pool.submit(lambda: [through_mcp(mcp, convo, case.reply)]),
                 pool.submit(lambda: [through_litellm(world, case)]),
                 pool.submit(lambda: [through_python_stream(world, case)])]
        outcomes = [out for door in doors for out in door.result()]
    problems = [problem for out in outcomes for problem in judge(convo, twin, out)]
    assert not problems, "\n".join(problems)
    first = verdicts(outcomes[0], case.reply)
    differ = [f"{out.door}: {verdicts(out, case.reply)} != {first}" for out in outcomes[1:]
              if verdicts(out, case.reply) != first]
    assert not differ, f"{convo.name} ({twin}): the doors differ from the plain proxy: " + "; ".join(differ)


@pytest.mark.parametrize("policy", ["block", "hold"])
@pytest.mark.parametrize("convo", WORLD, ids=lambda c: c.name)
def test_block_refuses_and_hold_withholds_the_false_statement(world: World, convo: Conversation,
                                                              policy: str) -> None:
    case = scenario(convo, "false", policy)
    prepare(world, case)
    with ThreadPoolExecutor(6) as pool:
        plain, streamed = pool.submit(through_proxy, world, case), pool.submit(through_stream, world, case)
        litellm, python = pool.submit(through_litellm, world, case), pool.submit(through_python_stream, world, case)
        check, guard = pool.submit(through_check, world, case), pool.submit(through_python, world, case)
        outcomes = [*plain.result(), streamed.result(), litellm.result(), python.result(), check.result(),
                    guard.result()]
    problems = [problem for out in outcomes for problem in judge(convo, "false", out)]
    assert not problems, "\n".join(problems)


def test_the_world_is_conversational() -> None:
    """At least 40 conversations, each shape the issue names, and an extractor that never hands back a reply's
    sentence as it stands (it decontextualizes)."""
    assert len(WORLD) >= 40
    shapes = " ".join(c.shape for c in WORLD)
    for shape in ("short answer", "yes or no across turns", "one turn back", "two turns back", "three turns back",
                  "heading", "longer name", "shorter name", "quoted", "hedged"):
        assert shape in shapes, shape
    from factdebate.response_level.spans import sentences

    for convo in WORLD:
        assert convo.wrong in convo.false and convo.wrong not in convo.true, convo.name
        for reply in (convo.false, convo.true):
            own = {_fold(reply[a:b].lstrip("-*0123456789. ")) for a, b in sentences(reply)}
            written = {_fold(s.claim) for s in convo.said if s.sentence in reply}
            assert written and not own & written, (convo.name, own & written)
