"""check_text with scripted models: the gate, spans, tiers and escalation, the deadline, given evidence."""

from __future__ import annotations

import json
from typing import Any

import pytest

from factdebate.core.types import Document, Label
from factdebate.llm.calls import CallInfo
from tests.guard.support import CLAIMS, REPLY, SlowBackend, run_check, script

FAST_ONLY = {"tier": "fast", "max_tier": "fast"}
# Each claim's own fast call, as a claim is asked with the window call off or when its window's item about it
# is unusable (tests/guard/test_window_call.py): what one claim's deadline or fault does is seen there.
APART = {**FAST_ONLY, "window_call": False}


async def test_spans_slice_the_reply_to_each_claims_words_and_the_gate_says_what_it_left_out() -> None:
    result, backend = await run_check(script(), tier="fast", guard=FAST_ONLY)
    assert [c.claim for c in result.claims] == CLAIMS
    for claim in result.claims:
        assert claim.span is not None and claim.span_note is None
        assert REPLY[claim.span.start:claim.span.end] == claim.claim
    reasons = {s.text: s.reason for s in result.skipped}
    assert reasons == {"Hi!": "greeting", "Great question.": "greeting",
                       "I think Paris is lovely in spring.": "opinion",
                       "Visit the Louvre early to avoid queues.": "instruction", "Would you like more?": "question"}
    for skipped in result.skipped:
        assert REPLY[skipped.span.start:skipped.span.end] == skipped.text
    # Only the check-worthy sentences reach the extractor (the fast tier's window call).
    extract = next(m for info, m in backend.calls if info.prompt == "guard_window")[0]["content"]
    answer = extract.split("\nAnswer:\n")[-1]
    assert "Paris is the capital of France." in answer and "Hi!" not in answer and "lovely" not in answer
    assert [c.label for c in result.claims] == [Label.SUPPORTS, Label.REFUTES]
    assert all(c.tier == "fast" and c.status == "checked" for c in result.claims)
    # the default policy, flag: the reply as it came, then the footnote on the refuted claim
    assert result.label == Label.REFUTES and result.action_taken == "flagged" and result.policy == "flag"
    assert result.text.startswith(REPLY) and CLAIMS[1] in result.text[len(REPLY):]
    assert result.usage.model_calls == len(backend.calls) and result.usage.tool_calls == 2


async def test_a_reworded_claim_gets_its_sentence_and_an_invented_one_no_span() -> None:
    # (An invented claim whose words the text holds: one whose predicate it lacks, "... are both large cities.",
    # is dropped by the grounding filter, issue 65.)
    claims = ["Rome is where the Eiffel Tower is.", "Paris and Rome are both capitals."]
    result, _ = await run_check(script(claims=claims), tier="fast", guard=FAST_ONLY)
    reworded, invented, *added = result.claims
    # The sentence no extracted claim covers is checked as the reply writes it.
    assert [c.claim for c in added] == ["Paris is the capital of France."]
    assert reworded.span is not None and reworded.span_note is not None and "approximate" in reworded.span_note
    assert REPLY[reworded.span.start:reworded.span.end] == "The Eiffel Tower is in Rome."
    assert invented.span is None and invented.span_note


async def test_a_claim_not_decided_within_the_deadline_is_unchecked_never_supported() -> None:
    respond = script()
    backend = SlowBackend(respond, {"Statement: Paris is the capital": 30.0})
    result, _ = await run_check(respond, backend=backend, tier="fast", deadline_s=0.5, guard=APART)
    slow, fast = result.claims
    assert slow.status == "unchecked" and slow.label is None and "deadline" in (slow.reason or "")
    assert result.deadline_missed  # typed: a program counts it without reading the reason's words
    assert fast.status == "checked" and fast.label == Label.REFUTES
    assert result.label == Label.REFUTES  # one refuted claim decides, whatever the other is
    assert result.usage.seconds < 5


async def test_an_unchecked_claim_makes_the_reply_unlabelled_and_on_unchecked_block_refuses_it() -> None:
    respond = script(claims=[CLAIMS[0]])
    backend = SlowBackend(respond, {"Statement: Paris is the capital": 30.0})
    text = REPLY.replace(" The Eiffel Tower is in Rome.", "")  # a reply whose one fact is the Paris claim
    result, _ = await run_check(respond, text, backend=backend, tier="fast", deadline_s=0.3, on_unchecked="block",
                                guard=APART)
    assert result.claims[0].status == "unchecked" and result.label is None
    assert result.action_taken == "blocked" and result.text.startswith("This answer was withheld")
    assert result.on_unchecked == "block" and result.original_text == text


