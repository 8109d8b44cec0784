"""Speculative rounds in Tool-MAD change time and cost only: the verdict, its rounds and the trace are the
same as without speculation; discarded work is counted as ``usage.speculative_calls`` and never traced."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from factdebate.core.types import Verdict
from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.calls import CallInfo, current_call
from factdebate.methods.toolmad.method import ToolMAD, speculates
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.helpers import CLAIM, debate_script, resources_for

S, R = "SUPPORTS", "REFUTES"
VOLATILE = {"t", "run", "span_id", "parent_id", "seconds", "usage"}


def labels_until(consensus_round: int | None, rounds: int = 3) -> dict[tuple[str, int], str]:
    """rag always says SUPPORTS; search says REFUTES until ``consensus_round`` (None: never agrees)."""
    agree_from = consensus_round or rounds + 1
    return {(agent, r): S if agent == "rag" or r >= agree_from else R
            for agent in ("rag", "search") for r in range(1, rounds + 1)}


async def debate(consensus_round: int | None, speculate: bool, **options: Any) -> tuple[Verdict, list[dict]]:
    script = debate_script(labels_until(consensus_round), queries={("search", 2): "a new query"}, **options)
    resources, _, _ = resources_for(script, latency=0.01, methods={"tool-mad": {"speculate": speculate}})
    events: list[dict] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    return verdict, events


def visible(verdict: Verdict) -> dict[str, Any]:
    data = verdict.model_dump(mode="json", exclude={"usage", "usage_by_role", "usage_by_model"})
    data["config"]["methods"]["tool-mad"].pop("speculate")
    return data


def stable(events: list[dict]) -> list[tuple[Any, ...]]:
    """The trace without times and ids, in the order a reader meets rounds (inside a round, agents run
    concurrently in both modes, so their events may interleave differently)."""
    return sorted((e.get("round", 0), repr(sorted((k, repr(v)) for k, v in e.items() if k not in VOLATILE)))
                  for e in events)


@pytest.mark.parametrize("consensus_round", [1, 2, 3, None], ids=["round1", "round2", "round3", "judge"])
async def test_speculation_changes_nothing_visible(consensus_round: int | None) -> None:
    plain, plain_events = await debate(consensus_round, speculate=False)
    fast, fast_events = await debate(consensus_round, speculate=True)
    assert plain.decided_by == ("judge" if consensus_round is None else "consensus")
    assert visible(fast) == visible(plain)
    assert stable(fast_events) == stable(plain_events)
    # the calls that count are the same; discarded ones are counted apart
    assert fast.usage.llm_calls == plain.usage.llm_calls
    assert fast.usage.tool_calls == plain.usage.tool_calls
    for role, usage in plain.usage_by_role.items():
        assert fast.usage_by_role[role].llm_calls == usage.llm_calls
    for model, used in plain.usage_by_model.items():  # by model too, the discarded work apart and priced
        assert fast.usage_by_model[model].llm_calls == used.llm_calls
    speculated = list(fast.usage_by_model.values())
    assert sum(u.speculative_calls for u in speculated) == fast.usage.speculative_calls
    assert sum(u.speculative_prompt_tokens + u.speculative_completion_tokens
               for u in speculated) == fast.usage.speculative_tokens
    assert plain.usage.speculative_calls == 0
    if consensus_round in (1, 2):  # round r+1 was started, then discarded
        assert fast.usage.speculative_calls > 0 and fast.usage.speculative_tokens > 0
    else:  # the last round has nothing to speculate on; the judge path keeps every round
        assert fast.usage.speculative_calls == 0


async def test_rounds_appear_in_order_and_discarded_work_never() -> None:
    verdict, events = await debate(1, speculate=True)
    assert verdict.usage.speculative_calls > 0
    assert all(e.get("round", 1) <= 1 for e in events)
    assert not any(e["event"] == "span_begin" and e["name"] == "round 2" for e in events)
    _, events = await debate(None, speculate=True)
    ended = {e["round"]: i for i, e in enumerate(events) if e["event"] == "round"}
    for i, e in enumerate(events):
        if e["event"] in ("turn_started", "answer", "scored", "llm_call") and 1 < e["round"] <= 3:
            assert i > ended[e["round"] - 1], "an event of round r+1 came before round r ended"


async def test_an_error_in_a_discarded_round_does_not_surface(monkeypatch: pytest.MonkeyPatch) -> None:
    # No score note: a round ahead of an agreeing round would wait for its scores (the note reads them), and
    # here round 2's answers must run while round 1 is scored.
    resources, backend, _ = resources_for(debate_script(labels_until(1)), latency=0.01,
                                          methods={"tool-mad": {"speculate": True, "score_note": False}})
    scripted, failed = backend.complete, asyncio.Event()
    answers: list[str] = []

    async def complete(messages: list[Message], params: GenParams) -> Completion:
        call = current_call()
        if call.round == 2 and call.prompt.startswith("debate_answer"):
            answers.append(call.agent)
            if len(answers) == 2:
                failed.set()
            # Each fails only once both have started: the first failure would otherwise cancel its sibling
            # before a loaded machine had started it.
            await asyncio.wait_for(failed.wait(), 60)
            raise RuntimeError("round 2 is never needed")
        if call.round == 1 and call.prompt.startswith("faithfulness_verdicts"):
            # Round 1's last calls wait until both of round 2's answers have failed, so the error surely
            # happens before round 1's consensus discards round 2 (left to the clock, a loaded machine
            # discarded it first: its answers were cut off in flight and nothing failed).
            try:
                await asyncio.wait_for(failed.wait(), 60)
            except TimeoutError:
                raise AssertionError(f"round 2's answers did not both start: {answers}") from None
        return await scripted(messages, params)

    monkeypatch.setattr(backend, "complete", complete)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.decided_by == "consensus" and len(verdict.rounds) == 1 and verdict.error is None
    assert sorted(answers) == ["rag", "search"]
    # The two query rewrites finished and the two answers were sent before they failed: four requests of
    # discarded work (a request is counted when it is sent); round 1's are calls.
    assert verdict.usage.speculative_calls == 4
    assert verdict.usage.llm_calls == sum(1 for call, _ in backend.calls if call.round <= 1)


def test_the_setting_from_overrides_the_environment_and_the_default() -> None:
    given = load_settings(overrides={"methods": {"tool-mad": {"speculate": False}}}, environ={})
    assert ToolMAD().cfg(given).speculate is False
    current = load_settings(environ={"FACTDEBATE_METHODS__TOOL_MAD__SPECULATE": "true"})
    assert ToolMAD().cfg(current).speculate is True

    def auto(backend_parallel: int, concurrency: int | None = None) -> bool:
        resources, backend, _ = resources_for(debate_script({}), llm={"cache": False, "concurrency": concurrency},
                                              methods={"tool-mad": {"speculate": None}})
        backend.max_parallel = backend_parallel
        return speculates(ToolMAD().cfg(resources.settings), resources)

    assert auto(16)  # a served model
    assert not auto(1)  # the in-process llama.cpp model serves one call at a time
    assert not auto(16, concurrency=1)


def test_no_speculation_when_one_request_may_be_in_flight() -> None:
    """A local server gets one request at a time (llm.max_in_flight): a guess would queue in front of the
    calls the verdict waits for, and the server keeps working on a discarded one after it is cancelled."""

    def auto(in_flight: int | None, setting: bool | None = None) -> bool:
        resources, backend, _ = resources_for(debate_script({}), llm={"cache": False},
                                              methods={"tool-mad": {"speculate": setting}})
        backend.max_parallel = 16  # as an OpenAI-compatible backend says
        resources.debater.max_in_flight = in_flight
        return speculates(ToolMAD().cfg(resources.settings), resources)

    assert auto(None) and auto(4)  # no endpoint limit, or several slots
    assert not auto(1)  # a loopback server's default
    assert auto(1, setting=True)  # the operator's explicit choice stands


def mad_script(decided_round: int | None) -> Any:
    """The moderator prefers a side from ``decided_round`` on (None: never; the judge decides)."""

    def respond(call: CallInfo, messages: list[Message], params: Any) -> str:
        prompt = call.prompt.split(":")[0]
        if prompt == "mad_moderator":
            if decided_round is not None and call.round >= decided_round:
                return "Preference: yes\nReason: the affirmative side cites its sources.\nSUPPORTS"
            return "Preference: no\nReason: both sides are thin."
        if prompt == "mad_judge":
            return "On balance the negative side wins.\nREFUTES"
        side = "affirmative" if prompt == "mad_affirmative" else "negative"
        return f"The {side} argument of round {call.round}.\n{S if side == 'affirmative' else R}"

    return respond


@pytest.mark.parametrize("decided_round", [1, 2, 3, None], ids=["round1", "round2", "round3", "judge"])
async def test_mad_speculation_changes_nothing_visible(decided_round: int | None) -> None:
    outcomes = []
    for speculate in (False, True):
        resources, _, _ = resources_for(mad_script(decided_round), method="mad", latency=0.01,
                                        methods={"mad": {"speculate": speculate}})
        events: list[dict] = []
        verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
        data = verdict.model_dump(mode="json", exclude={"usage", "usage_by_role", "usage_by_model"})
        data["config"]["methods"]["mad"].pop("speculate")
        outcomes.append((data, stable(events), verdict.usage))
    (plain, plain_events, plain_usage), (fast, fast_events, fast_usage) = outcomes
    assert fast == plain and fast_events == plain_events
    assert fast_usage.llm_calls == plain_usage.llm_calls
    assert plain["decided_by"] == ("judge" if decided_round is None else "moderator")
    # a round that ends the debate early had the next round's affirmative answer started, then discarded
    assert (fast_usage.speculative_calls > 0) == (decided_round in (1, 2))
