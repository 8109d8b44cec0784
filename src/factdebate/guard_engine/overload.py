"""A reply the service had no room to check (``guard.on_overload: pass``): passed at once as one unchecked
claim, ``degraded``, the policy applied as to any unchecked claim. No model is asked."""

from __future__ import annotations

from factdebate.guard_engine.policy import apply_policy_unrevised
from factdebate.guard_engine.types import GuardClaim, GuardResult, ResolvedGuardOptions, Span

OVERLOADED = "overloaded"


def overloaded_reason(why: str) -> str:
    return f"{OVERLOADED}: {why}; the reply was passed without a check (guard.on_overload: pass)"


def overloaded_result(text: str, options: ResolvedGuardOptions, why: str,
                      passed: list[str] | None = None) -> GuardResult:
    """``text`` passed unchecked because the service was overloaded (``why``: the estimate that shed it)."""
    reason = overloaded_reason(why)
    start = len(text) - len(text.lstrip())
    words = " ".join(text.split())
    claims = [GuardClaim(index=0, claim=words if len(words) <= 300 else words[:299] + "\u2026",
                         span=Span(start=start, end=len(text.rstrip())), status="unchecked", reason=reason)
              ] if words else []
    result = GuardResult(claims=claims, degraded=True, degraded_reason=reason, passed_through=list(passed or []),
                         policy=options.policy, on_unchecked=options.on_unchecked,
                         on_not_enough_info=options.on_not_enough_info, answer_format=options.answer_format,
                         tier=options.tier, deadline_s=options.deadline_s, original_text=text, text=text)
    return apply_policy_unrevised(result)
