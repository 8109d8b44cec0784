"""An answer the caller asked for as JSON (``answer_format: json``, a chat request's ``response_format``) stays
JSON under every policy that would add to it or cut it: flag marks it in ``action_taken`` alone, hold refuses
one that states a refuted claim whole, a refusal is a JSON error object, rewrite sends no revision that is not
JSON of the answer's shape, and a stream held back and cut is a JSON error object too."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from factdebate.core.types import Label, Span
from factdebate.guard_engine.call import kept_chars
from factdebate.guard_engine.policy import (
    HOLD_REFUSES_JSON,
    apply_policy,
    apply_policy_unrevised,
    refusal,
    same_shape,
    stream_mode,
)
from factdebate.guard_engine.stream_policy import guard_stream
from factdebate.guard_engine.types import GuardClaim, GuardOptions, GuardResult
from factdebate.settings.model import Settings
from tests.guard.support import PARIS_DOC, script
from tests.helpers import StaticTool, resources_for

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
    error = json.loads(done.text)["error"]  # the refusal as a JSON error object: the client's parse reads it
    assert error == {"type": "answer_withheld", "message": refusal(done)}
    assert error["message"].startswith("This answer was withheld")
    assert "The Eiffel Tower is in Rome." in error["message"]
    as_text = apply_policy_unrevised(result("block", answer_format="text"))
    assert as_text.text == refusal(as_text)  # the same refusal, as text, for an answer asked for as text
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
    assert blocked.action_taken == "blocked" and json.loads(blocked.text)["error"]["type"] == "answer_withheld"
    rewritten = await apply_policy(result("rewrite"), as_json, recheck)
    assert rewritten.action_taken == "rewritten" and rewritten.text == REVISED and checked == [REVISED]


def test_the_answer_format_is_the_faces_to_set_and_reaches_the_result_options() -> None:
    settings = Settings()
    assert GuardOptions().resolve(settings).answer_format == "text"
    assert GuardOptions().with_answer_format("json").resolve(settings).answer_format == "json"
    with pytest.raises(ValueError, match="answer_format"):  # never a caller's option
        GuardOptions.model_validate({"answer_format": "json"})


async def test_rewrite_sends_no_revision_of_another_shape() -> None:
    """A revision that parses but drops a key (or turns a string into a number) would fail the caller's schema."""
    async def recheck(text: str, claims: list[GuardClaim]) -> GuardResult:
        return GuardResult(original_text=text, text=text)

    async def dropped(answer: str, claims: list[GuardClaim]) -> str:
        return '{"capital": "Paris is the capital of France."}'

    done = await apply_policy(result("rewrite"), dropped, recheck)
    assert done.action_taken == "flagged" and done.text == ANSWER
    assert "the revision does not keep the answer's shape" in (done.action_reason or "")


@pytest.mark.parametrize(("before", "after", "same"), [
    ({"a": "x", "b": 1}, {"a": "y", "b": 2.5}, True),  # other values, the same kinds
    ({"a": "x"}, {"a": "x", "b": "y"}, False),  # a key added
    ({"a": "x", "b": "y"}, {"a": "x"}, False),  # a key dropped
    ({"a": "x"}, {"a": None}, False),  # a value of another kind
    ({"facts": ["x", "y", "z"]}, {"facts": ["x", "z"]}, True),  # a list loses its false item
    ({"facts": [{"t": "x"}]}, {"facts": [{"t": "y"}, {"t": "z"}]}, True),
    ({"facts": [{"t": "x"}]}, {"facts": [{"u": "y"}]}, False),
    ({"facts": [1, "x"]}, {"facts": ["y", 2]}, True),  # each item of the shape of one of the answer's
    ({"facts": []}, {"facts": ["x"]}, True),  # nothing to hold an item to
    (True, 1, False),  # a boolean is no number
    ([{"a": 1}], {"a": 1}, False),
])
def test_the_shape_a_revision_keeps(before: object, after: object, same: bool) -> None:
    assert same_shape(before, after) is same


async def test_a_json_answer_held_back_and_cut_is_a_json_error_that_says_so() -> None:
    """Past what the guard keeps of a stream, a policy that holds the answer back shows what it kept and a
    notice: of a JSON answer that is no JSON, so the client gets a JSON error object instead."""
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(script(claims=["Paris is the capital of France."]), method="single", tools=tools,
                                    guard={"tier": "fast", "max_tier": "fast", "max_message_chars": 100})
    answer = json.dumps({"capital": "Paris is the capital of France.", "more": ["More words follow here."] * 400})

    async def deltas() -> AsyncIterator[str]:
        for at in range(0, len(answer), 50):
            yield answer[at:at + 50]

    settings = resources.settings
    assert isinstance(settings, Settings)  # typed as the methods' protocol; what resources_for builds
    async with resources:
        keep = kept_chars(settings)
        got = [out async for out in guard_stream(deltas(), settings, resources,
                                                 options=GuardOptions(policy="block").with_answer_format("json"))]
    shown = "".join(out.text for out in got if out.kind == "text")
    assert json.loads(shown) == {"error": {"type": "answer_cut", "message": "The answer was cut: it went on for "
                                           f"{len(answer) - keep} characters more than the guard keeps of a "
                                           "streamed answer."}}
    result = got[-1].result
    assert result is not None and result.text == shown and result.answer_format == "json"
