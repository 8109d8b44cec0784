"""Speed of the offline model (Qwen2.5-Coder-1.5B) against the embedded SmolLM2-135M on this machine, in one run:
what llama.cpp itself does, what a factdebate call costs on top of it, what the settings factdebate loads the
model with are worth, and a claim end to end.

For each model, in a fresh process each (so one's memory and threads do not slow the other):

- **raw**: ``llama_cpp.Llama`` alone on distinct prompts (no prefix in common): prompt tokens per second and
  generated tokens per second, with the settings factdebate loads it with (flash attention on, batch 512,
  every usable core) and with each changed in turn: flash attention off, batch 128, one thread fewer;
- **per call**: factdebate's backend (``LlamaCppBackend``: the model's chat template, the state cache) on
  chat prompts of the same size, against what the raw speeds predict for the same tokens;
- **prefix cache**: two debaters' prompts called in turn (each with its own passages, each call extending its
  debater's previous one, as a debate's rounds do) with the state cache factdebate keeps and without it;
- **a claim** (``--claim``): ``factdebate verify --no-cache`` on "The Eiffel Tower is located in Paris."
  with each model: calls, tokens, wall and CPU seconds.

    FACTDEBATE_DATA_DIR=DIR .venv/bin/python benchmarks/offline_model_speed.py [--claim] [--prompts 2]

``DIR`` must hold both models (``factdebate setup``). Last line: ``offline_vs_tiny prompt=… generation=…
call_overhead=… prefix_cache=…`` (ratios: the offline model's speeds over SmolLM2's, factdebate's call time
over the raw prediction, and the turn-taking calls' time without the cache over with it, for the offline
model)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

MODELS = ("builtin", "qwen2.5-coder-1.5b")
PARIS = "The Eiffel Tower is located in Paris."


def passage(seed: int, facts: int) -> str:
    return " ".join(f"Town {seed}-{j} lies in region {j % 7} and has {j * 13 % 97} thousand people."
                    for j in range(facts))


def model_path(name: str) -> str:
    from factdebate.llm.llama_cpp import LlamaCppBackend

    return LlamaCppBackend(name).path


def raw_speeds(name: str, prompts: int, flash_attn: bool, n_batch: int, threads: int) -> dict[str, float]:
    """Prompt and generation tokens per second of llama.cpp alone, model loading excluded."""
    from llama_cpp import Llama

    llm: Any = Llama(model_path=model_path(name), n_ctx=4096, n_threads=threads, n_threads_batch=threads,
                n_batch=n_batch, flash_attn=flash_attn, verbose=False, seed=0)
    llm.create_completion("warm up", max_tokens=1)
    tokens, start = 0, time.perf_counter()
    for i in range(prompts):
        text = f"{passage(1000 + i, 40)}\nClaim: Town {i}-3 lies in region 3. Answer:"
        tokens += len(llm.tokenize(text.encode()))
        llm.create_completion(text, max_tokens=1, temperature=0)
    prompt_s = time.perf_counter() - start
    llm.reset()
    start = time.perf_counter()
    out = llm.create_completion("Write a long story about a lighthouse keeper.", max_tokens=64, temperature=0,
                                logit_bias={llm.token_eos(): -100.0})
    gen_s = time.perf_counter() - start
    generated = out["usage"]["completion_tokens"]
    return {"prompt_tps": tokens / prompt_s, "gen_tps": generated / gen_s, "prompt_tokens": tokens,
            "generated": generated}


async def per_call(name: str, prompts: int) -> dict[str, float]:
    """factdebate's backend on chat prompts: seconds and tokens per call (model load excluded)."""
    from factdebate.llm.base import GenParams
    from factdebate.llm.llama_cpp import LlamaCppBackend

    backend = LlamaCppBackend(name, n_ctx=4096)
    await backend.complete([{"role": "user", "content": "warm up"}], GenParams(max_tokens=1))
    seconds = prompt_tokens = completion_tokens = 0.0
    for i in range(prompts):
        content = f"{passage(2000 + i, 40)}\nClaim: Town {i}-3 lies in region 3. Say SUPPORTS or REFUTES, then why."
        start = time.perf_counter()
        done = await backend.complete([{"role": "user", "content": content}], GenParams(max_tokens=48))
        seconds += time.perf_counter() - start
        prompt_tokens += done.prompt_tokens
        completion_tokens += done.completion_tokens
    return {"seconds": seconds, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "calls": prompts}


