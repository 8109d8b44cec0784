"""What the shared service state costs per operation: SQLite (one machine) against PostgreSQL (several).

Each operation is one serialized transaction of the service (`server/state/shared.py`,
`server/state/batch_store.py`): a rate-limit token (every authenticated request), a debate slot taken and
released (every interactive debate), a batch claim taken and its result recorded (every batch claim).
Measured in 1 process and in 4 processes at once, hammering the same database, so the figures show the
serialization too. PostgreSQL is a throwaway local cluster over a Unix socket
(`scripts/postgres-for-tests.sh`), or the server named by ``--postgres URL``.

    .venv/bin/python benchmarks/state_db.py [--seconds 3] [--postgres URL]

Last line: ``state_ops_per_s sqlite=… postgresql=… (4 processes) pg_vs_sqlite=…``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from factdebate.run.batch import ClaimItem
from factdebate.server.state.batch_store import BatchStore
from factdebate.server.state.shared import SharedState

ROOT = Path(__file__).resolve().parents[1]
OPERATIONS = ("rate_token", "debate_slot", "batch_claim")
CLAIMS = 60_000


def run_operation(target: str, operation: str, seconds: float, batch_id: str) -> int:
    """How many times ``operation`` completed in ``seconds`` in this process."""
    state = SharedState(target)
    store = BatchStore(state.db)
    count, worker, deadline = 0, f"bench:{os.getpid()}:x", time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if operation == "rate_token":
            state.take_token(f"key-{count % 50}", rate=1e6, capacity=1e6)
        elif operation == "debate_slot":
            slot = state.acquire_slot(10_000)
            assert slot is not None
            state.release_slot(slot)
        else:
            taken = store.take(batch_id, worker)
            assert taken is not None, "the benchmark batch ran out of claims"
            store.record(batch_id, taken[0], {"id": taken[1].id, "label": "SUPPORTS"})
        count += 1
    state.close()
    return count


def _child(args: tuple[str, str, float, str]) -> int:
    return run_operation(*args)


def measure(target: str, operation: str, seconds: float, processes: int) -> float:
    batch_id = uuid.uuid4().hex
    if operation == "batch_claim":  # enough claims for the fastest engine to never run out
        BatchStore(target).create(batch_id, "bench", {}, {},
                                  [ClaimItem(f"c{i}", "A claim.", {}) for i in range(CLAIMS)])
    if processes == 1:
        return run_operation(target, operation, seconds, batch_id) / seconds
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        counts = pool.map(_child, [(target, operation, seconds, batch_id)] * processes)
    return sum(counts) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--postgres", help="a PostgreSQL URL (default: a throwaway local cluster)")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} cores)")
    folder = tempfile.mkdtemp(prefix="state-bench-")
    cluster = None
    pg = args.postgres
    if pg is None:
        cluster = tempfile.mktemp(prefix="state-bench-pg-", dir="/tmp")  # a name: the script creates it
        pg = subprocess.run([str(ROOT / "scripts" / "postgres-for-tests.sh"), "start", cluster], check=True,
                            capture_output=True, text=True).stdout.strip()
    try:
        targets = {"sqlite": str(Path(folder) / "state.sqlite"), "postgresql": pg}
        totals: dict[tuple[str, int], list[float]] = {}
        for operation in OPERATIONS:
            for processes in (1, 4):
                row = []
                for engine, target in targets.items():  # the two engines back to back: the same load
                    rate = measure(target, operation, args.seconds, processes)
                    totals.setdefault((engine, processes), []).append(rate)
                    row.append(f"{engine} {rate:8.0f}/s")
                print(f"{operation:12s} {processes} process(es)   " + "   ".join(row), flush=True)
        print(f"load after: {os.getloadavg()[0]:.2f}")
        sqlite4 = statistics.geometric_mean(totals[("sqlite", 4)])
        pg4 = statistics.geometric_mean(totals[("postgresql", 4)])
        print(f"state_ops_per_s sqlite={sqlite4:.0f} postgresql={pg4:.0f} (4 processes, geometric mean of the "
              f"three operations) pg_vs_sqlite={pg4 / sqlite4:.2f}")
    finally:
        if cluster is not None:
            subprocess.run([str(ROOT / "scripts" / "postgres-for-tests.sh"), "stop", cluster], check=False)


if __name__ == "__main__":
    main()
