"""How many threads the in-process llama.cpp model runs with.

llama.cpp's worker threads spin while they wait for each other. With more threads runnable than cores, a
spinning thread holds the core the awaited one needs, and every call slows tenfold or more
(docs/configuration.md); one thread too few costs at most what it would have added. So the default takes the
cores this process may use less those other processes keep busy, re-read before a call (at most every
``REREAD_S`` seconds): a process that loaded its model during a build runs on every core once the build is over.
``FACTDEBATE_LLAMA_THREADS`` overrides it."""

from __future__ import annotations

import math
import os
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from factdebate.util.cores import usable_cores
from factdebate.util.errors import ConfigError

ENV = "FACTDEBATE_LLAMA_THREADS"
# A 135M model gains nothing from more threads than this (the per-token work is too small to split further).
MAX_THREADS = 8
# Runnable-task samples taken at load: a steady neighbour shows in each, a short-lived command in few.
SAMPLES = 5
SAMPLE_GAP_S = 0.02
# How old a reading a call may use: a reading sleeps about 80 ms (the samples' gaps), and what it follows, a
# build or an evaluation beside this process, lasts minutes, so calls in a burst share one.
REREAD_S = 5.0


@dataclass(frozen=True)
class ThreadChoice:
    threads: int
    reason: str  # why this count, as the trace and the log say it


def threads_for(cores: float, busy: float, cap: int = MAX_THREADS) -> int:
    """The cores left free, rounded, at least 1 and at most ``cap``."""
    return max(1, min(cap, math.floor(cores - busy + 0.5)))


def threads_from_env(environ: dict[str, str] | None = None) -> int | None:
    """``FACTDEBATE_LLAMA_THREADS``, when set (a usage error when it is not a positive integer)."""
    raw = (os.environ if environ is None else environ).get(ENV, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"{ENV} must be a positive integer, got '{raw}'")
    return int(raw)


def _own_running() -> int:
    """This process's threads that are runnable now (the one reading, at least)."""
    running = 0
    for stat in Path("/proc/self/task").glob("*/stat"):
        try:
            state = stat.read_text(encoding="ascii").rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        running += state == "R"
    return max(running, 1)


def _runnable_threads(pid: str) -> int:
    """The runnable threads of process ``pid`` (0 once it has ended)."""
    running = 0
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            running += stat.read_text(encoding="ascii").rsplit(")", 1)[1].split()[0] == "R"
        except (OSError, IndexError):
            continue
    return running


def _niced_children_running() -> int:
    """Runnable threads of this process's children that run at a lower priority (a positive nice, as the
    built-in corpus's background vector build runs: corpus/vectors_later.py). They yield the core to these
    threads (at nice 10 the scheduler gives them about a tenth of it), so they leave it free for the model:
    counted as busy, they put the model on one thread and the build took the other core whole (the Python
    quick start's check missed its deadline beside it)."""
    running = 0
    for children in Path("/proc/self/task").glob("*/children"):
        try:
            pids = children.read_text(encoding="ascii").split()
        except OSError:
            continue
        for pid in pids:
            try:
                nice = int(Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[16])
            except (OSError, IndexError, ValueError):
                continue
            if nice > 0:
                running += _runnable_threads(pid)
    return running


def _others_running() -> float | None:
    """Runnable threads of other processes now, from ``/proc/loadavg``'s fourth field, but this process's niced
    children (:func:`_niced_children_running`); None off Linux."""
    try:
        running = int(Path("/proc/loadavg").read_text(encoding="ascii").split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):
        return None
    return max(0, running - _own_running() - _niced_children_running())


def busy_cores(cores: float) -> tuple[float, str]:
    """How many of this process's cores other processes keep busy, and how that was read: the median runnable
    count (the load average still counts a command that ended a minute ago), scaled to this process's share."""
    samples = []
    for n in range(SAMPLES):
        found = _others_running()
        if found is None:
            break
        samples.append(found)
        if n < SAMPLES - 1:
            time.sleep(SAMPLE_GAP_S)
    if samples:
        busy, how = statistics.median(samples), "runnable threads of other processes now"
    elif hasattr(os, "getloadavg"):
        busy, how = os.getloadavg()[0], "1-minute load average"
    else:
        return 0.0, "no load reading on this system"
    machine = os.cpu_count() or cores
    return busy * min(1.0, cores / machine), how


def measured_threads(cores_of: Callable[[], float] | None = None,
                     busy_of: Callable[[float], tuple[float, str]] | None = None) -> ThreadChoice:
    """The free cores now (the usable cores less the busy ones), with the reason recorded in the trace;
    ``cores_of`` and ``busy_of`` replace the readings (tests)."""
    cores = (cores_of or usable_cores)()
    busy, how = (busy_of or busy_cores)(cores)
    threads = threads_for(cores, busy)
    return ThreadChoice(threads, f"{cores:g} usable cores, {busy:.1f} busy ({how}), re-read before a call at most "
                                 f"every {REREAD_S:g} s; oversubscribed threads spin-wait, so the free cores, at "
                                 f"least 1, at most {MAX_THREADS} ({ENV} overrides)")


def default_threads(environ: dict[str, str] | None = None) -> ThreadChoice:
    """The thread count for a call now: ``FACTDEBATE_LLAMA_THREADS`` where set, else the free cores."""
    given = threads_from_env(environ)
    if given is not None:
        return ThreadChoice(given, f"set by {ENV}")
    return measured_threads()


class LiveThreads:
    """The thread count for the next call: the free cores, read again once the last reading is ``every``
    seconds old. One per process (the readings are the machine's, whichever model asks)."""

    def __init__(self, cores_of: Callable[[], float] | None = None,
                 busy_of: Callable[[float], tuple[float, str]] | None = None, every: float = REREAD_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._cores_of, self._busy_of = cores_of, busy_of
        self._every, self._clock = every, clock
        self._lock = threading.Lock()  # callers waiting on one reading share it rather than each take one
        self._last: tuple[float, ThreadChoice] | None = None

    def fresh(self) -> ThreadChoice | None:
        """The last reading while it is young enough, else None; never reads (the event loop calls this)."""
        last = self._last
        return last[1] if last is not None and self._clock() - last[0] < self._every else None

    def current(self) -> ThreadChoice:
        """The last reading while it is young enough, else a new one (about 80 ms: call off the event loop)."""
        with self._lock:
            found = self.fresh()
            if found is None:
                found = measured_threads(self._cores_of, self._busy_of)
                self._last = (self._clock(), found)
            return found
