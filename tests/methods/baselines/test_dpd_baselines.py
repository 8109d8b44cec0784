"""The DPD paper's baselines with scripted models: HaluEval few-shot prompting, self-check (0 samples and
sample consistency), FacTool's single pass and the WeCheck stand-in (no LLM)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from factdebate.core.types import Document, Label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, StaticTool, resources_for

Reply = Callable[[CallInfo, list[Message], GenParams], str]


def by_prompt(replies: dict[str, Any]) -> Reply:
    """Replies by prompt name; a list is consumed in order, a callable gets (call, messages)."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        reply = replies[call.prompt]
        if isinstance(reply, list):
            return reply.pop(0)
        return reply(call, messages) if callable(reply) else reply

    return respond


async def run(method: str, replies: dict[str, Any], **sections: Any) -> tuple[Any, Any, Any]:
    resources, backend, tools = resources_for(by_prompt(replies), method=method, **sections)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    return verdict, backend, tools


@pytest.mark.parametrize(("answer", "label"), [("Hallucination: Yes", Label.REFUTES),
                                               ("Looks right.\nHallucination: No", Label.SUPPORTS)])
async def test_halueval_fewshot_maps_hallucination_to_refutes(answer: str, label: Label) -> None:
    verdict, backend, _ = await run("halueval-fewshot", {"halueval_fewshot": answer})
    assert verdict.label == label and verdict.decided_by == "single" and len(backend.calls) == 1
    prompt = backend.calls[0][1][0]["content"]
    assert prompt.count("Hallucination: ") >= 3 and CLAIM in prompt  # three worked examples, then the claim


async def test_halueval_fewshot_unreadable_twice_is_unparsed() -> None:
    verdict, backend, _ = await run("halueval-fewshot", {"halueval_fewshot": "hmm", "halueval_fewshot:reask": "?"})
    assert verdict.label is None and verdict.decided_by == "unparsed" and verdict.unparsed_turns == 1
    assert backend.calls[1][0].prompt == "halueval_fewshot:reask"


async def test_selfcheck_zero_samples_is_one_reasoned_verdict_with_optional_shots() -> None:
    verdict, backend, _ = await run("selfcheck", {"selfcheck": "It is right.\nSUPPORTS"})
    assert verdict.label == Label.SUPPORTS and len(backend.calls) == 1
    assert "Examples:" not in backend.calls[0][1][0]["content"]
    _, backend, _ = await run("selfcheck", {"selfcheck": "SUPPORTS"}, methods={"selfcheck": {"shots": 3}})
    prompt = backend.calls[0][1][0]["content"]
    assert "Examples:" in prompt and "Amazon" in prompt and "Lima" in prompt


@pytest.mark.parametrize(("answers", "label", "share"), [(["No", "No", "Yes"], Label.REFUTES, "0.67"),
                                                         (["Yes", "No", "Yes"], Label.SUPPORTS, "0.33")])
async def test_selfcheck_sample_consistency(answers: list[str], label: Label, share: str) -> None:
    def sample(call: CallInfo, messages: list[Message]) -> str:
        return f"Passage number {call.agent}."

    def check(call: CallInfo, messages: list[Message]) -> str:
        return answers[int(call.agent.removeprefix("check-")) - 1]

    verdict, backend, _ = await run("selfcheck", {"selfcheck_sample": sample, "selfcheck_consistency": check},
                                    methods={"selfcheck": {"samples": 3}})
    assert verdict.label == label and verdict.decided_by == "consistency"
    assert f"inconsistency {share}" in verdict.explanation and verdict.unparsed_turns == 0
    samples = [m for c, m in backend.calls if c.prompt == "selfcheck_sample"]
    assert len({m[0]["content"] for m in samples}) == 3  # each draft asked apart (cache, fixed seeds)
    assert [len(r.turns) for r in verdict.rounds] == [3, 3]


async def test_selfcheck_leaves_unreadable_answers_out_and_counts_them() -> None:
    replies = {"selfcheck_sample": "A passage.", "selfcheck_consistency": ["No", "maybe", "Yes"],
               "selfcheck_consistency:reask": "?"}
    verdict, _, _ = await run("selfcheck", replies, methods={"selfcheck": {"samples": 3}})
    assert verdict.unparsed_turns == 1 and "1 unreadable" in verdict.explanation
    none = {"selfcheck_sample": "A passage.", "selfcheck_consistency": "maybe", "selfcheck_consistency:reask": "?"}
    verdict, _, _ = await run("selfcheck", none, methods={"selfcheck": {"samples": 2}})
    assert verdict.label is None and verdict.decided_by == "unparsed"


