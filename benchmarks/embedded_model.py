"""Speed of the embedded model (SmolLM2-135M, llama.cpp) as factdebate runs it, in one run.

``--threads``: the default thread count (llm/llama_threads.py) against every fixed count from 1 to
the usable cores, on the same short calls (a ~250-token prompt and 16 generated tokens, distinct prompts so
no prefix reuse), idle and while ``--busy K`` CPU burners this benchmark starts run beside it. Each count
runs in a fresh process (the default is chosen when the model loads, so it sees the burners), interleaved
over ``--repeat`` rounds, best time kept. ``--burner llama`` makes the busy processes other embedded-model
processes on every core (the old default) instead of Python loops. Prints the load average each scenario
started at, and a last line per scenario: ``busy=KxKIND load_at_start=… default=S(chose N) best=N:S
ratio=R`` (default time / best time) and each count's time.

    .venv/bin/python benchmarks/embedded_model.py --threads [--busy 0 2] [--burner spin|llama] [--repeat 2]

Without ``--threads``, prompt evaluation (distinct ~900-token prompts) and generation:
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


def short_prompt(i: int) -> str:
    facts = " ".join(f"Town {i}-{j} lies in region {j % 7}." for j in range(22))
    return f"{facts}\nClaim: Town {i}-3 lies in region 3. Say SUPPORTS or REFUTES, then why."


async def timed_calls(calls: int) -> dict[str, float]:
    """Seconds for ``calls`` short calls after a warm-up (model loading excluded), and the thread count."""
    backend = LlamaCppBackend("builtin")
    await backend.complete([{"role": "user", "content": "warm up"}], GenParams(max_tokens=1))
    threads = LlamaCppBackend._choices[(backend.path, backend.n_ctx)].threads
    print(json.dumps({"threads": threads}), flush=True)  # known even if the calls are stopped
    start = time.perf_counter()
    for i in range(calls):
        await backend.complete([{"role": "user", "content": short_prompt(i)}], GenParams(max_tokens=16))
    return {"seconds": time.perf_counter() - start, "threads": threads}


def time_threads(threads: int | None, calls: int, limit: float) -> dict[str, float]:
    """One fresh process running the calls with ``threads`` (None: the default); ``seconds`` is infinite
    when it ran past ``limit``."""
    env = {k: v for k, v in os.environ.items() if k != "FACTDEBATE_LLAMA_THREADS"}
    if threads is not None:
        env["FACTDEBATE_LLAMA_THREADS"] = str(threads)
    code = ("import asyncio, json, sys; sys.path.insert(0, 'benchmarks'); from embedded_model import timed_calls; "
            f"print(json.dumps(asyncio.run(timed_calls({calls}))))")
    run = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True,
                           cwd=Path(__file__).resolve().parents[1])
    try:
        out, _ = run.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        run.kill()
        out, _ = run.communicate()
    result: dict[str, float] = {"seconds": float("inf")}
    for line in out.strip().splitlines():
        result.update(json.loads(line))
    return result


async def keep_generating() -> None:
    """Another process on the embedded model with every core, as the old default ran it: its threads spin
    at each step's barrier too, so two such processes on the same cores wait on each other's spinning."""
    backend = LlamaCppBackend("builtin")
    for i in range(10**9):
        await backend.complete([{"role": "user", "content": short_prompt(1000 + i % 50)}], GenParams(max_tokens=64))


def burners(count: int, kind: str = "spin") -> list[subprocess.Popen[bytes]]:
    """``count`` processes that keep the machine busy (what other users' work does to a shared machine):
    ``spin``, a Python loop on one core each; ``llama``, the embedded model generating with every core."""
    if kind == "spin":
        code = "while True: pass"
        env = dict(os.environ)
    else:
        code = ("import asyncio, sys; sys.path.insert(0, 'benchmarks'); from embedded_model import keep_generating; "
                "asyncio.run(keep_generating())")
        env = dict(os.environ, FACTDEBATE_LLAMA_THREADS=str(int(os.cpu_count() or 1)))
    return [subprocess.Popen([sys.executable, "-c", code], env=env, cwd=Path(__file__).resolve().parents[1])
            for _ in range(count)]


def thread_scenarios(busy_counts: list[int], repeat: int, calls: int, limit: float, kind: str = "spin") -> None:
    from factdebate.util.cores import usable_cores

    counts = list(range(1, int(usable_cores()) + 1))
    summary = []
    for busy in busy_counts:
        hogs = burners(busy, kind)
        try:
            # let them reach the run queue (a llama burner loads its model first) before the default reads it
            time.sleep((2 if kind == "spin" else 8) if busy else 0)
            load = os.getloadavg()
            best: dict[str, float] = {}
            chosen: set[int] = set()
            for _ in range(repeat):
                for threads in [None, *counts]:
                    name = "default" if threads is None else str(threads)
                    found = time_threads(threads, calls, limit)
                    seconds = found["seconds"]
                    if threads is None and "threads" in found:
                        chosen.add(int(found["threads"]))
                    best[name] = min(best.get(name, float("inf")), seconds)
                    print(f"busy={busy}x{kind} threads={name:7s} {seconds:7.2f} s load={os.getloadavg()[0]:.2f}"
                          + (f" (chose {int(found['threads'])})" if threads is None and "threads" in found else "")
                          + (f" (stopped at {limit:.0f} s)" if seconds == float("inf") else ""), flush=True)
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
        fixed = {n: best[str(n)] for n in counts}
        top = min(fixed, key=lambda n: fixed[n])
        summary.append(f"busy={busy}x{kind} load_at_start={load[0]:.2f},{load[1]:.2f},{load[2]:.2f} "
                       f"default={best['default']:.2f}s(chose {sorted(chosen)}) best={top}:{fixed[top]:.2f}s "
                       f"ratio={best['default'] / fixed[top]:.2f} "
                       + " ".join(f"t{n}={fixed[n]:.2f}s" for n in counts))
    for line in summary:
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--threads", action="store_true", help="compare the default thread count with 1..N")
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 2], help="CPU burners beside each scenario")
    parser.add_argument("--repeat", type=int, default=2, help="interleaved rounds; the best time is kept")
    parser.add_argument("--burner", choices=("spin", "llama"), default="spin",
                        help="what the busy processes run: a Python loop, or the embedded model on every core")
    parser.add_argument("--calls", type=int, default=3, help="short calls timed per process")
    parser.add_argument("--limit", type=float, default=120, help="seconds before a process is stopped")
    args = parser.parse_args()
    os.environ.setdefault("FACTDEBATE_DATA_DIR", tempfile.mkdtemp(prefix="factdebate-bench-"))
    if args.threads:
        thread_scenarios(args.busy, args.repeat, args.calls, args.limit, args.burner)
        return
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
