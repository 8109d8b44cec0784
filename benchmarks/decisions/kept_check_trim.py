"""What keeping one more check costs as a key's kept checks pile up: ``CheckStore.save`` on a SQLite state
database (a temporary file), the key's limit at the service's default (1,000), 2,000 saves of one key with a
few kept calls each. Prints the mean milliseconds per save for the first 100, up to the limit, and past it
(where every save also trims the oldest):

    .venv/bin/python benchmarks/decisions/kept_check_trim.py --saves 2000 --per-key 1000
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from factdebate.server.state.check_store import CheckStore
from factdebate.server.state.db import open_state_db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=2000)
    parser.add_argument("--per-key", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = CheckStore(open_state_db(Path(folder) / "state.db"), per_key=args.per_key,
                           max_age_seconds=30 * 86400)
        verdict, calls = {"label": "SUPPORTS", "claim": "x" * 200}, [{"role": "debater", "tokens": 120}] * 5
        marks = sorted({min(100, args.saves), min(args.per_key, args.saves), args.saves})
        start, now, times = time.perf_counter(), time.time(), {}
        for i in range(1, args.saves + 1):
            store.save("key", "claim", verdict, now=now + i / 1000, calls=calls)
            if i in marks:
                times[i] = time.perf_counter() - start
        store.db.close()
    done, spent = 0, 0.0
    for mark in marks:
        print(f"saves {done + 1}-{mark}: {(times[mark] - spent) / (mark - done) * 1000:.2f} ms each")
        done, spent = mark, times[mark]


if __name__ == "__main__":
    main()
