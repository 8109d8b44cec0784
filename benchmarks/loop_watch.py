"""Which callbacks hold an asyncio event loop long: every callback timed, and a long one's stack sampled.

For a benchmark's server process only (benchmarks/guard_load.py starts its guard with it when
``FACTDEBATE_BENCH_LOOP_WATCH`` names a file): ``asyncio.events.Handle._run`` is wrapped to time each
callback, and SIGALRM every half millisecond samples the loop's stack while a callback has run longer
than ``threshold_ms`` (the innermost frames of this project and its libraries), so
what is slow is named, not just the task that was stepping. ``report()`` writes the callbacks' duration
percentiles, every callback's total by name (a task's step: its coroutine's name), and the slow stacks,
most frequent first, as JSON.
"""

from __future__ import annotations

import asyncio.events
import gc
import heapq
import json
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

_durations: list[float] = []
_stacks: Counter[str] = Counter()
_stack_ms: dict[str, float] = {}
_all_ms: dict[str, float] = {}  # every callback's ms and count, by name
_all_n: Counter[str] = Counter()
_slow_cpu: list[float] = [0.0, 0.0]  # the slow callbacks' wall ms and CPU ms
_longest: list[tuple[float, float, str, str]] = []  # the 10 longest: ms, seconds since install, name, a stack
_last_stack: list[str] = [""]  # the stack last sampled in the running callback
_gc_started: list[float] = [0.0]
_gc_ms: dict[int, list[float]] = {}  # each collection's ms, by generation
_current: list[float] = [0.0]  # the running callback's start (0: none running)
_full: list[tuple[float, float, int, int]] = []  # each full collection: s since install, ms, objects left, freed


def _where(frame: FrameType | None) -> str:
    """The innermost eight frames outside asyncio, innermost first (walked by hand: cheap, no recursion)."""
    lines: list[str] = []
    while frame is not None and len(lines) < 8:
        code = frame.f_code
        if "asyncio" not in code.co_filename and "loop_watch" not in code.co_filename:
            lines.append(f"{Path(code.co_filename).name}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
    return " <- ".join(lines)


def _name(handle: asyncio.events.Handle) -> str:
    """The callback's name; a task's step names the task's coroutine."""
    callback = handle._callback  # type: ignore[attr-defined]
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro = task.get_coro()
        return f"task {getattr(coro, '__qualname__', type(coro).__name__)}"
    return getattr(callback, "__qualname__", repr(callback))


def install(path: Path, threshold_ms: float = 5.0) -> None:
    """Time the loop's callbacks from now on; the report goes to ``path`` when SIGTERM ends the process
    (uvicorn restores this handler and raises the signal again once it has shut down)."""
    def stop(*_: object) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)  # no sample may change the counts while they are written
        report(path)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    original = asyncio.events.Handle._run
    since = time.perf_counter()

    def timed(self: asyncio.events.Handle) -> None:
        started, cpu = time.perf_counter(), time.thread_time()
        _current[0], _last_stack[0] = started, ""
        try:
            original(self)
        finally:
            _current[0] = 0.0
            took = 1000 * (time.perf_counter() - started)
            _durations.append(took)
            name = _name(self)
            _all_ms[name] = _all_ms.get(name, 0.0) + took
            _all_n[name] += 1
            if took > threshold_ms:
                if len(_longest) < 10 or took > _longest[0][0]:
                    heapq.heappush(_longest, (took, started - since, name, _last_stack[0]))
                    if len(_longest) > 10:
                        heapq.heappop(_longest)
                _stack_ms[name] = _stack_ms.get(name, 0.0) + took
                # wall against the loop thread's CPU: a long callback that used little CPU was preempted
                _slow_cpu[0] += took
                _slow_cpu[1] += 1000 * (time.thread_time() - cpu)

    def sample(_signum: int, frame: FrameType | None) -> None:
        # a signal handler runs on the loop's thread between bytecodes, so the frame is where the time goes
        # (a thread sampling it would only get the GIL where the loop releases it: a socket write)
        started = _current[0]
        if started and frame is not None and time.perf_counter() - started > threshold_ms / 1000:
            _last_stack[0] = _where(frame)
            _stacks[_last_stack[0]] += 1

    def collected(phase: str, info: dict[str, int]) -> None:
        # the garbage collector's pauses, by generation: a full collection stops the loop wherever it allocates
        if phase == "start":
            _gc_started[0] = time.perf_counter()
        else:
            took = 1000 * (time.perf_counter() - _gc_started[0])
            _gc_ms.setdefault(info["generation"], []).append(took)
            if info["generation"] == 2:  # what a full pass walked: the objects it left (outside gc.freeze)
                _full.append((_gc_started[0] - since, took, len(gc.get_objects()), info.get("collected", 0)))

    gc.callbacks.append(collected)
    asyncio.events.Handle._run = timed  # type: ignore[method-assign]
    signal.signal(signal.SIGALRM, sample)
    signal.setitimer(signal.ITIMER_REAL, 0.0005, 0.0005)


def report(path: Path) -> None:
    ordered = sorted(_durations)

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3) if ordered else 0.0

    summary: dict[str, Any] = {
        "callbacks": len(ordered), "p50_ms": at(0.5), "p99_ms": at(0.99), "p999_ms": at(0.999),
        "max_ms": round(ordered[-1], 2) if ordered else 0.0,
        "over_5ms": sum(d > 5 for d in ordered), "over_10ms": sum(d > 10 for d in ordered),
        "total_ms_over_5ms": round(sum(d for d in ordered if d > 5), 1),
        "slow_wall_ms_cpu_ms": [round(_slow_cpu[0], 1), round(_slow_cpu[1], 1)],
        "callbacks_by_name": {name: {"ms": round(ms, 1), "n": _all_n[name], "mean_ms": round(ms / _all_n[name], 3)}
                              for name, ms in sorted(_all_ms.items(), key=lambda item: -item[1])[:12]},
        "slow_callbacks_ms": {name: round(ms, 1)
                              for name, ms in sorted(_stack_ms.items(), key=lambda item: -item[1])[:15]},
        "gc_by_generation": {generation: {"n": len(ms), "total_ms": round(sum(ms), 1), "max_ms": round(max(ms), 2)}
                             for generation, ms in sorted(_gc_ms.items())},
        "full_collections": [{"at_s": round(at, 2), "ms": round(ms, 1), "objects_left": left, "freed": freed}
                             for at, ms, left, freed in _full],
        "longest": [{"ms": round(ms, 1), "at_s": round(at, 2), "name": name, "stack": stack}
                    for ms, at, name, stack in sorted(_longest, reverse=True)],
        "slow_stack_samples": [{"count": count, "stack": stack} for stack, count in _stacks.most_common(25)]}
    path.write_text(json.dumps(summary, indent=1))
