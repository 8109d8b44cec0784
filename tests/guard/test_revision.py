"""Nothing revised goes out unchecked: a ``rewrite`` revision is checked again at the tier
that refuted the claim before it is sent (one that repeats the refuted claim was sent as ``rewritten`` with
no footnote), and a correction is shown only when its quote supports it ("The Eiffel Tower is in Madrid."
was shown as grounded in a passage saying the tower stands in Paris)."""

from __future__ import annotations

import json

from factdebate.core.types import Label
from factdebate.guard_engine import GuardClaim
from factdebate.guard_engine.correct import restates, unsupported_words
from factdebate.guard_engine.policy import revise_instruction
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.prompts import render
from tests.guard.support import CLAIMS, REPLY, run_check, script

FAST = {"tier": "fast", "max_tier": "fast"}
REVISED = "Paris is the capital of France. The Eiffel Tower is in Paris."


def reviser_saying(text: str) -> object:
    async def revise(answer: str, claims: list[GuardClaim]) -> str:
        return text

    return revise


async def test_a_revision_that_repeats_the_refuted_claim_is_flagged_not_rewritten() -> None:
    result, _ = await run_check(script(), guard=FAST, policy="rewrite", reviser=reviser_saying(REPLY))
    assert result.action_taken == "flagged" and result.text.startswith(REPLY)
    assert "Fact check:" in result.text and CLAIMS[1] in result.text[len(REPLY):]
    assert result.action_reason is not None and result.action_reason.startswith("rewrite fell back to flag")
    assert "still states what the evidence contradicts" in result.action_reason and CLAIMS[1] in result.action_reason
    assert [c.label for c in result.revision_claims if c.claim == CLAIMS[1]] == ["REFUTES"]


async def test_the_operator_may_have_such_a_revision_blocked() -> None:
    result, _ = await run_check(script(), guard={**FAST, "rewrite_fallback": "block"}, policy="rewrite",
                                reviser=reviser_saying(REPLY))
    assert result.action_taken == "blocked" and result.text.startswith("This answer was withheld")
    assert result.action_reason is not None and result.action_reason.startswith("rewrite fell back to block")


