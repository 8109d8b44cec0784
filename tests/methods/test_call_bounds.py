"""Each method's ``call_bounds`` (what ``--dry-run`` prints) holds against scripted runs: a run where every
first reply is unreadable and every re-ask readable, with the debaters never agreeing, costs exactly the
upper bound; a run where everyone answers well at once costs at least the lower bound."""

from __future__ import annotations

import json

import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.base import all_methods, get_method
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for

BUILT_IN = ["cot", "dpd", "mad", "madke", "react", "single", "tool-mad", "vote"]
# Readable second answers, by prompt; first answers are unreadable by every parser.
REASKED = {
    "query_select": "[another query]",
    "faithfulness_statements": "1. One.\n2. Two.\n3. Three.",
    "faithfulness_verdicts": "1: yes\n2: yes\n3: yes",
    "relevance_questions": "1. q\n2. q\n3. q",
    "react_step": "Thought: look again.\nAction: search[capital]",
    "mad_moderator": "Preference: no\nReason: both sides are weak.",
    "dpd_queries": '{"support": "q1", "refute": "q2"}',
    # Confidence 0 everywhere: a tie with consensus 0, so the debate runs to its last round.
    "dpd_judge": '{"why": "even", "affirmative": {"evidence": 0.5, "logic": 0.5, "neutrality": 0.5, '
                 '"persuasiveness": 0.5}, "negative": {"evidence": 0.5, "logic": 0.5, "neutrality": 0.5, '
                 '"persuasiveness": 0.5}, "vote": "tie", "confidence": 0}',
}
# The DPD paper's baselines (wecheck makes no LLM call: tests/methods/baselines/test_dpd_baselines.py).
BUILT_IN += ["halueval-fewshot", "selfcheck", "factool"]
REASKED.update({
    "halueval_fewshot": "Yes",
    "claims_extract": json.dumps({"claims": [f"Claim {i}." for i in range(1, 6)]}),  # factool's max_claims
    "factool_queries": json.dumps({"queries": ["q1", "q2"]}),
    "factool_verify": json.dumps({"reasoning": "r", "factual": False}),
})
DISSENTERS = ("search", "debater-2", "negative")


def reask_everything(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    if call.prompt == "label_reask":  # debaters split, so the debate always runs to its judge
        return "REFUTES" if call.agent in DISSENTERS else "SUPPORTS"
    if call.prompt.endswith(":reask"):
        return REASKED[call.prompt.removesuffix(":reask")]
    return "Hmm." if call.prompt == "debate_answer" else ""  # an empty answer would not be scored at all


def test_every_built_in_method_declares_its_bounds() -> None:
    assert set(BUILT_IN) <= set(all_methods())


@pytest.mark.parametrize("method", BUILT_IN)
async def test_the_upper_bound_is_reached_when_everything_is_reasked(method: str) -> None:
    resources, backend, _ = resources_for(reask_everything, method=method, methods={"vote": {"samples": 5}})
    low, high = get_method(method).call_bounds(resources.settings)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.usage.llm_calls == len(backend.calls) == high and low <= high


@pytest.mark.parametrize("method", BUILT_IN)
async def test_the_lower_bound_holds_when_everyone_answers_at_once(method: str) -> None:
    resources, _, _ = resources_for(truthful, method=method, methods={"vote": {"samples": 5}})
    low, high = get_method(method).call_bounds(resources.settings)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert low <= verdict.usage.llm_calls <= high and verdict.label is not None
