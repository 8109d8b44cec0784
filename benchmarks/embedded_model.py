"""Speed of the embedded model (SmolLM2-135M, llama.cpp) as factdebate runs it, in one run.

Measures prompt evaluation (distinct ~900-token prompts, so no prefix reuse) and generation:
  * ``builtin-q4`` (the shipped Q4_1 file) against ``builtin`` (its F16 copy, flash attention);
  * throughput of one process with all threads against two processes with one thread each (what the
    results page used on a 2-core machine).

    .venv/bin/python benchmarks/embedded_model.py [--prompts 4]

Last line: ``prompt_speedup_f16=A two_procs_vs_one=B``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from factdebate.llm.base import GenParams
from factdebate.llm.llama_cpp import LlamaCppBackend


def prompt(i: int) -> str:
    facts = " ".join(f"Town {i}-{j} lies in region {j % 7} and has {j * 13 % 97} thousand people." for j in range(45))
    return f"{facts}\nClaim: Town {i}-3 lies in region 3. Say SUPPORTS or REFUTES."


async def measure(model: str, prompts: int, offset: int = 0) -> dict[str, float]:
    backend = LlamaCppBackend(model)
    await backend.complete([{"role": "user", "content": "warm up"}], GenParams(max_tokens=1))
    tokens, began = 0, time.time()
    for i in range(offset, offset + prompts):
        done = await backend.complete([{"role": "user", "content": prompt(i)}], GenParams(max_tokens=1))
        tokens += done.prompt_tokens
    ended = time.time()
    start = time.perf_counter()
    gen = await backend.complete([{"role": "user", "content": "Tell a long story about a lighthouse."}],
                                 GenParams(max_tokens=128))
    gen_s = time.perf_counter() - start
    return {"prompt_tps": tokens / (ended - began), "gen_tps": gen.completion_tokens / gen_s,
            "prompt_tokens": tokens, "began": began, "ended": ended}


def child(model: str, prompts: int, offset: int, threads: int) -> subprocess.Popen[str]:
    env = dict(os.environ, FACTDEBATE_LLAMA_THREADS=str(threads), OMP_NUM_THREADS="1")
    code = ("import asyncio, json, sys; sys.path.insert(0, 'benchmarks'); from embedded_model import measure; "
            f"print(json.dumps(asyncio.run(measure({model!r}, {prompts}, {offset}))))")
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[1])


def processes(model: str, prompts: int, count: int, threads: int) -> float:
    """Prompt tokens per second of ``count`` processes started together, from the first prompt started to
    the last finished (model loading excluded, overlap included)."""
    runs = [child(model, prompts, 100 * n, threads) for n in range(count)]
    results = [json.loads(run.communicate()[0].strip().splitlines()[-1]) for run in runs]
    span = max(r["ended"] for r in results) - min(r["began"] for r in results)
    return sum(r["prompt_tokens"] for r in results) / span


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=4)
    args = parser.parse_args()
    os.environ.setdefault("FACTDEBATE_DATA_DIR", tempfile.mkdtemp(prefix="factdebate-bench-"))
    cores = os.cpu_count() or 1
    rows = {}
    for model in ("builtin-q4", "builtin"):
        rows[model] = asyncio.run(measure(model, args.prompts))
        print(f"{model:11s} prompt {rows[model]['prompt_tps']:7.1f} tok/s  generation {rows[model]['gen_tps']:6.1f} "
              f"tok/s  ({cores} threads, {rows[model]['prompt_tokens']} prompt tokens)", flush=True)
    one = processes("builtin", args.prompts, 1, cores)
    two = processes("builtin", args.prompts, 2, 1)
    print(f"builtin prompt throughput: 1 process x {cores} threads {one:.1f} tok/s; 2 processes x 1 thread "
          f"{two:.1f} tok/s")
    print(f"prompt_speedup_f16={rows['builtin']['prompt_tps'] / rows['builtin-q4']['prompt_tps']:.2f} "
          f"two_procs_vs_one={two / one:.2f}")


if __name__ == "__main__":
    main()
