"""Progress for index builds: a live bar on a terminal, plain lines anywhere else.

Logs, CI and service journals are not terminals; a redrawn bar there is either invisible until the end or
a mess of control codes, so they get a line when a stage starts, one every :data:`LINE_EVERY_S` seconds with
the count, the speed over the last interval and the time left at that speed (a build on a busy machine ran 15
minutes; with nothing in between it looked hung), and one when it ends. The bar on a terminal estimates from
the same recent window.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

LINE_EVERY_S = 10.0  # off a terminal: seconds between progress lines


class StageReporter(Protocol):
    def stage(self, description: str, total: int) -> None: ...
    def advance(self, n: int) -> None: ...
    def done(self) -> None: ...
    def note(self, text: str) -> None: ...


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f} passages/s" if speed else "… passages/s", style="progress.data.speed")


class _Bar:
    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._task: object | None = None

    def stage(self, description: str, total: int) -> None:
        self._task = self._progress.add_task(description, total=total)

    def advance(self, n: int) -> None:
        if self._task is not None:
            self._progress.advance(self._task, n)  # type: ignore[arg-type]

    def done(self) -> None:
        if self._task is not None:
            task = self._progress.tasks[-1]
            self._progress.update(self._task, completed=task.total)  # type: ignore[arg-type]

    def note(self, text: str) -> None:
        self._progress.console.print(f"[dim]{text}[/dim]", highlight=False)


def duration(seconds: float) -> str:
    """``"about 40 s"``, ``"about 14 min"``: a rough figure reads better than a precise one that moves."""
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    return f"about {round(seconds / 60)} min"


class _Lines:
    def __init__(self, console: Console, every: float = LINE_EVERY_S,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._console = console
        self._every = every
        self._clock = clock
        self._description = ""
        self._total = 0
        self._done = 0
        self._started = self._last = 0.0
        self._recent: deque[tuple[float, int]] = deque()  # (time, passages done), the last interval's

    def stage(self, description: str, total: int) -> None:
        self._description, self._total, self._done = description, total, 0
        self._started = self._last = self._clock()
        self._recent = deque([(self._started, 0)])
        self._console.print(f"{description}: {total} passages…", highlight=False)

    def advance(self, n: int) -> None:
        self._done += n
        now = self._clock()
        self._recent.append((now, self._done))
        # The speed over the last interval, not since the start: the encoder warms up (5 passages/s in the first
        # seconds, 50 later on the 2-core machine), and the average since the start said 1.5-5x the time left.
        while len(self._recent) > 2 and self._recent[1][0] <= now - self._every:
            self._recent.popleft()
        if now - self._last < self._every or self._done >= self._total:
            return
        self._last = now
        since, done_then = self._recent[0]
        rate = (self._done - done_then) / max(now - since, 1e-9)
        if since == self._started:  # the window holds the first batch, which carries the encoder's warm-up
            if len(self._recent) < 3:  # that batch alone: its speed says little about the rest
                left = ", time left after the next batch"
            else:
                since, done_then = self._recent[1]
                rate = (self._done - done_then) / max(now - since, 1e-9)
                left = f", {duration((self._total - self._done) / rate)} left at this speed" if rate > 0 else ""
        else:
            left = f", {duration((self._total - self._done) / rate)} left at this speed" if rate > 0 else ""
        self._console.print(f"{self._description}: {self._done:,} of {self._total:,} passages "
                            f"({100 * self._done // max(self._total, 1)}%), {rate:.1f}/s{left}", highlight=False)

    def done(self) -> None:
        seconds = self._clock() - self._started
        self._console.print(f"{self._description}: done in {seconds:.1f}s", highlight=False)

    def note(self, text: str) -> None:
        self._console.print(text, highlight=False)


class _Silent:
    def stage(self, description: str, total: int) -> None:
        pass

    def advance(self, n: int) -> None:
        pass

    def done(self) -> None:
        pass

    def note(self, text: str) -> None:
        pass


# (stage, passages done, passages in the stage): whoever in this process follows a build as it goes (the MCP
# server, whose tools say "the index is being prepared (N %)" while it builds in the background).
BuildWatcher = Callable[[str, int, int], None]
_watchers: list[BuildWatcher] = []


def watch_builds(watcher: BuildWatcher) -> Callable[[], None]:
    """Tell ``watcher`` every build stage's progress from now on; returns the call that stops it."""
    _watchers.append(watcher)

    def stop() -> None:
        if watcher in _watchers:
            _watchers.remove(watcher)

    return stop


class _Watched:
    """A reporter that also tells the watchers (a failing watcher never fails the build)."""

    def __init__(self, inner: StageReporter) -> None:
        self._inner = inner
        self._description, self._done, self._total = "", 0, 0

    def _tell(self) -> None:
        for watcher in list(_watchers):
            with contextlib.suppress(Exception):  # progress is news, never a reason to stop indexing
                watcher(self._description, self._done, self._total)

    def stage(self, description: str, total: int) -> None:
        self._inner.stage(description, total)
        self._description, self._done, self._total = description, 0, total
        self._tell()

    def advance(self, n: int) -> None:
        self._inner.advance(n)
        self._done += n
        self._tell()

    def done(self) -> None:
        self._inner.done()
        self._done = self._total
        self._tell()

    def note(self, text: str) -> None:
        self._inner.note(text)


@contextmanager
def stage_reporter(enabled: bool, console: Console | None = None) -> Iterator[StageReporter]:
    if _watchers:
        with _reporter(enabled, console) as inner:
            yield _Watched(inner)
        return
    with _reporter(enabled, console) as inner:
        yield inner


@contextmanager
def _reporter(enabled: bool, console: Console | None) -> Iterator[StageReporter]:
    if not enabled:
        yield _Silent()
        return
    console = console or Console(stderr=True, soft_wrap=True)
    if not console.is_terminal:
        yield _Lines(console)
        return
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), _RateColumn(),
               TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn())
    with Progress(*columns, console=console, speed_estimate_period=LINE_EVERY_S) as progress:
        yield _Bar(progress)