def factool_replies(claims: list[str], verdicts: dict[str, Any]) -> dict[str, Any]:
    def verify(call: CallInfo, messages: list[Message]) -> str:
        claim = messages[0]["content"].split("Claim: ", 1)[1].split("\n", 1)[0]
        value = verdicts[claim]
        return value if isinstance(value, str) else json.dumps({"reasoning": f"about {claim}", "factual": value})

    def queries(call: CallInfo, messages: list[Message]) -> str:
        claim = messages[0]["content"].split("Claim: ", 1)[1].split("\n", 1)[0]
        return json.dumps({"queries": [f"{claim} one", f"{claim} two"]})

    return {"claims_extract": json.dumps({"claims": claims}), "factool_queries": queries,
            "factool_verify": verify, "factool_verify:reask": "still not JSON"}


async def test_factool_one_false_claim_refutes_and_searches_each_query() -> None:
    # Both claims say only what the checked text says: extraction keeps grounded claims only, and since 305914f
    # a claim's predicate must be the text's too ("Paris is a city." is dropped: the text never says "city").
    replies = factool_replies(["Paris is the capital.", "Paris is in France."],
                              {"Paris is the capital.": True, "Paris is in France.": False})
    verdict, backend, tools = await run("factool", replies)
    assert verdict.label == Label.REFUTES and verdict.decided_by == "any-false"
    turns = verdict.rounds[0].turns
    assert [t.label for t in turns] == [Label.SUPPORTS, Label.REFUTES] and turns[0].evidence
    # Each turn keeps the claim it checked, for the page's card title.
    assert [t.claim for t in turns] == ["Paris is the capital.", "Paris is in France."]
    assert sorted(tools["search"].queries) == sorted(["Paris is the capital. one", "Paris is the capital. two",
                                                      "Paris is in France. one", "Paris is in France. two"])
    assert [c.prompt for c, _ in backend.calls].count("factool_verify") == 2


async def test_factool_unreadable_verdict_is_unparsed_unless_another_claim_is_false() -> None:
    a, b = "Paris is the capital.", "Paris is in France."
    replies = factool_replies([a, b], {a: True, b: "no json"})
    verdict, _, _ = await run("factool", replies)
    assert verdict.label is None and verdict.decided_by == "unparsed" and verdict.unparsed_turns == 1
    replies = factool_replies([a, b], {a: False, b: "no json"})
    verdict, _, _ = await run("factool", replies)
    assert verdict.label == Label.REFUTES


async def test_factool_checks_the_input_itself_when_extraction_fails_or_is_off() -> None:
    replies = factool_replies([], {CLAIM: True})
    replies["claims_extract"] = "not json"
    replies["claims_extract:reask"] = "still not json"
    verdict, _, _ = await run("factool", replies)
    assert verdict.label == Label.SUPPORTS and "extraction could not be read" in verdict.explanation
    assert verdict.rounds[0].turns[0].claim == CLAIM
    verdict, backend, _ = await run("factool", factool_replies([], {CLAIM: True}),
                                    methods={"factool": {"decompose": False}})
    assert verdict.label == Label.SUPPORTS and "claims_extract" not in [c.prompt for c, _ in backend.calls]


@pytest.mark.parametrize(("text", "label"), [("Paris is the capital of France.", Label.SUPPORTS),
                                             ("Rain fell on Lyon in May.", Label.REFUTES)])
async def test_wecheck_stand_in_thresholds_similarity_without_any_llm_call(text: str, label: Label) -> None:
    tools = {"search": StaticTool("local", [Document(id="d", title="", text=text)])}
    resources, backend, _ = resources_for(by_prompt({}), method="wecheck", tools=tools)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label == label and verdict.decided_by == "threshold"
    assert backend.calls == [] and verdict.usage.llm_calls == 0 and verdict.usage.tool_calls == 1
    score = verdict.rounds[0].turns[0].scores["entailment_stand_in"]
    assert score is not None and (score >= 0.5) == (label == Label.SUPPORTS)


async def test_wecheck_without_evidence_says_not_enough_info() -> None:
    resources, _, _ = resources_for(by_prompt({}), method="wecheck", tools={"search": StaticTool("local", [])})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label == Label.NOT_ENOUGH_INFO
    assert verdict.rounds[0].turns[0].score_errors == ["no evidence retrieved"]
