"""The fast tier's one call per reply window (guard/window_call.py): a reply's claims and their fast verdicts
asked together, a claim whose item is unusable asked alone, and the same verdicts either way: over a reply of
six claims and over the conformance suite's fault scenarios, with doubles that answer both ways."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from factdebate.guard import GuardResult, window_call
from tests.guard.conformance.scenarios import SCENARIOS, Checker, Scenario
from tests.guard.support import run_check, script

SIX = ("Paris is the capital of France. The Eiffel Tower is in Rome. The Louvre is in Paris. "
       "The Seine flows through Paris. Notre-Dame is in Paris. The Arc de Triomphe is in Paris.")
SIX_CLAIMS = [s.strip() + "." for s in SIX.split(".") if s.strip()]


@pytest.fixture
def one_call() -> Iterator[None]:
    token = window_call.ENABLED.set(True)
    yield
    window_call.ENABLED.reset(token)


def _verdicts(result: GuardResult) -> list[tuple[str, str, str | None]]:
    return [(c.claim, c.status, c.label.value if c.label else None) for c in result.claims]


async def _both(respond: Any, text: str, **options: Any) -> tuple[tuple[GuardResult, Any], tuple[GuardResult, Any]]:
    apart = await run_check(respond, text, **options)
    token = window_call.ENABLED.set(True)
    try:
        together = await run_check(respond, text, **options)
    finally:
        window_call.ENABLED.reset(token)
    return apart, together


async def test_six_claims_at_the_fast_tier_are_one_call_and_a_correction() -> None:
    (apart, _), (together, backend) = await _both(script(claims=SIX_CLAIMS), SIX, tier="fast", max_tier="fast")
    # an extraction, six verdicts, a correction and its check over its quote
    assert apart.usage.model_calls == 9
    assert together.usage.model_calls == 3  # the window's call, the correction and its check
    assert _verdicts(together) == _verdicts(apart)
    assert [c.label.value for c in together.claims if c.label] == ["SUPPORTS", "REFUTES"] + ["SUPPORTS"] * 4
    assert [e.quote for c in together.claims for e in c.evidence[:1]] == \
        [e.quote for c in apart.claims for e in c.evidence[:1]]
    assert together.claims[1].correction is not None
    assert [info.prompt for info, _ in backend.calls] == ["guard_window", "guard_correct", "guard_fast:correction"]


async def test_a_claim_whose_item_is_unusable_is_asked_alone(one_call: None) -> None:
    def fast(claim: str) -> str:  # the verdicts' double cannot say one claim's label
        return "no idea" if "Rome" in claim else json.dumps({"label": "SUPPORTS", "passage": 0, "quote": ""})

    result, backend = await run_check(script(fast=fast), tier="fast", max_tier="fast")
    asked = [info.prompt for info, _ in backend.calls]
    assert asked == ["guard_window", "guard_fast"]  # the Rome claim alone, as the fast tier asks any claim
    assert [c.status for c in result.claims] == ["checked", "unchecked"]


async def test_an_unreadable_window_answer_falls_back_to_the_extraction(one_call: None) -> None:
    base = script()

    def respond(call: Any, messages: Any, params: Any) -> str:
        return "Sure!" if call.prompt == "guard_window" else base(call, messages, params)

    result, backend = await run_check(respond, tier="fast", max_tier="fast")
    asked = [info.prompt for info, _ in backend.calls]
    assert asked[:2] == ["guard_window", "claims_extract"]
    assert [c.label.value for c in result.claims if c.label] == ["SUPPORTS", "REFUTES"]


async def test_a_claim_that_climbs_is_asked_at_the_next_tier(one_call: None) -> None:
    result, backend = await run_check(script(), tier="fast", max_tier="standard", method="single")
    asked = [info.prompt for info, _ in backend.calls]
    assert asked[0] == "guard_window" and "claims_extract" not in asked and "guard_fast" not in asked
    assert result.claims[1].tier == "standard" and result.claims[1].label is not None


def _comparable(scenario: Scenario) -> bool:
    """The scenarios a whole reply's check can run alone: no upstream fault, no deadline deciding."""
    return not scenario.proxy_only and not scenario.timing and not scenario.faults.slow and scenario.n == 1


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if _comparable(s)], ids=lambda s: s.name)
async def test_the_conformance_scenarios_get_the_same_verdicts_either_way(scenario: Scenario) -> None:
    options = {k: v for k, v in scenario.options.items() if k in ("policy", "on_unchecked", "on_not_enough_info")}
    results = []
    for enabled in (False, True):
        checker = Checker()
        checker.faults = scenario.faults
        token = window_call.ENABLED.set(enabled)
        try:
            result, _ = await run_check(None, scenario.reply, backend=checker, tier="fast", max_tier="fast",
                                        **options)
        finally:
            window_call.ENABLED.reset(token)
        results.append((_verdicts(result), result.label, result.degraded))
    assert results[0] == results[1]
