"""A claim that ends NOT ENOUGH INFO is visible: under flag and hold a footnote says it could not
be confirmed; the operator's guard.on_not_enough_info passes it (verdicts only), flags it (the default) or
blocks the reply."""

from __future__ import annotations

import pytest

from factdebate.core.types import Label, Span
from factdebate.guard_engine.policy import apply_policy_unrevised, stream_mode
from factdebate.guard_engine.types import GuardClaim, GuardResult

REPLY = "Paris is the capital of France. The Louvre has 9 doors."


def result(policy: str, on_not_enough_info: str) -> GuardResult:
    claims = [GuardClaim(index=0, claim="Paris is the capital of France.", span=Span(start=0, end=31),
                         status="checked", label=Label.SUPPORTS, tier="fast"),
              GuardClaim(index=1, claim="The Louvre has 9 doors.", span=Span(start=32, end=55), status="checked",
                         label=Label.NOT_ENOUGH_INFO, tier="fast")]
    return GuardResult(label=Label.NOT_ENOUGH_INFO, claims=claims, policy=policy,  # type: ignore[arg-type]
                       on_not_enough_info=on_not_enough_info,  # type: ignore[arg-type]
                       original_text=REPLY, text=REPLY)


@pytest.mark.parametrize("policy", ["flag", "hold"])
def test_flag_footnotes_a_claim_the_evidence_could_not_confirm(policy: str) -> None:
    done = apply_policy_unrevised(result(policy, "flag"))
    assert done.action_taken == "flagged" and done.text.startswith(REPLY)
    footnote = done.text[len(REPLY):]
    assert '"The Louvre has 9 doors." could not be confirmed' in footnote and "Paris" not in footnote


def test_pass_leaves_it_to_the_verdicts_and_annotate_never_footnotes() -> None:
    assert apply_policy_unrevised(result("flag", "pass")).text == REPLY
    assert apply_policy_unrevised(result("annotate", "flag")).text == REPLY


def test_block_refuses_the_reply_and_its_stream_waits_whole() -> None:
    done = apply_policy_unrevised(result("annotate", "block"))
    assert done.action_taken == "blocked" and REPLY not in done.text
    assert "could not confirm" in done.text and "The Louvre has 9 doors." in done.text
    assert stream_mode("flag", "pass", "block") == "whole" and stream_mode("flag", "pass", "flag") == "footnote"
