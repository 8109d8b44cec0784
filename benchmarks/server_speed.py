"""How fast a model server reads and writes, measured through factdebate's own client, and the
``llm.timeout`` that fits it (docs/configuration.md, "Timeouts and in-flight limits").

Two kinds of request, one at a time, each a few times (the median is kept):

- a long prompt and one generated token: prompt tokens per second (the server reading);
- a short prompt and ``--gen-tokens`` to write: generated tokens per second (the server writing), from
  the time left once the short prompt's reading is taken off.

The slowest call the methods make is about ``--worst-prompt`` prompt tokens (a DPD ballot: both teams'
statements and the evidence they cite) and ``--worst-gen`` generated ones (the ballot's cap, 480); the
suggested timeout is that call's time on this server times ``--margin`` (2: a machine that is busy with
other work served at half its idle speed in our runs), rounded up to ten seconds. Run it while the
machine is as busy as it will be during the evaluation: the speed of an idle machine sizes nothing.

    OPENAI_BASE_URL=http://127.0.0.1:8080/v1 python benchmarks/server_speed.py --llm openai:smollm2
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import time
from dataclasses import dataclass

from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings

FILLER = "The river runs past the old mill and under the stone bridge before it reaches the sea. "


@dataclass(frozen=True)
class Speed:
    prompt_tps: float  # prompt tokens read per second
    gen_tps: float  # tokens generated per second

    def call_seconds(self, prompt_tokens: int, gen_tokens: int) -> float:
        return prompt_tokens / self.prompt_tps + gen_tokens / self.gen_tps


def suggested_timeout(speed: Speed, *, worst_prompt: int = 2000, worst_gen: int = 480, margin: float = 2.0) -> int:
    """Seconds for ``llm.timeout``: the slowest call's time at ``speed``, times ``margin``, rounded up to
    ten seconds, and never under 120 (the default, which a fast server does not need lowered)."""
    seconds = speed.call_seconds(worst_prompt, worst_gen) * margin
    return max(120, math.ceil(seconds / 10.0) * 10)


async def _timed(llm: LLM, text: str, max_tokens: int) -> tuple[float, int, int]:
    messages: list[Message] = [{"role": "user", "content": text}]
    started = time.perf_counter()
    reply = await llm.complete(messages, GenParams(temperature=0.0, max_tokens=max_tokens))
    return time.perf_counter() - started, reply.prompt_tokens, reply.completion_tokens


async def measure(llm: LLM, *, prompt_words: int = 800, gen_tokens: int = 128, repeats: int = 3) -> Speed:
    """The server's reading and writing speeds, each the median of ``repeats`` requests."""
    reads, writes = [], []
    long_prompt = (FILLER * (prompt_words // len(FILLER.split()) + 1)) + "\nSay yes."
    for i in range(repeats):  # the number keeps a server's prompt cache from answering the repeat
        seconds, prompt_tokens, _ = await _timed(llm, f"Note {i}. " + long_prompt, 1)
        reads.append(prompt_tokens / seconds if seconds > 0 else float("inf"))
    prompt_tps = statistics.median(reads)
    for i in range(repeats):
        seconds, prompt_tokens, written = await _timed(
            llm, f"Note {i}. Write a long story about a river, a mill and a bridge.", gen_tokens)
        writing = max(seconds - prompt_tokens / prompt_tps, 1e-6)
        writes.append(max(written, 1) / writing)
    return Speed(round(prompt_tps, 2), round(statistics.median(writes), 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", required=True, help="the model as factdebate names it, e.g. openai:smollm2")
    parser.add_argument("--gen-tokens", type=int, default=128)
    parser.add_argument("--prompt-words", type=int, default=800)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--worst-prompt", type=int, default=2000)
    parser.add_argument("--worst-gen", type=int, default=480)
    parser.add_argument("--margin", type=float, default=2.0)
    args = parser.parse_args()
    # No cache (every request reaches the server) and a long timeout (a slow server is what is measured).
    settings = load_settings(overrides={"llm": {"debater": args.llm, "cache": False, "timeout": 3600,
                                                "retries": 1}})
    llm = build_resources(settings).llm("debater")
    speed = asyncio.run(measure(llm, prompt_words=args.prompt_words, gen_tokens=args.gen_tokens,
                                repeats=args.repeats))
    worst = speed.call_seconds(args.worst_prompt, args.worst_gen)
    timeout = suggested_timeout(speed, worst_prompt=args.worst_prompt, worst_gen=args.worst_gen, margin=args.margin)
    print(f"prompt_tps={speed.prompt_tps} gen_tps={speed.gen_tps} "
          f"worst_call_s={worst:.1f} (prompt {args.worst_prompt}, generated {args.worst_gen}) "
          f"suggested_timeout_s={timeout}")
    print(f"FACTDEBATE_LLM__TIMEOUT={timeout}")


if __name__ == "__main__":
    main()