@pytest.mark.parametrize("window_call", [True, False])
async def test_extraction_past_the_deadline_leaves_each_sentence_unchecked_said_why(window_call: bool) -> None:
    respond = script()
    # the window's call (claims and verdicts), or the extraction's
    backend = SlowBackend(respond, {"in one pass": 30.0, "Break the text below": 30.0})
    result, _ = await run_check(respond, backend=backend, tier="fast", deadline_s=0.3,
                                guard={"window_call": window_call})
    assert result.deadline_missed and not result.degraded
    # Each check-worthy sentence on its own, its span and the deadline as its reason; never SUPPORTS.
    assert [c.claim for c in result.claims] == ["Paris is the capital of France.", "The Eiffel Tower is in Rome."]
    for claim in result.claims:
        assert claim.status == "unchecked" and claim.label is None and claim.span is not None
        assert "deadline (0.3 s) ended before this sentence's claims were extracted" in (claim.reason or "")
    assert result.label is None and result.action_taken == "flagged" and result.text.startswith(REPLY)
    assert "could not be checked" in result.text[len(REPLY):]  # flag, the default, says so under the reply


async def test_an_unreadable_fast_reply_is_unchecked_and_counted_never_a_label() -> None:
    events: list[dict[str, Any]] = []
    result, _ = await run_check(script(fast=lambda claim: "SUPPORTS, definitely"), tier="fast",
                                guard=FAST_ONLY, events=events)
    assert all(c.status == "unchecked" and c.label is None for c in result.claims)
    assert all("fast tier" in (c.reason or "") for c in result.claims)
    assert result.label is None
    assert not result.deadline_missed  # unchecked, but not for the deadline


async def test_unsettled_claims_go_up_a_tier_and_record_the_deciding_one() -> None:
    runs: list[str] = []

    def debate(call: CallInfo, claim: str) -> str:
        runs.append(claim)
        # The standard tier's run (the first for each claim) cannot tell; the deep one supports.
        return "NOT ENOUGH INFO" if runs.count(claim) == 1 else "SUPPORTS"

    quote = "The Eiffel Tower is a tower in Paris."
    fast = {CLAIMS[0]: json.dumps({"label": "SUPPORTS", "passage": 1, "quote": quote}),
            CLAIMS[1]: json.dumps({"label": "NOT ENOUGH INFO", "passage": 0, "quote": ""})}
    result, _ = await run_check(script(fast=fast.__getitem__, debate=debate), tier="fast", method="single")
    settled, escalated = result.claims
    assert (settled.tier, settled.label, settled.decided_by) == ("fast", Label.SUPPORTS, "guard-fast")
    assert (escalated.tier, escalated.label) == ("deep", Label.SUPPORTS)
    assert runs.count(CLAIMS[1]) == 2 and CLAIMS[0] not in runs


async def test_escalation_stops_at_the_operators_max_tier() -> None:
    result, _ = await run_check(script(debate=lambda call, claim: "NOT ENOUGH INFO"), tier="fast",
                                method="single", guard={"tier": "fast", "max_tier": "standard"})
    assert result.claims[1].tier == "standard" and result.claims[1].label == Label.NOT_ENOUGH_INFO


async def test_a_lower_tiers_verdict_stands_when_the_deadline_cuts_the_higher_one() -> None:
    respond = script()
    backend = SlowBackend(respond, {"Claim: The Eiffel Tower is in Rome.": 30.0})
    result, _ = await run_check(respond, backend=backend, tier="fast", method="single", deadline_s=0.5)
    refuted = result.claims[1]
    assert refuted.status == "checked" and refuted.label == Label.REFUTES and refuted.tier == "fast"
    assert "deadline" in (refuted.reason or "")


async def test_an_unreadable_extraction_is_degraded_not_a_verdict() -> None:
    def respond(call: CallInfo, messages: Any, params: Any) -> str:  # the window's call and the extraction's
        unreadable = call.prompt.startswith(("claims_extract", "guard_window"))
        return "no JSON here" if unreadable else script()(call, messages, params)

    result, _ = await run_check(respond, tier="fast", guard=FAST_ONLY, on_unchecked="block")
    assert result.degraded and "could not be read" in (result.degraded_reason or "")
    assert result.label is None and result.action_taken == "blocked" and "could not be checked" in result.text


