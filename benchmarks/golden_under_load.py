"""Whether the golden check tests logic and not timing: it runs ``tests/golden`` several times beside busy
loops (what ``stress --cpu 2`` does: processes that spin on a core each), and says how many runs passed.

A check that depends on scheduling (which speculative calls started before a round was known not to be
needed, which of two equally scored passages an index returns first) fails on a loaded machine for the wrong
reason; this one must pass every run. The machine's load average is printed before and after each run:
the machine may be shared with other work, so the wall times are figures of that load, not of the check.

    .venv/bin/python benchmarks/golden_under_load.py [--runs 5] [--busy 2] [--workers 2]

Last line: ``golden_under_load runs=… passed=… busy=… workers=… wall_s=min/median/max load=…``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUSY_LOOP = "while True:\n    pass\n"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def start_busy(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(count)]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:  # only the loops this script started, by their own handles
        process.kill()
        process.wait()


def run_check(workers: int, log: Path) -> tuple[bool, float, str]:
    """One run of the golden check: passed, wall seconds, load average before -> after."""
    before = load()
    start = time.perf_counter()
    with log.open("w") as out:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers),
                               "tests/golden"], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, check=False,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return done.returncode == 0, time.perf_counter() - start, f"{before} -> {load()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of the golden check")
    parser.add_argument("--busy", type=int, default=2, help="busy-loop processes beside it")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (0: one process)")
    parser.add_argument("--logs", type=Path, default=Path("/tmp/golden-under-load"),
                        help="folder for each run's pytest output")
    args = parser.parse_args()
    args.logs.mkdir(parents=True, exist_ok=True)
    busy = start_busy(args.busy)
    results: list[tuple[bool, float, str]] = []
    try:
        for run in range(1, args.runs + 1):
            log = args.logs / f"run-{run}.log"
            passed, wall, loads = run_check(args.workers, log)
            results.append((passed, wall, loads))
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:] or [""]
            print(f"run {run}: {'passed' if passed else 'FAILED'} in {wall:.0f} s, load {loads}: {tail[0]}",
                  flush=True)
    finally:
        stop(busy)
    walls = [wall for _, wall, _ in results]
    passes = len([ok for ok, _, _ in results if ok])
    print(f"golden_under_load runs={len(results)} passed={passes} busy={args.busy} workers={args.workers} "
          f"wall_s={min(walls):.0f}/{statistics.median(walls):.0f}/{max(walls):.0f} "
          f"load={results[0][2].split(' -> ')[0]} -> {results[-1][2].split(' -> ')[1]}")
    if passes < len(results):
        sys.exit(1)


if __name__ == "__main__":
    main()
