"""How close does one DPD debate get to its critical-path bound, and what does a claim cost by role?

Every LLM call takes a fixed latency L (scripted backend, ``protocol_responder``); tools and the encoder are
instant. The bound is the chain of calls that must happen one after another, times L: the setup's longest
call (the gatherers' query call, the analyst's, at once), then per judged round the rebutter, the
summarizer (its k samples at once) and the slowest judge. The same debate with a backend serving one call
at a time shows what issuing the calls one by one would cost.

    .venv/bin/python benchmarks/dpd.py [--latency 0.05] [--repeats 3] [--disagree] [--speculate]
                                       [--transition true-skeptic]

With ``--disagree`` one judge dissents, the consensus stays under the threshold and the debate runs to its
maximum rounds; without it the panel agrees and the debate stops at the minimum. ``--speculate`` starts
each round's teams while the previous round's judges deliberate (methods.dpd.speculate); the bound stays
the plain protocol's critical path, so a ratio under 1 is what speculation saves.
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
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.settings.load import load_settings


def critical_path_calls(verdict: Verdict) -> int:
    calls = 0
    for rnd in verdict.rounds:
        if rnd.round == 0:
            chains = [1 + t.parse_retries for t in rnd.turns if t.role in ("gatherer", "analyst")]
            calls += max(chains, default=0)
            continue
        teams: dict[str, int] = {}
        for turn in rnd.turns:
            if turn.role in ("rebutter", "summarizer") and turn.team:
                teams[turn.team] = teams.get(turn.team, 0) + 1
        calls += max(teams.values(), default=0)
        calls += max((1 + j.parse_retries for j in rnd.judges), default=0)
    return calls


async def debate(latency: float, parallel: int, disagree: bool, speculate: bool = False,
                 transition: str = "true-skeptic") -> tuple[float, Verdict]:
    dpd = {"speculate": speculate, "transition": transition}
    settings = load_settings(overrides={"method": "dpd", "llm": {"cache": False}, "methods": {"dpd": dpd}},
                             environ={})
    backend = ScriptedBackend(protocol_responder(disagree=disagree), latency=latency, max_parallel=parallel)
    return await timed_claim(settings, backend, ("debater",))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--disagree", action="store_true")
    parser.add_argument("--speculate", action="store_true")
    parser.add_argument("--transition", default="true-skeptic")
    args = parser.parse_args()
    concurrent, sequential = [], []
    verdict = None
    for _ in range(args.repeats):
        seconds, verdict = asyncio.run(debate(args.latency, 1024, args.disagree, args.speculate, args.transition))
        concurrent.append(seconds)
        sequential.append(asyncio.run(debate(args.latency, 1, args.disagree, args.speculate, args.transition))[0])
    assert verdict is not None
    path = critical_path_calls(verdict)
    bound = path * args.latency
    wall, seq = statistics.median(concurrent), statistics.median(sequential)
    judged = sum(1 for rnd in verdict.rounds if rnd.judges)
    if args.speculate:
        print(verdict.explanation.splitlines()[-1])
    print(f"judged_rounds={judged} label={verdict.label} consensus={verdict.consensus} "
          f"llm_calls={verdict.usage.llm_calls} speculative_calls={verdict.usage.speculative_calls} "
          f"critical_path_calls={path} latency={args.latency}s")
    print(f"concurrent_wall={wall:.3f}s bound={bound:.3f}s sequential_wall={seq:.3f}s "
          f"speedup_vs_sequential={seq / wall:.2f}")
    print("by role (calls, prompt tokens, completion tokens per claim; scripted tokens are words):")
    for role, usage in sorted(verdict.usage_by_role.items()):
        if usage.llm_calls:
            print(f"  {role:18s} calls={usage.llm_calls:3d} prompt_tokens={usage.prompt_tokens:6d} "
                  f"completion_tokens={usage.completion_tokens:5d}")
    tools = verdict.usage_by_role.get("tools")
    print(f"  tool_calls={tools.tool_calls if tools else 0}")
    print(f"ratio_to_bound={wall / bound:.3f} calls_per_claim={verdict.usage.llm_calls}")


if __name__ == "__main__":
    main()