def turn_taking(name: str, cached: bool, threads: int) -> dict[str, float]:
    """Two debaters called in turn for two rounds, each call its debater's previous prompt and answer plus a
    new turn: seconds for the four calls, with factdebate's state cache or without it."""
    from llama_cpp import Llama

    from factdebate.llm.llama_cpp import STATE_CACHE_BYTES
    from factdebate.llm.llama_states import prefix_cached_llama

    kwargs: dict[str, Any] = {"model_path": model_path(name), "n_ctx": 4096, "n_threads": threads,
                              "n_threads_batch": threads, "flash_attn": True, "verbose": False, "seed": 0}
    llm: Any = prefix_cached_llama(STATE_CACHE_BYTES, **kwargs) if cached else Llama(**kwargs)
    llm.create_completion("warm up", max_tokens=1)
    chats: list[list[dict[str, str]]] = [
        [{"role": "system", "content": "You are a fact-checker who argues from documents."},
         {"role": "user", "content": f"Documents: {passage(3000 + d, 30)}\nClaim: Town 7-3 lies in region 3."}]
        for d in range(2)]
    start = time.perf_counter()
    for round_ in range(2):
        for chat in chats:
            out = llm.create_chat_completion(chat, max_tokens=24, temperature=0)
            chat += [{"role": "assistant", "content": out["choices"][0]["message"]["content"] or ""},
                     {"role": "user", "content": f"Round {round_ + 2}: the other debater disagrees. Answer again."}]
    return {"seconds": time.perf_counter() - start}


def child_main(name: str, prompts: int) -> None:
    from factdebate.llm.llama_threads import default_threads

    threads = default_threads().threads
    found: dict[str, Any] = {"threads": threads, "raw": {}}
    for label, fa, batch, n in (("factdebate's", True, 512, threads), ("flash attention off", False, 512, threads),
                                ("batch 128", True, 128, threads), ("one thread fewer", True, 512,
                                                                    max(1, threads - 1))):
        if label == "one thread fewer" and n == threads:
            continue
        found["raw"][label] = raw_speeds(name, prompts, fa, batch, n)
        print(json.dumps({"progress": f"{name}: raw, {label}"}), file=sys.stderr, flush=True)
    found["call"] = asyncio.run(per_call(name, prompts))
    found["turns"] = {"cached": turn_taking(name, True, threads), "uncached": turn_taking(name, False, threads)}
    print(json.dumps(found))


def run_child(name: str, prompts: int) -> dict[str, Any]:
    code = (f"import sys; sys.path.insert(0, 'benchmarks'); from offline_model_speed import child_main; "
            f"child_main({name!r}, {prompts})")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def claim_run(name: str) -> dict[str, float]:
    """``factdebate verify --no-cache --json`` on the Paris claim with ``name``: its calls, tokens and times."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "factdebate"), "verify", PARIS, "--no-cache", "--json",
                           "--llm", f"llama-cpp:{name}"], cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True,
                          env=dict(os.environ, HF_HUB_OFFLINE="1"))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    verdict = json.loads(done.stdout)
    usage = verdict.get("usage", {})
    return {"label": verdict.get("label"), "decided_by": verdict.get("decided_by"), "calls": usage.get("llm_calls"),
            "prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
            "wall_s": wall, "cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=2, help="distinct prompts timed per measurement")
    parser.add_argument("--claim", action="store_true", help="also verify the Paris claim with each model")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    rows = {name: run_child(name, args.prompts) for name in MODELS}
    for name, row in rows.items():
        print(f"\n{name} ({row['threads']} threads)")
        for label, raw in row["raw"].items():
            print(f"  raw, {label:20s} prompt {raw['prompt_tps']:7.1f} tok/s  generation {raw['gen_tps']:6.1f} tok/s")
        base, call = row["raw"]["factdebate's"], row["call"]
        predicted = call["prompt_tokens"] / base["prompt_tps"] + call["completion_tokens"] / base["gen_tps"]
        row["overhead"] = call["seconds"] / predicted
        print(f"  per call (factdebate)     {call['seconds'] / call['calls']:6.2f} s for "
              f"{call['prompt_tokens'] / call['calls']:.0f} prompt + {call['completion_tokens'] / call['calls']:.0f} "
              f"generated tokens; raw speeds predict {predicted / call['calls']:.2f} s (x{row['overhead']:.2f})")
        turns = row["turns"]
        row["cache"] = turns["uncached"]["seconds"] / turns["cached"]["seconds"]
        print(f"  two debaters in turn, 4 calls: {turns['cached']['seconds']:.1f} s with the state cache, "
              f"{turns['uncached']['seconds']:.1f} s without (x{row['cache']:.2f})")
    if args.claim:
        print()
        for name in MODELS:
            c = claim_run(name)
            print(f"claim with {name}: {c['label']} by {c['decided_by']}, {c['calls']} calls, {c['prompt_tokens']} "
                  f"prompt + {c['completion_tokens']} completion tokens, {c['wall_s']:.0f} s wall, "
                  f"{c['cpu_s']:.0f} CPU-s", flush=True)
    tiny, offline = rows["builtin"]["raw"]["factdebate's"], rows["qwen2.5-coder-1.5b"]["raw"]["factdebate's"]
    print(f"\noffline_vs_tiny prompt={offline['prompt_tps'] / tiny['prompt_tps']:.3f} "
          f"generation={offline['gen_tps'] / tiny['gen_tps']:.3f} "
          f"call_overhead={rows['qwen2.5-coder-1.5b']['overhead']:.2f} "
          f"prefix_cache={rows['qwen2.5-coder-1.5b']['cache']:.2f}")


if __name__ == "__main__":
    main()
