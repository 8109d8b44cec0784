"""Speculative team rounds: the next round's teams start while the judges deliberate; a kept round is the
round the plain protocol would have run (same states, same statements, same trace), a dropped one leaves no
trace and its calls are counted apart, as ``speculative_calls`` (the rule Tool-MAD and MAD follow too:
``llm_calls`` is what the plain protocol spends)."""

from __future__ import annotations

from typing import Any

from factdebate.llm.calls import CallInfo
from factdebate.methods.dpd.method import DPD
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, resources_for
from tests.methods.dpd.test_method import Votes, dpd_script, states_by_round, unanimous


async def run(votes: Votes, **dpd: Any) -> tuple[Any, list[dict[str, Any]], list[tuple[CallInfo, str]]]:
    seen: list[tuple[CallInfo, str]] = []
    resources, _, _ = resources_for(dpd_script(votes, seen), method="dpd", methods={"dpd": dpd}, latency=0.01)
    events: list[dict[str, Any]] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    return verdict, events, seen


def shown(events: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(e["agent"], e["round"]) for e in events if e["event"] == "answer"]


async def test_a_round_whose_guess_holds_is_the_plain_protocols_round() -> None:
    plain, plain_events, _ = await run(unanimous(), transition="always-trust", min_rounds=2, max_rounds=2)
    fast, fast_events, _ = await run(unanimous(), transition="always-trust", min_rounds=2, max_rounds=2,
                                     speculate=True)
    assert "speculative rounds: 2 kept, 0 dropped" in fast.explanation
    assert fast.label == plain.label and len(fast.rounds) == len(plain.rounds) == 4
    assert [[t.response for t in r.turns] for r in fast.rounds] == [[t.response for t in r.turns] for r in plain.rounds]
    assert fast.usage.llm_calls == plain.usage.llm_calls  # nothing was spent in vain
    assert fast.usage.speculative_calls == fast.usage.speculative_tokens == 0
    assert sorted(shown(fast_events)) == sorted(shown(plain_events))


async def test_a_round_started_before_the_panel_stops_leaves_no_trace_and_is_counted_apart() -> None:
    plain, _, _ = await run(unanimous(), transition="always-trust", min_rounds=0, max_rounds=2)
    verdict, events, seen = await run(unanimous(), transition="always-trust", min_rounds=0, max_rounds=2,
                                      speculate=True)
    assert "speculative rounds: 0 kept, 1 dropped" in verdict.explanation
    assert [r.round for r in verdict.rounds] == [0, 1]
    assert all(e.get("round") in (0, 1, None) for e in events if e["event"] in ("turn_started", "answer", "panel"))
    low, high = DPD().call_bounds(resources_for(unanimous(), method="dpd", methods={"dpd": {
        "min_rounds": 0, "max_rounds": 2, "speculate": True}})[0].settings)
    assert low <= verdict.usage.llm_calls <= high and verdict.usage.llm_calls == plain.usage.llm_calls
    assert verdict.usage.speculative_calls > 0
    assert len(seen) <= verdict.usage.llm_calls + verdict.usage.speculative_calls
    # Tokens are counted for the speculative calls that finished before the panel stopped the round (the
    # scripted model answers after its latency, so ``seen`` holds exactly the finished calls); how many
    # finish is a race between the referees and the next round's teams, so either way is right.
    finished = len(seen) - verdict.usage.llm_calls
    assert (verdict.usage.speculative_tokens > 0) == (finished > 0)


async def test_a_wrong_state_guess_is_dropped_and_the_round_rerun() -> None:
    outcome = {1: "affirmative", 2: "negative", 3: "negative", 4: "negative"}
    votes: Votes = lambda judge, r: (outcome[r], 0.5)  # noqa: E731
    plain, _, plain_seen = await run(votes, min_rounds=3, max_rounds=3)
    fast, _, fast_seen = await run(votes, min_rounds=3, max_rounds=3, speculate=True)
    # Round 3 was guessed "skeptic" (round 1 found the claim true) but round 2 found it false: rerun in trust.
    assert "speculative rounds: 1 kept, 1 dropped" in fast.explanation
    kept = [[t.response for t in r.turns] for r in fast.rounds]
    assert kept == [[t.response for t in r.turns] for r in plain.rounds]
    assert states_by_round(plain_seen, "affirmative") == ["trust", "skeptic", "trust", "trust"]
    assert fast.explanation.splitlines()[:4] == plain.explanation.splitlines()[:4]
    assert fast.usage.llm_calls == plain.usage.llm_calls == len(plain_seen)
    # Calls of the dropped round that finished before the panel stopped it were seen and their tokens
    # counted; how many finish is a race, so only the accounting is asserted.
    assert fast.usage.speculative_calls > 0 and len(fast_seen) >= len(plain_seen)
    assert (fast.usage.speculative_tokens > 0) == (len(fast_seen) > len(plain_seen))
    by_role = fast.usage_by_role
    assert sum(u.speculative_calls for u in by_role.values()) == fast.usage.speculative_calls
