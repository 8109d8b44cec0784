"""The shapes that must fail closed (test_limits.py: a sentence of four facts, the false one last; a
Markdown table whose middle row is false; a JSON object, also as a ``response_format: json_object`` answer; a
Japanese and a Thai reply, written without spaces between words) through the real gateways, run as
test_gateways.py runs them: LiteLLM's proxy (the guard as its guardrail under ``flag`` and, on the tests' one
added model, ``block``, and the guard as its model) and NeMo Guardrails' ``LLMRails`` with the documented
action, each in its own environment.

The conversation carries the evidence as an application does: a tool result before the reply (the guard reads a
conversation's tool results as its evidence on every door), and for NeMo, whose documented action sends the
chunks it retrieved, as the ``relevant_chunks`` a ``context`` message sets. The checker is the limits' world
(conversations.WorldChecker on test_limits.LIMITS).

Asserted on the text each client receives: the false reply is refuted (flag: delivered with its footnote, the
guard's text; block: an error naming what was withheld, and not a word of the answer), and its true twin passes
unflagged, delivered as written. Left to ``make test-all`` (tests/tiers.py): a LiteLLM proxy and a NeMo process of
their own, for a part ``make test`` already runs for real in test_gateways.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.guard.conformance.conversations import Conversation, WorldChecker
from tests.guard.conformance.scenarios import Scenario
from tests.guard.conformance.test_conformance import FOOTNOTES, Outcome, open_world, prepare
from tests.guard.conformance.test_conversations import judge
from tests.guard.conformance.test_gateways import (
    BLOCK_MODEL,
    CHECKED_MODEL,
    GUARDRAIL_PATH,
    Gateways,
    Got,
    Nemo,
    Recorder,
    documented_options,
    gateway_env,
    kept,
    litellm_proxy,
    model_options,
    nemo,
    nemo_options,
    through_litellm,
    through_nemo,
)
from tests.guard.conformance.test_limits import LIMITS
from tests.server.conftest import AUTH

__all__ = ["litellm_proxy", "nemo"]  # test_gateways' fixtures, opened on this module's gateways

NAMES = ("eiffel-four-facts", "skyscraper-table", "big-ben-json", "fuji-japanese", "fuji-thai")
SHAPES = [c for c in LIMITS if c.name in NAMES]
PRETTY = next(c for c in LIMITS if c.name == "big-ben-json-pretty")  # the shape a json_object answer has
TOOL_CALL = "call_almanac_1"


@pytest.fixture(scope="module")
def gateways(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateways]:
    recorder = Recorder()
    with open_world(tmp_path_factory.mktemp("gateway-limits"), recorder.wrap, checker=WorldChecker(LIMITS),
                    upstream_timeout_s=30.0) as world:
        yield Gateways(world, recorder, gateway_env(world))


def case(convo: Conversation, twin: str) -> Scenario:
    """The conversation as a client sends it: the question, the assistant's tool call and its result (the
    evidence), then the reply the upstream writes."""
    evidence = convo.evidence()[0]
    call = {"id": TOOL_CALL, "type": "function", "function": {"name": "almanac", "arguments": "{}"}}
    messages = [*convo.before, {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": TOOL_CALL, "content": evidence["text"]}]
    return Scenario(f"{convo.name}-{twin}", reply=convo.false if twin == "false" else convo.true, messages=messages)


def expect(convo: Conversation, twin: str, door: str, delivered: str | None, result: dict[str, Any],
           problem: str = "") -> None:
    """The false reply refuted, its twin passed unflagged (test_conversations.judge), and the label said."""
    problems = judge(convo, twin, Outcome(door, delivered, result, problem))
    assert not problems, "\n".join(problems)
    want = "REFUTES" if twin == "false" else "SUPPORTS"
    assert result["label"] == want, (door, result["label"], result["claims"])


def ask_litellm(gateways: Gateways, url: str, convo: Conversation, twin: str, stream: bool, model: str,
                extra: dict[str, Any] | None = None) -> tuple[Got, list[tuple[str, Any]]]:
    scenario = case(convo, twin)
    prepare(gateways.world, scenario)
    gateways.recorder.take()
    got = through_litellm(url, scenario, stream, model=model, extra=extra)
    return got, gateways.recorder.take()


CASES = [pytest.param(convo, twin, id=f"{convo.name}-{twin}") for convo in SHAPES for twin in ("false", "true")]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(("convo", "twin"), CASES)
def test_litellms_guardrail_refutes_the_false_shape_and_passes_its_twin(gateways: Gateways, litellm_proxy: str,
                                                                        convo: Conversation, twin: str,
                                                                        stream: bool) -> None:
    got, recorded = ask_litellm(gateways, litellm_proxy, convo, twin, stream, "gpt-4o-mini")
    door = f"LiteLLM's guardrail, {'stream' if stream else 'plain'} (flag)"
    [answer] = [a for path, a in recorded if path == GUARDRAIL_PATH]
    result = answer["factdebate"][0]
    assert result["policy"] == documented_options()["policy"] == "flag"
    expect(convo, twin, door, got.text, result, got.problem)
    decided = answer["texts"][0] if answer["action"] == "GUARDRAIL_INTERVENED" else (
        convo.false if twin == "false" else convo.true)
    assert got.text == decided, f"{door}: the client got {got.text!r}, the guard decided {decided!r}"
    if twin == "false":  # the footnote names the refuted statement
        assert got.text is not None and FOOTNOTES in got.text, got.text


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("convo", SHAPES, ids=lambda c: c.name)
def test_litellms_guardrail_under_block_delivers_no_word_of_the_false_shape(gateways: Gateways, litellm_proxy: str,
                                                                            convo: Conversation,
                                                                            stream: bool) -> None:
    got, recorded = ask_litellm(gateways, litellm_proxy, convo, "false", stream, BLOCK_MODEL)
    door = f"LiteLLM's guardrail, {'stream' if stream else 'plain'} (block)"
    [answer] = [a for path, a in recorded if path == GUARDRAIL_PATH]
    result = answer["factdebate"][0]
    assert result["action_taken"] == "blocked" and result["label"] == "REFUTES", result
    assert not got.text, f"{door}: {got.text!r} delivered, blocked"
    assert "withheld" in got.problem and convo.false not in got.problem, f"{door}: {got.problem!r}"


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(("convo", "twin"), CASES)
def test_the_guard_as_litellms_model_refutes_the_false_shape_and_passes_its_twin(
        gateways: Gateways, litellm_proxy: str, convo: Conversation, twin: str, stream: bool) -> None:
    got, recorded = ask_litellm(gateways, litellm_proxy, convo, twin, stream, CHECKED_MODEL)
    door = f"the guard as LiteLLM's model, {'stream' if stream else 'plain'}"
    check_id = got.headers.get("llm_provider-x-factdebate-check-id")
    assert check_id, f"{door}: no check id ({got.problem or 'no error'}): {[p for p, _ in recorded]}"
    result = kept(gateways, check_id)
    assert result["policy"] == model_options()["policy"]
    expect(convo, twin, door, got.text, result, got.problem)
    assert got.text == result["text"], f"{door}: the client got {got.text!r}, the guard decided {result['text']!r}"


@pytest.mark.parametrize("model", ["gpt-4o-mini", BLOCK_MODEL, CHECKED_MODEL])
@pytest.mark.parametrize("twin", ["false", "true"])
def test_a_json_object_answer_through_litellm_is_checked(gateways: Gateways, litellm_proxy: str, twin: str,
                                                         model: str) -> None:
    """A client asking LiteLLM for ``response_format: {"type": "json_object"}`` gets a pretty-printed object:
    its false city is refuted (flagged, or refused under ``block``), its true twin comes back as written. The
    guard as the model reads the request's ``response_format`` and keeps the flagged object JSON, the mark in
    its (prefixed) headers; the guardrail is sent the text alone and footnotes it as text."""
    got, recorded = ask_litellm(gateways, litellm_proxy, PRETTY, twin, False, model,
                                extra={"response_format": {"type": "json_object"}})
    if model == CHECKED_MODEL:
        check_id = got.headers.get("llm_provider-x-factdebate-check-id")
        assert check_id, got.problem
        result = kept(gateways, check_id)
    else:
        [answer] = [a for path, a in recorded if path == GUARDRAIL_PATH]
        result = answer["factdebate"][0]
    door = f"LiteLLM, {model}, json_object"
    if model == BLOCK_MODEL and twin == "false":
        assert result["action_taken"] == "blocked" and not got.text and "withheld" in got.problem, (got, result)
        return
    expect(PRETTY, twin, door, got.text, result, got.problem)
    if twin == "true":
        assert got.text == PRETTY.true, got.text
    elif model == CHECKED_MODEL:
        assert got.text == PRETTY.false and json.loads(got.text)["city"] == "Paris", got.text
        assert result["action_taken"] == "flagged" and result["answer_format"] == "json", result
        assert got.headers.get("llm_provider-x-factdebate-action") == "flagged", got.headers
    else:
        assert got.text is not None and FOOTNOTES in got.text and '"Paris"' in got.text.split(FOOTNOTES)[0]


def through_nemo_with_chunks(gateways: Gateways, nemo: Nemo, convo: Conversation, twin: str) -> tuple[
        dict[str, Any], list[Any]]:
    """NeMo's ``generate`` on the conversation, the evidence as the chunks the application retrieved (a
    ``context`` message's ``relevant_chunks``, which the documented action sends as its evidence)."""
    scenario = case(convo, twin)
    chunks = {"role": "context", "content": {"relevant_chunks": convo.evidence()[0]["text"]}}
    asked = Scenario(scenario.name, reply=scenario.reply, messages=[chunks, *convo.before])
    prepare(gateways.world, asked)
    gateways.recorder.take()
    gateways.recorder.checks.clear()
    out = through_nemo(nemo, asked)
    checks = [a for path, a in gateways.recorder.take() if path == "/v1/guard/check"]
    return out, checks


