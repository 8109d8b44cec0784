"""Does one hung request stall every claim behind a one-slot loopback server?

An OpenAI-compatible server on loopback with benchmarks/faults.py's mix (a 429 on every 5th request,
garbage on every 7th, 5xx on a random 20% of the rest) where, in addition, every ``--hang-every``-th request
hangs for ``--hang`` seconds, longer than ``llm.timeout``. The client keeps the default for a loopback
server: one request in flight. A batch of claims (``vote``, no tools) runs through the batch runner twice:
with tries that hang given up early while other calls wait (llm/hung_calls.py), and without (every try runs
to its timeout, the behaviour before). Printed per run: wall time, requests the server got, claims
completed, tries given up early.

    .venv/bin/python benchmarks/hung_calls.py [--claims 30] [--voters 3] [--timeout 30] [--hang 35]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.faults import FaultMix
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.run.batch import ClaimItem, run_batch
from factdebate.run.build import build_resources
from factdebate.settings.load import settings_from
from tests.fake_openai import Failure, FakeOpenAI


class HangingMix(FaultMix):
    """The faults of benchmarks/faults.py, plus a hang on every ``every``-th request."""

    def __init__(self, seed: int, every: int, hang: float) -> None:
        super().__init__(seed)
        self.every, self.hang = every, hang

    def __call__(self, number: int) -> Failure | None:
        if number % self.every == 0:
            with self.lock:
                self.served["hang"] += 1
            time.sleep(self.hang)  # this handler thread only: the server answers others meanwhile
            return None
        return super().__call__(number)


async def one_run(args: argparse.Namespace, cut: bool) -> dict[str, Any]:
    mix = HangingMix(args.seed, args.hang_every, args.hang)
    out = Path(tempfile.mkdtemp(prefix="hung-")) / "results.jsonl"
    events: list[dict[str, Any]] = []
    with FakeOpenAI(reply="The evidence agrees.\nSUPPORTS", fault=mix) as server:
        # No llm_max_in_flight: a loopback server gets the default, one request in flight.
        settings = settings_from({"method": "vote", "vote_samples": args.voters, "llm": "openai:fault",
                                  "agents": ["none", "none"], "cache": False, "concurrency": 4})
        data = settings.model_dump()
        data["llm"]["timeout"] = args.timeout
        settings = type(settings).model_validate(data)
        backend = OpenAIBackend("fault", base_url=server.base_url, api_key="not-needed", timeout=args.timeout)
        resources = build_resources(settings, backends={role: backend for role in ("debater", "judge", "scorer")})
        for role in ("debater", "judge", "scorer"):
            resources.llm(role).cut_hung_calls = cut
        items = [ClaimItem(f"c{i:03d}", f"Claim number {i} is true.", {}) for i in range(args.claims)]
        started = time.perf_counter()
        stats = await run_batch(items, out, settings, resources, sinks=[events.append], progress=False)
        seconds = time.perf_counter() - started
        requests = len(server.requests)
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    given_up = sum(1 for e in events if e.get("event") == "llm_retry" and "given up early" in str(e.get("error")))
    return {"seconds": seconds, "requests": requests, "hangs": mix.served["hang"], "given_up": given_up,
            "completed": sum(1 for r in records if not r.get("error")), "errors": stats.errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=30)
    parser.add_argument("--voters", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=30.0, help="llm.timeout, seconds per try")
    parser.add_argument("--hang", type=float, default=35.0, help="seconds a hanging request is held")
    parser.add_argument("--hang-every", type=int, default=37, help="every n-th request hangs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=["cut", "wait"], default=None, help="run one mode only")
    args = parser.parse_args()
    modes = [args.only == "cut"] if args.only else [False, True]
    for cut in modes:
        result = asyncio.run(one_run(args, cut))
        name = "given up early while others wait" if cut else "every try to its timeout (before)"
        print(f"{name}: {result['seconds']:.1f} s, {result['requests']} requests "
              f"({result['requests'] / result['seconds'] * 60:.0f}/min), {result['hangs']} hung, "
              f"{result['given_up']} tries given up early, claims {result['completed']}/{args.claims} completed, "
              f"{result['errors']} errors")


if __name__ == "__main__":
    main()
