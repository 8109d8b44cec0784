"""Does a batch survive a faulty model server with the default retry settings?

An OpenAI-compatible server on loopback answers every 5th request with 429 (``Retry-After``), every 7th
with a 200 whose body is not a chat completion, and a random 20% of the others with a 5xx. A batch of
claims, each about 40 model calls (``vote`` with 40 voters, no tools), runs against it through the batch
runner with the default retry settings. Printed: how many claims completed, errored, were written twice
or never, and how many tries the calls needed.

    .venv/bin/python benchmarks/faults.py [--claims 40] [--voters 40] [--retries N] [--seed 0]

``--retries 4`` (with ``--budget 86400``, the most llm.retry_budget allows) replays the attempt cap the
project used before the time budget.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.run.batch import ClaimItem, run_batch
from factdebate.run.build import build_resources
from factdebate.settings.load import settings_from
from factdebate.settings.model import Settings
from tests.fake_openai import GARBAGE, Failure, FakeOpenAI


class FaultMix:
    """The issue's mix: 429 on every 5th request, garbage on every 7th, 20% 5xx on the rest."""

    def __init__(self, seed: int, error_rate: float = 0.2, retry_after: str = "0.2") -> None:
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.error_rate = error_rate
        self.retry_after = retry_after
        self.served: Counter[str] = Counter()

    def __call__(self, number: int) -> Failure | None:
        with self.lock:
            if number % 5 == 0:
                kind, failure = "429", (429, self.retry_after)
            elif number % 7 == 0:
                kind, failure = "garbage", (GARBAGE, None)
            elif self.rng.random() < self.error_rate:
                status = self.rng.choice([500, 502, 503])
                kind, failure = str(status), (status, None)
            else:
                kind, failure = "ok", None
            self.served[kind] += 1
            return failure


def attempts_from_trace(events: list[dict[str, Any]]) -> Counter[int]:
    return Counter(int(e["attempts"]) for e in events if e.get("event") == "llm_call")


async def run(claims: int, voters: int, overrides: dict[str, Any], seed: int) -> None:
    mix = FaultMix(seed)
    out = Path(tempfile.mkdtemp(prefix="faults-")) / "results.jsonl"
    events: list[dict[str, Any]] = []
    with FakeOpenAI(reply="The evidence agrees.\nSUPPORTS", fault=mix) as server:
        # The fake server answers many requests at once: 16 in flight (the per-model limit of before), not
        # the one-at-a-time default for a loopback URL (llm/in_flight.py).
        settings: Settings = settings_from({"method": "vote", "vote_samples": voters, "llm": "openai:fault",
                                            "agents": ["none", "none"], "cache": False, "concurrency": 8,
                                            "llm_max_in_flight": 16})
        if overrides:
            data = settings.model_dump()
            data["llm"].update(overrides)
            settings = Settings.model_validate(data)
        backend = OpenAIBackend("fault", base_url=server.base_url, api_key="not-needed")
        resources = build_resources(settings, backends={role: backend for role in ("debater", "judge", "scorer")})
        items = [ClaimItem(f"c{i:03d}", f"Claim number {i} is true.", {}) for i in range(claims)]
        started = time.perf_counter()
        stats = await run_batch(items, out, settings, resources, sinks=[events.append], progress=False)
        seconds = time.perf_counter() - started
    lines = out.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    ids = Counter(str(r["id"]) for r in records)
    completed = sum(1 for r in records if not r.get("error"))
    errors = sum(1 for r in records if r.get("error"))
    duplicates = sum(n - 1 for n in ids.values())
    lost = sum(1 for item in items if item.id not in ids)
    tries = attempts_from_trace(events)
    retry = resources.debater.retry
    print(f"policy: attempts<={retry.attempts}, budget {retry.budget:g} s, backoff {retry.base_delay:g}..."
          f"{retry.max_delay:g} s with {retry.jitter:.0%} jitter")
    print(f"server: {sum(mix.served.values())} requests: "
          + ", ".join(f"{k} {v}" for k, v in sorted(mix.served.items())))
    print(f"calls: {sum(tries.values())} succeeded; tries per call: "
          + ", ".join(f"{k}: {v}" for k, v in sorted(tries.items())))
    print(f"claims: {claims} x ~{voters} calls in {seconds:.1f} s (batch errors {stats.errors})")
    if errors:
        print("first error:", next(r["error"] for r in records if r.get("error"))[:200])
    print(f"completed={completed} errors={errors} duplicates={duplicates} lost={lost}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=40)
    parser.add_argument("--voters", type=int, default=40)
    parser.add_argument("--retries", type=int, default=None, help="override llm.retries (default: the setting's)")
    parser.add_argument("--budget", type=float, default=None, help="override llm.retry_budget seconds")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    overrides = {k: v for k, v in {"retries": args.retries, "retry_budget": args.budget}.items() if v is not None}
    asyncio.run(run(args.claims, args.voters, overrides, args.seed))


if __name__ == "__main__":
    main()
