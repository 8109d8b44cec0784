"""What keeping a plain check's model calls costs: plain ``POST /v1/verify`` requests in process (no sockets),
with the scripted model answering at once, so the time per request is the service's own work, counted as the
process's CPU time (all its threads: the client's too, the same in both) so that other jobs on a shared
machine change it less than they change the wall time. Run alternately
with ``kept_check_calls_bytes`` at its default (the run's events are built and its ``llm_call`` ones kept) and at
0 (no events built at all), several rounds each; the overhead is the median of the rounds' differences:

    .venv/bin/python benchmarks/decisions/plain_kept_calls.py --requests 200 --repeats 5

Ends with ``kept_ms=… none_ms=… overhead_ms=… calls=…``: median CPU milliseconds per request."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

KEY = "bench-key-0123456789"
DEFAULTS = {"llm": "scripted:disagree", "agents": ["none", "none"], "scoring": False, "cache": False}


def measure(client: TestClient, requests: int, rounds: int) -> tuple[float, int]:
    """CPU seconds per request over ``requests`` plain verifies, and the calls kept for the last one."""
    headers = {"Authorization": f"Bearer {KEY}"}
    started = time.process_time()
    check_id = ""
    for i in range(requests):
        answer = client.post("/v1/verify", json={"claim": f"Water boils at {i} C.", "rounds": rounds},
                             headers=headers)
        answer.raise_for_status()
        check_id = answer.headers.get("X-Check-Id", "")
    seconds = (time.process_time() - started) / requests
    kept: Any = client.get(f"/v1/checks/{check_id}", headers=headers).json()
    return seconds, len(kept["calls"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--per-key", type=int, default=1000, help="kept_checks_per_key (the service's default)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from factdebate.server.app import create_app

    work = Path(tempfile.mkdtemp(prefix="plain-kept-calls-"))
    clients = {}
    for name, limit in (("kept", 1024 * 1024), ("none", 0)):
        app = create_app(api_keys=[KEY], defaults=DEFAULTS, rate_limit_per_minute=0, kept_check_calls_bytes=limit,
                         kept_checks_per_key=args.per_key,
                         db_path=work / f"{name}.sqlite")
        clients[name] = TestClient(app).__enter__()
    times: dict[str, list[float]] = {name: [] for name in clients}
    calls = {}
    for client in clients.values():
        measure(client, 20, args.rounds)  # warm up: the built resources, the database
    for _ in range(args.repeats):  # alternated, so a load change on the machine falls on both
        for name, client in clients.items():
            seconds, calls[name] = measure(client, args.requests, args.rounds)
            times[name].append(seconds)
    for client in clients.values():
        client.__exit__(None, None, None)
    kept, none = (statistics.median(times[n]) * 1000 for n in ("kept", "none"))
    # The difference within each repeat (the two ran back to back), whose median moves less with the load.
    overhead = statistics.median(k - n for k, n in zip(times["kept"], times["none"], strict=True)) * 1000
    for name in clients:
        print(f"{name}: {' '.join(f'{t * 1000:.2f}' for t in times[name])} CPU ms/request; calls kept: {calls[name]}")
    print(f"kept_ms={kept:.2f} none_ms={none:.2f} overhead_ms={overhead:.2f} calls={calls['kept']}")


if __name__ == "__main__":
    main()