async def test_a_revision_is_checked_at_the_tier_that_refuted_the_claim_and_then_sent() -> None:
    result, backend = await run_check(script(), guard=FAST, policy="rewrite", reviser=reviser_saying(REVISED))
    assert result.action_taken == "rewritten" and result.text == REVISED and result.action_reason is None
    assert result.revision_claims and all(c.label == "SUPPORTS" and c.tier == "fast" for c in result.revision_claims)
    checked = [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_fast"]
    assert any("Statement: The Eiffel Tower is in Paris." in prompt for prompt in checked)  # the revision's claim


async def test_a_revision_that_could_not_be_checked_is_not_sent() -> None:
    def fast(claim: str) -> str:  # the revision's new sentence gets no readable verdict
        if "Louvre" in claim:
            return "not json"
        label = "REFUTES" if "Rome" in claim else "SUPPORTS"
        return json.dumps({"label": label, "passage": 1, "quote": "The Eiffel Tower is a tower in Paris."})

    revised = "Paris is the capital of France. The Louvre has 35,000 works on show."
    result, _ = await run_check(script(fast=fast), guard=FAST, policy="rewrite", reviser=reviser_saying(revised))
    assert result.action_taken == "flagged" and result.text.startswith(REPLY)
    assert result.action_reason is not None and "could not be checked" in result.action_reason


async def test_a_correction_its_quote_contradicts_is_dropped_with_a_reason() -> None:
    result, _ = await run_check(script(correction="The Eiffel Tower is in Madrid."), guard=FAST, policy="flag")
    rome = result.claims[1]
    assert rome.label == "REFUTES" and rome.correction is None
    assert rome.correction_note is not None and "its quote does not say madrid" in rome.correction_note
    assert "Madrid" not in result.text  # not in the footnote either


async def test_a_correction_the_checker_finds_unsupported_by_its_quote_is_dropped() -> None:
    def fast(claim: str) -> str:  # every word of the correction is in the quote, but it says the opposite
        label = "REFUTES" if "Rome" in claim or " not " in claim else "SUPPORTS"
        return json.dumps({"label": label, "passage": 1, "quote": "The Eiffel Tower is a tower in Paris."})

    result, backend = await run_check(script(fast=fast, correction="The Eiffel Tower is not in Paris."), guard=FAST)
    rome = result.claims[1]
    assert rome.correction is None and rome.correction_note is not None
    assert "the checker found it REFUTES by its quote" in rome.correction_note
    verify = [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_fast:correction"]
    (prompt,) = verify  # the correction decided over its quote alone, as given evidence
    assert "Statement: The Eiffel Tower is not in Paris." in prompt and "[2]" not in prompt
    assert "The Eiffel Tower is a tower in Paris." in prompt


async def test_a_correction_that_repeats_the_refuted_claim_is_not_shown() -> None:
    # As the offline checker "corrected" the Aztec claim: the refuted sentence word for word, which its own check
    # then called SUPPORTS.
    result, _ = await run_check(script(correction="The Eiffel Tower is in Rome."), guard=FAST, policy="flag")
    rome = result.claims[1]
    assert rome.label == "REFUTES" and rome.correction is None
    assert rome.correction_note is not None and "it repeats the refuted claim" in rome.correction_note
    assert "Correction:" not in result.text


def test_a_correction_restates_its_claim_only_when_it_changes_nothing() -> None:
    aztec = "The Aztec Empire was established in the 14th century."
    assert restates(aztec, aztec) and restates("the aztec empire was established in the 14th century", aztec)
    # in value: the same numbers written otherwise, a preposition swapped, the words in another order
    assert restates("The Aztec Empire was established during the fourteenth century.", aztec)
    assert restates("In the 14th century, the Aztec Empire was established.", aztec)
    assert not restates("The Aztec Empire was established in 1427.", aztec)
    assert not restates("The Aztec Empire was established in the fifteenth century.", aztec)
    assert not restates("The Eiffel Tower is in Paris.", "The Eiffel Tower is in Rome and Paris.")  # one part left
    # a negation changes what the claim says
    assert not restates("The Eiffel Tower is not in Rome.", "The Eiffel Tower is in Rome.")
    assert not restates("The Great Wall isn't visible from space.", "The Great Wall is visible from space.")


def _stance_on_correction(answer: str) -> object:
    """:func:`script`'s checker whose stance step answers ``answer`` on the correction "The Eiffel Tower is in
    Paris." (its checker, asked over the quote alone, finds it SUPPORTED)."""
    inner = script()

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        text = messages[0]["content"]
        if call.prompt.startswith("guard_stance") and "Statement: The Eiffel Tower is in Paris." in text:
            return answer
        return str(inner(call, messages, params))

    return respond


async def test_a_correction_its_quote_does_not_state_is_dropped_though_the_checker_supports_it() -> None:
    result, backend = await run_check(_stance_on_correction("neither"), guard=FAST, policy="flag")
    rome = result.claims[1]
    assert rome.label == "REFUTES" and rome.correction is None
    assert rome.correction_note == ('the correction "The Eiffel Tower is in Paris." was not shown: the checker found '
                                    "it SUPPORTED, but the stance step on its quote answered neither, not states")
    assert "Correction:" not in result.text and "is contradicted by the evidence" in result.text
    asked = [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_stance"]
    assert any('Passage (Eiffel Tower): "The Eiffel Tower is a tower in Paris."' in p
               and "Statement: The Eiffel Tower is in Paris." in p for p in asked)  # the correction, on its quote


async def test_without_the_stance_step_the_checkers_supports_keeps_the_correction() -> None:
    result, _ = await run_check(_stance_on_correction("neither"), guard={**FAST, "stance_step": False},
                                policy="flag")
    rome = result.claims[1]
    assert rome.correction is not None and rome.correction.text == "The Eiffel Tower is in Paris."
    assert "Correction: The Eiffel Tower is in Paris." in result.text


async def test_a_correction_its_quote_supports_is_shown() -> None:
    result, _ = await run_check(script(), guard=FAST)
    rome = result.claims[1]
    assert rome.correction is not None and rome.correction.text == "The Eiffel Tower is in Paris."
    assert rome.correction_note is None


def test_only_the_names_and_numbers_a_correction_adds_must_be_in_the_quote() -> None:
    claim = "The Eiffel Tower is in Berlin and opened in 1901."
    assert unsupported_words("The Eiffel Tower is in Madrid.", claim, "It stands in Paris.") == ["madrid"]
    assert unsupported_words("The Eiffel Tower is in Paris.", claim, "It stands in Paris.") == []
    assert unsupported_words("The Eiffel Tower opened in 1889.", claim, "It opened in 1,889 days.") == []
    assert unsupported_words("The Eiffel Tower opened in 1887.", claim, "It opened in 1889.") == ["1887"]


def test_the_revise_instruction_says_the_evidence_is_data_not_instructions() -> None:
    claim = GuardClaim(index=0, claim="The Eiffel Tower is in Rome.", label=Label.REFUTES, status="checked")
    assert render("evidence_is_data").text in revise_instruction([claim])


async def test_an_in_process_model_s_correction_needs_a_quote_that_writes_it() -> None:
    from factdebate.guard_engine.correct import supported_by_quote
    from factdebate.guard_engine.types import ClaimEvidence
    from factdebate.llm.model import LLM
    from factdebate.llm.scripted import ScriptedBackend

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("guard_stance"):
            return "states"
        return json.dumps({"label": "SUPPORTS", "passage": 1, "quote": "The Eiffel Tower is a tower in Paris."})

    evidence = ClaimEvidence(title="Eiffel Tower", quote="The Eiffel Tower is a tower in Paris.")
    offline = "llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    for sentence, name, kept in (("The Eiffel Tower is in Paris.", offline, True),
                                 ("The Eiffel Tower opened in Paris in 1889.", offline, False),
                                 ("The Eiffel Tower opened in Paris in 1889.", "openai:gpt-4o", True)):
        llm = LLM(ScriptedBackend(respond, name=name), role="debater")
        ok, why = await supported_by_quote(sentence, evidence, llm)
        assert ok == kept, (sentence, name, why)
        assert kept or "does not write its names, numbers" in why
