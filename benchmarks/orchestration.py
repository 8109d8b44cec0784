"""How close does one Tool-MAD debate get to its critical-path bound, and how much does concurrency buy?

Every LLM call takes a fixed latency L (scripted backend); tools and the encoder are instant. The bound is
the longest chain of calls that must happen one after another (per round: the slowest agent's query ->
answer -> faithfulness statements -> verdicts; then the judge) times L. The same debate is then run with a
backend that serves one call at a time, which is what issuing the calls one by one costs.

Speculative rounds (``methods.tool-mad.speculate``) start round r+1 while round r is scored; their bound
is the same chain with that overlap (:func:`speculative_path_calls`, docs/methods/tool-mad.md). The last
line compares a speculative and a non-speculative run of the same judge-path debate.

    .venv/bin/python benchmarks/orchestration.py [--latency 0.05] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scripted_claim import timed_claim
from factdebate.core.types import Verdict
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.settings.load import load_settings


def query_asked(verdict: Verdict, round_number: int, query: str | None) -> int:
    """1 when the turn's query came from a query-selection call: every round after the first, and round 1
    too with ``round1_query: model`` (the default)."""
    cfg = verdict.config.get("methods", {}).get("tool-mad", {})
    first = cfg.get("round1_query", "model") == "model" and cfg.get("query_formulation", True)
    return 1 if query is not None and (round_number > 1 or first) else 0


def critical_path_calls(verdict: Verdict) -> int:
    calls = 0
    for rnd in verdict.rounds:
        chains = []
        for turn in rnd.turns:
            chain = 1 + query_asked(verdict, rnd.round, turn.query) + turn.parse_retries
            chain += 2 if turn.faithfulness is not None else (1 if turn.answer_relevance is not None else 0)
            chains.append(chain)
        calls += max(chains)
    if verdict.judge is not None:
        calls += 1 + verdict.judge.parse_retries
    return calls


def speculative_path_calls(verdict: Verdict) -> int:
    """The critical path with speculation, in calls. Round r+1 starts once every answer of round r exists
    and round r-1 is decided (one round ahead at most); each of its answers is scored once it exists and
    round r is decided (a speculative round is not scored); round r is decided once all its scores exist
    and round r-1 is decided; the judge follows the last decision."""
    start = decided_before = decided = 0
    for rnd in verdict.rounds:
        answered, decided = start, decided_before
        for turn in rnd.turns:
            answer = 1 + query_asked(verdict, rnd.round, turn.query) + turn.parse_retries
            score = 2 if turn.faithfulness is not None else (1 if turn.answer_relevance is not None else 0)
            answered = max(answered, start + answer)
            decided = max(decided, max(start + answer, decided_before) + score)
        start, decided_before = max(answered, decided_before), decided
    judge = 1 + verdict.judge.parse_retries if verdict.judge is not None else 0
    return decided + judge


async def debate(latency: float, parallel: int, speculate: bool = False) -> tuple[float, Verdict]:
    settings = load_settings(overrides={"llm": {"cache": False},
                                        "methods": {"tool-mad": {"speculate": speculate}}}, environ={})
    backend = ScriptedBackend(protocol_responder(disagree=True), latency=latency,
                              max_parallel=parallel)
    return await timed_claim(settings, backend)


def mad_responder(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """MAD's judge path: the moderator never prefers a side."""
    prompt = call.prompt.split(":")[0]
    if prompt == "mad_moderator":
        return "Preference: no\nReason: both sides are thin."
    return "An argument.\nSUPPORTS" if prompt != "mad_negative" else "A rebuttal.\nREFUTES"


async def mad_debate(latency: float, speculate: bool) -> tuple[float, Verdict]:
    settings = load_settings(overrides={"method": "mad", "llm": {"cache": False},
                                        "methods": {"mad": {"speculate": speculate}}}, environ={})
    return await timed_claim(settings, ScriptedBackend(mad_responder, latency=latency), ("debater", "judge"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    concurrent, sequential, speculative = [], [], []
    verdict = fast = None
    for _ in range(args.repeats):
        seconds, verdict = asyncio.run(debate(args.latency, parallel=1024))
        concurrent.append(seconds)
        sequential.append(asyncio.run(debate(args.latency, parallel=1))[0])
        seconds, fast = asyncio.run(debate(args.latency, parallel=1024, speculate=True))
        speculative.append(seconds)
    assert verdict is not None and fast is not None
    assert fast.label == verdict.label and len(fast.rounds) == len(verdict.rounds)
    path = critical_path_calls(verdict)
    bound = path * args.latency
    wall, seq = statistics.median(concurrent), statistics.median(sequential)
    print(f"rounds={len(verdict.rounds)} decided_by={verdict.decided_by} llm_calls={verdict.usage.llm_calls} "
          f"critical_path_calls={path} latency={args.latency}s")
    print(f"concurrent_wall={wall:.3f}s bound={bound:.3f}s sequential_wall={seq:.3f}s")
    print(f"ratio_to_bound={wall / bound:.3f} speedup_vs_sequential={seq / wall:.2f}")
    spec_path, spec_wall = speculative_path_calls(fast), statistics.median(speculative)
    print(f"speculative_wall={spec_wall:.3f}s speculative_bound={spec_path * args.latency:.3f}s "
          f"speculative_path_calls={spec_path} speculative_calls={fast.usage.speculative_calls}")
    # MAD: per round affirmative -> negative -> moderator; speculation overlaps the moderator of round r
    # with round r+1's affirmative, so the judge path's chain drops from 3T + 1 calls to 2T + 2.
    mad_walls: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.repeats):  # interleaved, so both modes see the same load
        for speculate in (False, True):
            mad_walls[speculate].append(asyncio.run(mad_debate(args.latency, speculate))[0])
    mad_plain, mad_fast = statistics.median(mad_walls[False]), statistics.median(mad_walls[True])
    print(f"mad_wall={mad_plain:.3f}s mad_speculative_wall={mad_fast:.3f}s mad_speculative_speedup="
          f"{mad_plain / mad_fast:.2f}")
    print(f"speculative_ratio_to_bound={spec_wall / (spec_path * args.latency):.3f} "
          f"speculative_speedup={wall / spec_wall:.2f}")


if __name__ == "__main__":
    main()
