"""Should Tool-MAD speculate on the in-process model (``llama-cpp:builtin``)? The same claims run with
speculation off and on, alternating, in one process; the model serves one call at a time, so a
speculative round's calls queue with the scoring calls the verdict waits for.

    FACTDEBATE_DATA_DIR=... .venv/bin/python benchmarks/decisions/speculation_builtin.py [--claims 4]

Last line: ``builtin_speculative_speedup=…`` (wall off / wall on; below 1 means speculation costs time).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from factdebate.core.types import Verdict
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings

CLAIMS = [
    "Paris is the capital of France.",
    "The Great Wall of China is visible from the Moon with the naked eye.",
    "Albert Einstein was born in Germany.",
    "Mount Everest is in South America.",
    "Water boils at 100 degrees Celsius at sea level.",
    "The Amazon river flows into the Pacific Ocean.",
]


async def verdict_of(claim: str, speculate: bool) -> Verdict:
    settings = load_settings(overrides={"llm": {"debater": "llama-cpp:builtin", "cache": False},
                                        "methods": {"tool-mad": {"speculate": speculate}}})
    resources = build_resources(settings)
    async with resources:
        return await run_claim(claim, settings, resources)


async def run(claims: list[str]) -> None:
    walls: dict[bool, float] = {False: 0.0, True: 0.0}
    await verdict_of("Warm-up: the model loads once per process.", speculate=False)
    for number, claim in enumerate(claims):
        labels = {}
        for speculate in (False, True) if number % 2 == 0 else (True, False):  # neither mode always first
            started = time.perf_counter()
            verdict = await verdict_of(claim, speculate)
            seconds = time.perf_counter() - started
            walls[speculate] += seconds
            labels[speculate] = (verdict.label, verdict.decided_by, len(verdict.rounds))
            print(f"speculate={speculate} rounds={len(verdict.rounds)} decided_by={verdict.decided_by} "
                  f"llm_calls={verdict.usage.llm_calls} speculative_calls={verdict.usage.speculative_calls} "
                  f"wall={seconds:.1f}s claim={claim[:40]!r}", flush=True)
        print(f"same_verdict={labels[False] == labels[True]}", flush=True)
    print(f"wall_off={walls[False]:.1f}s wall_on={walls[True]:.1f}s")
    print(f"builtin_speculative_speedup={walls[False] / walls[True]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=4)
    args = parser.parse_args()
    asyncio.run(run(CLAIMS[: args.claims]))


if __name__ == "__main__":
    main()
