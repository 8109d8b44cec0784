"""What re-choosing the embedded model's thread count per call buys a process that loaded its model on a busy
machine and now runs on an idle one (a ``factdebate serve`` started during a build).

In one process, the embedded model (``llama-cpp:builtin``, SmolLM2-135M F16) loads while the load reader
reports a build (four runnable threads per usable core, as ``llm_threads`` reported "2 usable cores, 8.0 busy"),
so it loads with 1 thread. The reading then ages past ``REREAD_S`` and the machine's real load is read. Two
backends share that one model, called in turn over ``--rounds`` rounds (best kept):

- **1 thread**: a fixed count of 1, what such a process ran with when the count was chosen only at load;
- **re-chosen**: the default, the free cores read before the call (llm/llama_threads.py).

Each call is a distinct prompt (no prefix reuse): one ~500-token prompt with 1 token written (prompt tokens/s),
then one short prompt with up to ``--tokens`` written (generated tokens/s). Run it on an idle machine:

    .venv/bin/python benchmarks/rechosen_threads.py [--rounds 3] [--tokens 64]

Last line: ``one_thread prompt=P tok/s gen=G tok/s; rechosen(N threads) prompt=P tok/s gen=G tok/s;
speedup prompt=A gen=B``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from factdebate.llm.base import GenParams
from factdebate.llm.llama_cpp import LlamaCppBackend
from factdebate.llm.llama_threads import REREAD_S, LiveThreads, busy_cores


def long_prompt(i: int) -> str:
    facts = " ".join(f"Town {i}-{j} lies in region {j % 7} and has {j * 13 % 97} thousand people." for j in range(24))
    return f"{facts}\nClaim: Town {i}-3 lies in region 3. Say SUPPORTS or REFUTES."


def build_then_real() -> LiveThreads:
    """A load reader whose first reading is a build on every core, and every later one the machine's own."""
    readings = 0

    def busy(cores: float) -> tuple[float, str]:
        nonlocal readings
        readings += 1
        return (4.0 * cores, "a build, simulated") if readings == 1 else busy_cores(cores)

    return LiveThreads(busy_of=busy)


async def one_round(backend: LlamaCppBackend, i: int, tokens: int) -> tuple[float, float]:
    """Prompt and generated tokens per second of one call each."""
    start = time.perf_counter()
    read = await backend.complete([{"role": "user", "content": long_prompt(i)}], GenParams(max_tokens=1))
    prompt_tps = read.prompt_tokens / (time.perf_counter() - start)
    start = time.perf_counter()
    wrote = await backend.complete([{"role": "user", "content": f"Tell a long story about lighthouse {i}."}],
                                   GenParams(max_tokens=tokens))
    return prompt_tps, wrote.completion_tokens / (time.perf_counter() - start)


async def run(rounds: int, tokens: int) -> None:
    os.environ.pop("FACTDEBATE_LLAMA_THREADS", None)
    LlamaCppBackend._live = build_then_real()
    rechosen, fixed = LlamaCppBackend("builtin"), LlamaCppBackend("builtin", threads=1)
    key = (rechosen.path, rechosen.n_ctx)
    await rechosen.complete([{"role": "user", "content": "warm up"}], GenParams(max_tokens=1))
    print(f"loaded with {LlamaCppBackend._choices[key].threads} thread(s): {LlamaCppBackend._choices[key].reason}",
          flush=True)
    time.sleep(REREAD_S)  # the build's reading ages; the next re-chosen call reads the machine
    best: dict[str, list[float]] = {"one_thread": [0.0, 0.0], "rechosen": [0.0, 0.0]}
    chosen: set[int] = set()
    for n in range(rounds):
        for name, backend in (("one_thread", fixed), ("rechosen", rechosen)):
            prompt_tps, gen_tps = await one_round(backend, 100 * n + len(name), tokens)
            threads = LlamaCppBackend._choices[key].threads
            if name == "rechosen":
                chosen.add(threads)
            best[name] = [max(best[name][0], prompt_tps), max(best[name][1], gen_tps)]
            print(f"round {n} {name:10s} threads={threads} prompt {prompt_tps:7.1f} tok/s  gen {gen_tps:6.1f} tok/s  "
                  f"load={os.getloadavg()[0]:.2f}", flush=True)
    one, again = best["one_thread"], best["rechosen"]
    print(f"one_thread prompt={one[0]:.1f} tok/s gen={one[1]:.1f} tok/s; rechosen({sorted(chosen)} threads) "
          f"prompt={again[0]:.1f} tok/s gen={again[1]:.1f} tok/s; speedup prompt={again[0] / one[0]:.2f} "
          f"gen={again[1] / one[1]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best speed is kept")
    parser.add_argument("--tokens", type=int, default=64, help="tokens written per generation")
    args = parser.parse_args()
    os.environ.setdefault("FACTDEBATE_DATA_DIR", tempfile.mkdtemp(prefix="factdebate-bench-"))
    asyncio.run(run(args.rounds, args.tokens))


if __name__ == "__main__":
    main()
