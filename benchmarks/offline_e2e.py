"""Tool-MAD end to end, fully offline: the embedded SmolLM2 model, Milvus Lite + tantivy over the built-in
Wikipedia corpus. Reports seconds, LLM calls and tokens per claim (the model is tiny: this measures the
pipeline's cost, not accuracy).

    .venv/bin/python benchmarks/offline_e2e.py [--claims 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import settings_from

CLAIMS = [
    "The Eiffel Tower is located in Rome.",
    "Mount Everest is the highest mountain on Earth.",
    "The Amazon River flows through Brazil.",
    "Albert Einstein developed the theory of relativity.",
    "The Pacific Ocean is the smallest ocean.",
    "Tokyo is the capital of Japan.",
    "Penguins are native to the Arctic.",
    "William Shakespeare wrote Hamlet.",
    "The Great Wall of China is in India.",
    "Water boils at 100 degrees Celsius at sea level.",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def main(n: int, rounds: int) -> None:
    settings = settings_from({"llm": "llama-cpp:builtin", "rounds": rounds, "cache": False})
    resources = build_resources(settings)
    started = time.perf_counter()
    resources.tool("rag"), resources.tool("search")  # index on first use; not part of the per-claim cost
    print(f"tools ready in {time.perf_counter() - started:.1f}s", flush=True)
    rows = []
    for claim in CLAIMS[:n]:
        verdict = await run_claim(claim, settings, resources)
        u = verdict.usage
        rows.append(u)
        print(f"{u.seconds:6.1f}s calls={u.llm_calls:3d} prompt={u.prompt_tokens:6d} "
              f"completion={u.completion_tokens:5d} "
              f"tools={u.tool_calls} rounds={len(verdict.rounds)} {verdict.decided_by:9} "
              f"{verdict.label.value if verdict.label else 'UNPARSED':16} unparsed_turns={verdict.unparsed_turns} "
              f"| {claim}", flush=True)
    secs = [u.seconds for u in rows]
    print(f"claims={len(rows)} seconds_mean={statistics.mean(secs):.1f} seconds_p95={pct(secs, 0.95):.1f} "
          f"llm_calls_mean={statistics.mean(u.llm_calls for u in rows):.1f} "
          f"prompt_tokens_mean={statistics.mean(u.prompt_tokens for u in rows):.0f} "
          f"completion_tokens_mean={statistics.mean(u.completion_tokens for u in rows):.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.claims, args.rounds))