async def test_a_fault_in_one_claims_check_is_that_claims_error() -> None:
    from tests.guard.support import PARIS_DOC

    class Broken:
        name = "broken"

        async def search(self, query: str, k: int) -> list[Any]:
            if "Rome" in query:
                raise RuntimeError("index on fire")
            return [PARIS_DOC]

    from factdebate.guard_engine import GuardOptions, check_text
    from tests.helpers import BagOfWordsEncoder, resources_for

    resources, _, _ = resources_for(script(), method="single", guard=FAST_ONLY)
    from factdebate.run.build import build_resources

    broken = Broken()
    resources = build_resources(resources.settings, backends={"debater": resources.llm("debater").backend},
                                tool_factory=lambda kind: broken, encoder_factory=BagOfWordsEncoder)
    async with resources:
        result = await check_text(REPLY, resources.settings, resources, options=GuardOptions())
    fine, failed = result.claims
    assert fine.status == "checked" and failed.status == "error" and failed.label is None
    assert "index on fire" in (failed.reason or "")


async def test_a_check_whose_every_claim_failed_is_degraded_and_says_why() -> None:
    class Burning:
        name = "burning"

        async def search(self, query: str, k: int) -> list[Any]:
            raise RuntimeError("index on fire")

    from factdebate.guard_engine import GuardOptions, check_text
    from factdebate.run.build import build_resources
    from tests.helpers import BagOfWordsEncoder, resources_for

    resources, _, _ = resources_for(script(), method="single", guard=FAST_ONLY)
    resources = build_resources(resources.settings, backends={"debater": resources.llm("debater").backend},
                                tool_factory=lambda kind: Burning(), encoder_factory=BagOfWordsEncoder)
    async with resources:
        result = await check_text(REPLY, resources.settings, resources, options=GuardOptions(on_unchecked="block"))
    assert [c.status for c in result.claims] == ["error", "error"]
    assert result.degraded and result.label is None
    assert (result.degraded_reason or "").startswith("none of the 2 claim(s) could be checked: ")
    assert "index on fire" in (result.degraded_reason or "") and result.action_taken == "blocked"


async def test_a_long_or_unclean_question_is_a_hint_never_a_refusal() -> None:
    for question, hint in (("Tell me about Paris. " * 500, "Tell me about Paris."), ("bad \x00 question", None)):
        result, backend = await run_check(script(), tier="fast", guard=FAST_ONLY, question=question)
        assert result.claims and not result.degraded
        extract = next(m[0]["content"] for info, m in backend.calls if info.prompt == "guard_window")
        assert ("The answer replies to this question" in extract) == (hint is not None)


async def test_claims_beyond_the_extraction_limit_are_said_not_checked() -> None:
    result, _ = await run_check(script(), tier="fast", guard=FAST_ONLY, response={"max_claims": 2})
    assert any("response.max_claims" in note for note in result.passed_through)
    result, _ = await run_check(script(), tier="fast", guard=FAST_ONLY)
    assert result.passed_through == []


async def test_a_sentence_the_claim_cap_left_partly_checked_keeps_the_reply_from_supports() -> None:
    """The extractor split the first sentence in two and the cap kept only its 1889 claim; that
    claim's span in it counted the whole sentence as covered, so the reply read SUPPORTS with 1900 unchecked."""
    text = "The tower was built in 1889 and repainted in 1900. The tower is 330 m tall."
    claims = ["The tower is 330 m tall.", "The tower was built in 1889.", "The tower was repainted in 1900."]
    guide = Document(id="guide", title="Guide", text="The tower was built in 1889. The tower is 330 m tall.")
    result, _ = await run_check(script(claims=claims), text, tier="fast", guard=FAST_ONLY, response={"max_claims": 2},
                                docs=[guide])
    *checked, partly = result.claims
    assert [c.label for c in checked] == [Label.SUPPORTS, Label.SUPPORTS]
    assert (partly.claim, partly.status) == ("The tower was built in 1889 and repainted in 1900.", "unchecked")
    assert (partly.reason or "").startswith("only partly checked")
    assert result.label is None


async def test_a_correction_from_a_lower_tier_keeps_the_passage_it_quotes() -> None:
    """Fast refutes with a quote and a correction; the deep tier (``single``, which reads nothing) refutes too.
    The claim must still list the passage its correction rests on."""
    result, _ = await run_check(script(), tier="fast", method="single")
    refuted = result.claims[1]
    assert (refuted.tier, refuted.label) == ("deep", Label.REFUTES)
    assert refuted.correction is not None
    assert refuted.correction.quote_source in [e.quote for e in refuted.evidence]
