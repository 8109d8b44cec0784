"""An answer the caller asked for as JSON (``answer_format: json``, a chat request's ``response_format``) stays
JSON under every policy that would add to it or cut it: flag marks it in ``action_taken`` alone, hold refuses
one that states a refuted claim whole, rewrite sends no revision that is not JSON."""

from __future__ import annotations

import json

import pytest

from factdebate.core.types import Label, Span
from factdebate.guard_engine.policy import HOLD_REFUSES_JSON, apply_policy, apply_policy_unrevised, stream_mode
from factdebate.guard_engine.types import GuardClaim, GuardOptions, GuardResult
from factdebate.settings.model import Settings

ANSWER = '{"capital": "Paris is the capital of France.", "tower": "The Eiffel Tower is in Rome."}'
REVISED = '{"capital": "Paris is the capital of France.", "tower": "The Eiffel Tower is in Paris."}'


def result(policy: str, tower: Label = Label.REFUTES, answer_format: str = "json") -> GuardResult:
    claims = [GuardClaim(index=0, claim="Paris is the capital of France.", span=Span(start=12, end=43),
                         status="checked", label=Label.SUPPORTS, tier="fast"),
              GuardClaim(index=1, claim="The Eiffel Tower is in Rome.", span=Span(start=55, end=83),
                         status="checked", label=tower, tier="fast")]
    return GuardResult(label=tower, claims=claims, policy=policy, answer_format=answer_format,  # type: ignore[arg-type]
                       original_text=ANSWER, text=ANSWER)


# (hold with a refuted claim refuses a JSON answer: below)
@pytest.mark.parametrize(("policy", "tower"), [("flag", Label.REFUTES), ("flag", Label.NOT_ENOUGH_INFO),
                                               ("hold", Label.NOT_ENOUGH_INFO)])
def test_flag_marks_a_json_answer_and_leaves_its_text(policy: str, tower: Label) -> None:
    done = apply_policy_unrevised(result(policy, tower))
    assert done.action_taken == "flagged" and done.text == ANSWER and json.loads(done.text)["tower"]
    # the same answer as text gets the footnote
    assert apply_policy_unrevised(result(policy, tower, "text")).text.startswith(ANSWER + "\n\n---\nFact check:")


def test_a_json_answer_with_nothing_to_list_is_as_it_came() -> None:
    done = apply_policy_unrevised(result("flag", Label.SUPPORTS))
    assert done.action_taken == "annotated" and done.text == ANSWER


def test_hold_refuses_a_json_answer_that_states_a_refuted_claim_and_its_stream_waits_whole() -> None:
    done = apply_policy_unrevised(result("hold"))
    assert done.action_taken == "blocked" and done.action_reason == HOLD_REFUSES_JSON
    assert done.text.startswith("This answer was withheld") and "The Eiffel Tower is in Rome." in done.text
    assert stream_mode("hold", "pass", "flag", "json") == "whole"
    assert stream_mode("hold", "pass", "flag", "text") == "hold_back"
    assert stream_mode("flag", "pass", "flag", "json") == "footnote"


async def test_rewrite_sends_no_revision_that_is_not_json() -> None:
    checked: list[str] = []

    async def recheck(text: str, claims: list[GuardClaim]) -> GuardResult:
        checked.append(text)
        return GuardResult(original_text=text, text=text)

    async def prose(answer: str, claims: list[GuardClaim]) -> str:
        return "The Eiffel Tower is in Paris."

    async def as_json(answer: str, claims: list[GuardClaim]) -> str:
        return REVISED

    done = await apply_policy(result("rewrite"), prose, recheck)
    assert done.action_taken == "flagged" and done.text == ANSWER and checked == []
    assert "the revision is not JSON" in (done.action_reason or "")
    blocked = await apply_policy(result("rewrite"), prose, recheck, fallback="block")
    assert blocked.action_taken == "blocked" and blocked.text.startswith("This answer was withheld")
    rewritten = await apply_policy(result("rewrite"), as_json, recheck)
    assert rewritten.action_taken == "rewritten" and rewritten.text == REVISED and checked == [REVISED]


def test_the_answer_format_is_the_faces_to_set_and_reaches_the_result_options() -> None:
    settings = Settings()
    assert GuardOptions().resolve(settings).answer_format == "text"
    assert GuardOptions().with_answer_format("json").resolve(settings).answer_format == "json"
    with pytest.raises(ValueError, match="answer_format"):  # never a caller's option
        GuardOptions.model_validate({"answer_format": "json"})
