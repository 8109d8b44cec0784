"""How close does one Tool-MAD debate get to its critical-path bound, and how much does concurrency buy?

Every LLM call takes a fixed latency L (scripted backend); tools and the encoder are instant. The bound is
the longest chain of calls that must happen one after another (per round: the slowest agent's query ->
answer -> faithfulness statements -> verdicts; then the judge) times L. The same debate is then run with a
backend that serves one call at a time, which is what issuing the calls one by one costs.

    .venv/bin/python benchmarks/orchestration.py [--latency 0.05] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from factdebate.api import build_resources, run_claim
from factdebate.config import load_settings
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.types import Verdict
from tests.helpers import BagOfWordsEncoder, StaticTool

CLAIM = "Paris is the capital of France"


def critical_path_calls(verdict: Verdict) -> int:
    calls = 0
    for rnd in verdict.rounds:
        chains = []
        for turn in rnd.turns:
            chain = 1 + (1 if rnd.round > 1 and turn.query is not None else 0) + turn.parse_retries
            chain += 2 if turn.faithfulness is not None else (1 if turn.answer_relevance is not None else 0)
            chains.append(chain)
        calls += max(chains)
    if verdict.judge is not None:
        calls += 1 + verdict.judge.parse_retries
    return calls


async def debate(latency: float, parallel: int) -> tuple[float, Verdict]:
    settings = load_settings(overrides={"llm": {"cache": False}}, environ={})
    backend = ScriptedBackend(protocol_responder(disagree=True), latency=latency,
                              max_parallel=parallel)
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, backends={r: backend for r in ("debater", "judge", "scorer")},
                                tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
    started = time.perf_counter()
    verdict = await run_claim(CLAIM, settings, resources)
    return time.perf_counter() - started, verdict


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    concurrent, sequential = [], []
    verdict = None
    for _ in range(args.repeats):
        seconds, verdict = asyncio.run(debate(args.latency, parallel=1024))
        concurrent.append(seconds)
        sequential.append(asyncio.run(debate(args.latency, parallel=1))[0])
    assert verdict is not None
    path = critical_path_calls(verdict)
    bound = path * args.latency
    wall, seq = statistics.median(concurrent), statistics.median(sequential)
    print(f"rounds={len(verdict.rounds)} decided_by={verdict.decided_by} llm_calls={verdict.usage.llm_calls} "
          f"critical_path_calls={path} latency={args.latency}s")
    print(f"concurrent_wall={wall:.3f}s bound={bound:.3f}s sequential_wall={seq:.3f}s")
    print(f"ratio_to_bound={wall / bound:.3f} speedup_vs_sequential={seq / wall:.2f}")


if __name__ == "__main__":
    main()
