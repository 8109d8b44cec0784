"""How close does ``factdebate eval`` get to perfect scaling with concurrency?

Every LLM call takes a fixed latency L (scripted backend); tools and the encoder are instant. One claim is a
Tool-MAD debate that agrees in round 1, so its ideal latency is its critical path, read from the run's own
first verdict (benchmarks/orchestration.py's ``critical_path_calls``: the round's query call where an agent
asked one, answer, faithfulness statements -> verdicts, answer relevance beside them; P calls) = P x L. At
concurrency C the ideal throughput is C / (P x L) claims per second; efficiency = measured / ideal. The
measured window runs from the start of the run to the last record written (results.jsonl is written and
flushed as in a real run); writing the summary afterwards is timed separately. The process's CPU per claim
(user and system, all threads) is printed beside it: where efficiency falls short at high concurrency, it
says whether the CPU is why (C claims each taking CPU ms of a core, against P x L of waiting).

    .venv/bin/python benchmarks/eval_throughput.py [--latency 0.05] [--claims-per-worker 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.orchestration import critical_path_calls
from benchmarks.scripted_claim import scripted_resources
from factdebate.core.types import Verdict
from factdebate.eval.runner import execute, make_plan
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.settings.load import load_settings


async def run(concurrency: int, claims: int, latency: float, workdir: Path) -> tuple[float, float, int, float]:
    data = workdir / f"claims-{concurrency}.jsonl"
    data.write_text("".join(json.dumps({"id": f"c{i}", "claim": f"Claim number {i} is true.",
                                        "label": "SUPPORTS"}) + "\n" for i in range(claims)))
    settings = load_settings(overrides={"llm": {"cache": False}}, environ={})
    backend = ScriptedBackend(protocol_responder(disagree=False), latency=latency)  # type: ignore[arg-type]
    resources = scripted_resources(settings, backend)
    plan = make_plan(settings, f"claims:{data}", workdir / f"run-{concurrency}", limit=None, seed=0)
    last = [0.0]
    cpu = time.process_time()
    started = time.perf_counter()
    summary = await execute(plan, resources, concurrency=concurrency, progress=False,
                            on_record=lambda _: last.__setitem__(0, time.perf_counter()))
    finished = time.perf_counter()
    cpu = time.process_time() - cpu
    assert summary["metrics"]["n"] == claims and not summary["metrics"]["errored"], summary["metrics"]
    return last[0] - started, finished - last[0], path_calls(plan.output), cpu / claims


def path_calls(directory: Path) -> int:
    first = json.loads((directory / "results.jsonl").read_text().splitlines()[0])
    return critical_path_calls(Verdict.model_validate(first))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--claims-per-worker", type=int, default=8)
    args = parser.parse_args()
    efficiencies = {}
    with tempfile.TemporaryDirectory() as tmp:
        for concurrency in (1, 8, 32):
            claims = concurrency * args.claims_per_worker
            window, summary_s, path, cpu_per_claim = asyncio.run(run(concurrency, claims, args.latency, Path(tmp)))
            ideal = concurrency / (path * args.latency)
            measured = claims / window
            efficiencies[concurrency] = measured / ideal
            print(f"c={concurrency:<3} claims={claims:<4} critical_path={path} calls x {args.latency}s  "
                  f"measured={measured:7.2f} claims/s  ideal={ideal:7.2f} claims/s  "
                  f"efficiency={measured / ideal:.3f}  cpu_per_claim={1000 * cpu_per_claim:.1f}ms  "
                  f"(summary written in {summary_s:.3f}s)")
    print(" ".join(f"efficiency_c{c}={e:.3f}" for c, e in efficiencies.items()))


if __name__ == "__main__":
    main()
