"""Progress lines for a log: when stderr is not a terminal, a live bar shows nothing until the end (a 177 s
eval wrote one line), so long commands print a plain line every :data:`EVERY_S` seconds instead, whether or
not a claim finished in between (a claim on a slow model takes longer than that)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console

EVERY_S = 10.0  # the same interval as an index build's lines (corpus/progress.py)


def elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


class Ticker:
    """Prints ``"<label>: <describe()>, <m:ss> elapsed"`` every ``every`` seconds on ``console`` from a
    daemon thread, between ``__enter__`` and ``__exit__``; ``describe`` is called from that thread, so it
    should only read counters."""

    def __init__(self, console: Console, label: str, describe: Callable[[], str], *, every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._console, self._label, self._describe = console, label, describe
        self._every, self._clock = EVERY_S if every is None else every, clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0

    def line(self) -> str:
        return f"{self._label}: {self._describe()}, {elapsed(self._clock() - self._started)} elapsed"

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            with contextlib.suppress(Exception):  # a progress line is news, never a reason to stop the run
                self._console.print(self.line(), highlight=False, markup=False, soft_wrap=True)

    def __enter__(self) -> Ticker:
        self._started = self._clock()
        self._thread = threading.Thread(target=self._run, name=f"progress-{self._label}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self._every + 1)


def plain_lines(console: Console, enabled: bool) -> bool:
    """Whether a command's progress should be :class:`Ticker` lines rather than a live bar: asked for, and
    the console is not a terminal."""
    return enabled and not console.is_terminal
