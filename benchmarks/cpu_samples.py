"""Where a process spends its CPU: a ``SIGPROF`` timer (``setitimer(ITIMER_PROF)``) fires each ``interval`` of the
process's CPU time and the handler records the main thread's Python stack, so a loaded machine's waits count for
nothing (a wall-clock sampler counts them). Kept as folded stacks (``a;b;c count``, flame-graph input) and read
with :func:`shares`, which files each sample under the first of a list of named parts found in its stack.

Used by benchmarks/guard_vs_litellm.py (``FACTDEBATE_BENCH_CPU_SAMPLES=FILE``: the guard process samples itself
and writes FILE when it stops). A sample taken as the loop resumes a coroutine counts the work of the kernel
call that woke it there: the signal is handled between two bytecodes of the main thread."""

from __future__ import annotations

import signal
from collections import Counter
from pathlib import Path
from types import FrameType


class Sampler:
    def __init__(self, interval_s: float = 0.001) -> None:
        self.interval_s = interval_s
        self.stacks: Counter[str] = Counter()

    def _take(self, _signum: int, frame: FrameType | None) -> None:
        names = []
        while frame is not None:
            code = frame.f_code
            names.append(f"{code.co_filename}:{code.co_name}")
            frame = frame.f_back
        self.stacks[";".join(reversed(names))] += 1

    def start(self) -> None:
        signal.signal(signal.SIGPROF, self._take)
        signal.setitimer(signal.ITIMER_PROF, self.interval_s, self.interval_s)

    def stop(self, path: Path) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        path.write_text("".join(f"{stack} {count}\n" for stack, count in self.stacks.items()))


def shares(path: Path, parts: list[tuple[str, str]], skip: str = "importlib") -> list[tuple[str, int]]:
    """(part, samples) for each named part, in the order given: a sample goes to the first part in that order
    whose marker (a piece of ``file:function``; a part may be listed with several) any frame of its stack
    holds, so an outer part listed first takes what it calls (the checker's calls before the check that makes
    them); ``rest`` takes what none holds. Stacks holding ``skip`` (the start-up's imports) are left out."""
    counts: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if skip and skip in stack:
            continue
        part = next((name for name, marker in parts if marker in stack), "rest")
        counts[part] += int(count)
    names = dict.fromkeys(name for name, _ in parts)  # a part may have several markers: named once, in order
    return [(name, counts[name]) for name in names if counts[name]] + [("rest", counts["rest"])]


# The guard's parts, outer ones first (benchmarks/guard_vs_litellm.py's guard: the chat door, a fast-tier check).
GUARD_PARTS = [
    ("checker calls: the model layers and the HTTP client", "llm/model.py:"),
    ("checker calls: the model layers and the HTTP client", "llm/openai_compat.py:"),
    ("events, spans and kept calls", "core/runtime.py:"),
    ("events, spans and kept calls", "server/state/"),
    ("events, spans and kept calls", "util/observe.py:"),
    ("the check's own logic", "factdebate/guard_engine/"),
    ("the check's own logic", "factdebate/response_level/"),
    ("the check's own logic", "factdebate/methods/"),
    ("the check's own logic", "factdebate/run/"),
    ("reading the upstream", "server/guard/upstream.py:"),
    ("the relay: frames, policy, Starlette's streaming", "server/guard/openai_chat/stream.py:"),
    ("the relay: frames, policy, Starlette's streaming", "starlette/responses.py:"),
    ("middlewares, route, settings, admission", "factdebate/server/"),
    ("middlewares, route, settings, admission", "factdebate/settings/"),
    ("middlewares, route, settings, admission", "fastapi/"),
    ("middlewares, route, settings, admission", "starlette/"),
    ("uvicorn and h11", "uvicorn/protocols/"),
    ("uvicorn and h11", "h11/"),
    ("the event loop", "asyncio/"),
    ("the event loop", "selectors.py:"),
]

if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="a samples file's shares, by the guard's parts")
    parser.add_argument("samples", type=Path)
    parser.add_argument("--ms-per-reply", type=float, default=0.0, help="the run's CPU per reply: also in ms")
    args = parser.parse_args()
    found = shares(args.samples, GUARD_PARTS)
    total = sum(count for _, count in found) or 1
    for name, count in found:
        share = count / total
        extra = f"  {share * args.ms_per_reply:5.1f} ms" if args.ms_per_reply else ""
        print(f"{share:6.1%}  {count:6d}{extra}  {name}")
