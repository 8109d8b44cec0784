"""One process against a pool of Ray workers on this machine: throughput of a batch run.

Every LLM call is the scripted backend with a fixed latency (default 200 ms); tools are static and the
encoder is the bag-of-words one, so what separates the two executors is orchestration CPU (one core for one
process, one per worker) plus Ray's own overhead. Both runs keep the same number of claims in flight: the
single process runs at concurrency C, each of the W Ray workers at C / W. The Ray instance is started before
the clock starts (its start-up is printed apart).

    .venv/bin/python benchmarks/scale.py [--claims 200] [--latency 0.2] [--workers 2] [--concurrency 64]

Runs ``--repeats`` interleaved pairs (the machine's load changes between runs) and prints
``ray_vs_single=<median of ray claims/s ÷ single-process claims/s>`` as the last line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from factdebate.run.batch import read_claims, run_batch
from factdebate.scale.pool import RayPool
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from tests.scale.support import records, static_resources, write_claims


def settings_for(latency: float, workers: int, concurrency: int, executor: str) -> Settings:
    return load_settings(overrides={"llm": {"debater": f"scripted:agree@{latency}", "cache": False},
                                    "concurrency": concurrency,
                                    "scale": {"executor": executor, "workers": workers,
                                              "worker_concurrency": max(1, concurrency // workers)}},
                         environ={})


async def single(claims: Path, output: Path, settings: Settings) -> float:
    items = read_claims(claims)
    started = time.perf_counter()
    await run_batch(items, output, settings, static_resources(settings, None), progress=False)
    return time.perf_counter() - started


async def compare(claims: Path, work: Path, base: Settings, settings: Settings,
                  repeats: int) -> tuple[list[float], list[float], float]:
    """``repeats`` pairs of runs, one process then Ray, on one pool of workers (started once)."""
    items = read_claims(claims)
    singles, rays = [], []
    started = time.perf_counter()
    async with RayPool(settings, builder=static_resources) as pool:
        ready = time.perf_counter() - started
        for repeat in range(repeats):
            singles.append(await single(claims, work / f"single-{repeat}.jsonl", base))
            began = time.perf_counter()
            await run_batch(items, work / f"ray-{repeat}.jsonl", settings, None, progress=False, executor=pool)
            rays.append(time.perf_counter() - began)
    return singles, rays, ready


def per_claim(output: Path) -> dict[str, Any]:
    rows = [r for r in records(output) if not r.get("error")]
    return {"claims": len(rows), "calls": statistics.mean(r["usage"]["llm_calls"] for r in rows),
            "tokens": statistics.mean(r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"] for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved pairs; the median ratio is printed")
    args = parser.parse_args()
    import ray

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        claims = write_claims(work / "claims.jsonl", args.claims)
        base = settings_for(args.latency, args.workers, args.concurrency, "local")
        started = time.perf_counter()
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 _node_ip_address="127.0.0.1")
        init_s = time.perf_counter() - started
        try:
            singles, rays, ready_s = asyncio.run(compare(
                claims, work, base, settings_for(args.latency, args.workers, args.concurrency, "ray"), args.repeats))
        finally:
            ray.shutdown()
        for name, out in (("single", work / "single-0.jsonl"), ("ray", work / "ray-0.jsonl")):
            stats = per_claim(out)
            assert stats["claims"] == args.claims, (name, stats)
            print(f"{name}: {json.dumps(stats)}")
        ratios = []
        for one_s, ray_s in zip(singles, rays, strict=True):
            ratios.append(one_s / ray_s)  # equal claims: the throughput ratio is the inverse time ratio
            print(f"single process {args.claims / one_s:6.1f} claims/s (concurrency {args.concurrency})   "
                  f"ray x{args.workers} {args.claims / ray_s:6.1f} claims/s "
                  f"(concurrency {max(1, args.concurrency // args.workers)} per worker)   ratio {one_s / ray_s:.2f}")
        ideal = args.concurrency / (3 * args.latency)  # the agreeing debate's critical path is 3 calls
        print(f"ideal at this concurrency: {ideal:.1f} claims/s; Ray start {init_s:.1f}s, workers ready "
              f"{ready_s:.1f}s (neither counted)")
        print(f"ray_vs_single={statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
