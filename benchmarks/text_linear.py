"""Sentence splitting and span search against text length: both read a text once, so their time
grows with its length, not with its square.

Part 1 times, best of ``--repeats``, on prose of 10,000, 100,000 and 1,000,000 characters (short and long
sentences, abbreviations, decimals, quotes, line breaks): ``sentences`` (splitting), ``gate`` (splitting
and the check-worthiness rules: what a guard check reads first) and ``claim_spans`` for 12 claims, half of
them reworded (span search; the reworded ones need the folded text and the sentences' words). It prints
each time and its growth against the previous size (10x the text: a linear pass takes about 10x the time).
``--old`` adds the replaced splitter (kept as the oracle in tests/response_level/test_linear_spans.py) at
5,000 to 40,000 characters, for the before figures.

Part 2 runs what a guard request does with a 100,000-character reply, with scripted checker models
(tests/guard/support.py) in this process: ``check_text`` on it whole (``/v1/guard/check``) and the same
reply fed to ``StreamingCheck`` a word at a time (a streamed ``/v1/chat/completions``). A task ticking on
the event loop meanwhile gives the longest time the loop was held, which is what a ``/v1/health`` request
would have waited at most.

    .venv/bin/python benchmarks/text_linear.py [--repeats 3] [--old] [--no-guard]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from factdebate.guard_engine.gate import gate
from factdebate.response_level.spans import claim_spans, sentences

PROSE = ("The Eiffel Tower is a wrought-iron lattice tower in Paris. It was completed in 1889 and is 330 m tall. "
         "Dr. Gustave Eiffel's company designed and built it, e.g. its four curved legs. \"Is it the tallest?\" "
         "visitors ask. (It was, until 1930.) Around 5.8 million people visit it each year!\n"
         "Berlin is the capital of Germany; its TV tower is 368 m tall, and it opened in 1969.\n\n")
CLAIMS = ["The Eiffel Tower is a wrought-iron lattice tower in Paris.", "It was completed in 1889",
          "Berlin is the capital of Germany.", "Around 5.8 million people visit it each year!",
          "It opened in 1969", "the eiffel tower is a wrought-iron  lattice tower in paris",
          "Eiffel's company built the tower in Paris.", "The Berlin TV tower is 368 metres tall.",
          "About 5.8 million visitors come to the Eiffel Tower every year.", "The tower was the tallest until 1930.",
          "Gustave Eiffel designed the Eiffel Tower.", "The Moon is made of cheese."]


def prose(size: int) -> str:
    return (PROSE * (size // len(PROSE) + 1))[:size]


def best(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def growth(sizes: list[int], label: str, work: Callable[[str], object], repeats: int) -> None:
    previous: tuple[int, float] | None = None
    for size in sizes:
        text = prose(size)
        seconds = best(lambda text=text: work(text), repeats)  # type: ignore[misc]
        ratio = f"  x{seconds / previous[1]:.1f} for x{size / previous[0]:g} the text" if previous else ""
        print(f"  {label:<12} {size:>9,} chars  {seconds * 1000:9.1f} ms{ratio}")
        previous = (size, seconds)


def part_one(repeats: int, old: bool) -> None:
    sizes = [10_000, 100_000, 1_000_000]
    print("Splitting and span search (best of", repeats, "runs):")
    growth(sizes, "sentences", sentences, repeats)
    growth(sizes, "gate", gate, repeats)
    growth(sizes, "claim_spans", lambda text: claim_spans(CLAIMS, text), repeats)
    if old:
        from tests.response_level.test_linear_spans import old_sentences

        print("The replaced splitter:")
        growth([5_000, 10_000, 20_000, 40_000], "old sentences", old_sentences, 1)


def _responder() -> Any:
    """tests/guard/support.py's checker, with claims that are the sentences of the text given (at most 12), asked
    apart or in the fast tier's window call."""
    from tests.guard.support import extracting_by

    def extracted(prompt: str) -> str:
        text = prompt.split("Text:\n", 1)[1].split("\n\nReply with", 1)[0]
        return json.dumps({"claims": [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s][:12]})

    return extracting_by(extracted)


async def _held(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """(seconds, the longest the event loop went without running the ticker, what ``run`` returned)."""
    longest, last = 0.0, time.perf_counter()

    async def ticker() -> None:
        nonlocal longest, last
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            longest, last = max(longest, now - last), now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    started = last = time.perf_counter()
    result = await run()
    seconds = time.perf_counter() - started
    tick.cancel()
    return seconds, longest, result


async def part_two(size: int) -> None:
    from factdebate.guard_engine import GuardOptions, StreamingCheck, check_text
    from tests.helpers import resources_for

    text = prose(size)
    resources, backend, _ = resources_for(_responder(), method="single",
                                          guard={"tier": "fast", "max_tier": "fast", "deadline_s": 120})
    options = GuardOptions()
    async with resources:
        whole = await _held(lambda: check_text(text, resources.settings, resources, options=options))
        calls = len(backend.calls)

        async def stream() -> Any:
            check = StreamingCheck(resources.settings, resources, options=options)
            for n, word in enumerate(re.findall(r"\S+\s*", text)):
                check.feed(word)
                if n % 4 == 0:
                    await asyncio.sleep(0)  # the relay hands over deltas as they arrive
            return await check.finish()

        streamed = await _held(stream)
    print(f"A guard check of a {size:,}-character reply (scripted checker models):")
    print(f"  check_text whole:   {whole[0]:6.2f} s, {len(whole[2].claims)} claims, {calls} model calls; "
          f"loop held at most {whole[1] * 1000:.0f} ms")
    print(f"  streamed by word:   {streamed[0]:6.2f} s, {len(streamed[2].claims)} claims, "
          f"{len(backend.calls) - calls} model calls; loop held at most {streamed[1] * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--old", action="store_true", help="time the replaced splitter too (5k to 40k)")
    parser.add_argument("--no-guard", action="store_true", help="part 1 only")
    parser.add_argument("--guard-chars", type=int, default=100_000)
    args = parser.parse_args()
    part_one(args.repeats, args.old)
    if not args.no_guard:
        asyncio.run(part_two(args.guard_chars))


if __name__ == "__main__":
    main()