@pytest.mark.parametrize(("convo", "twin"), CASES)
def test_nemos_llmrails_refutes_the_false_shape_and_passes_its_twin(gateways: Gateways, nemo: Nemo,
                                                                    convo: Conversation, twin: str) -> None:
    out, checks = through_nemo_with_chunks(gateways, nemo, convo, twin)
    assert len(checks) == 1, f"{convo.name} through NeMo: the guard was asked {len(checks)} times: {out}"
    [sent] = gateways.recorder.checks
    assert sent["factdebate"]["evidence"] and sent["factdebate"]["policy"] == nemo_options()["policy"], sent
    result, delivered = checks[0], out.get("content")
    expect(convo, twin, "NeMo", delivered, result, out.get("error", ""))
    assert delivered == result["text"], f"NeMo: the user got {delivered!r}, the guard decided {result['text']!r}"


def test_the_evidence_reaches_the_guard_as_a_tool_result(gateways: Gateways) -> None:
    """The guard's direct door on the same conversation: the tool result is the evidence its verdicts quote
    (what makes the gateways' verdicts more than NOT ENOUGH INFO)."""
    convo = SHAPES[0]
    scenario = case(convo, "false")
    reply = httpx.post(f"{gateways.world.guard_url}/v1/guard/check", headers=AUTH, timeout=60, json={
        "text": scenario.reply, "messages": scenario.messages, "factdebate": documented_options()})
    gateways.recorder.take()
    assert reply.status_code == 200, reply.text
    refuted = [c for c in reply.json()["claims"] if c["label"] == "REFUTES"]
    assert refuted and all(c.get("evidence") for c in refuted), json.dumps(reply.json()["claims"])
