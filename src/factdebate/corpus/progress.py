"""Progress for index builds: a live bar on a terminal, plain lines anywhere else.

Logs, CI and service journals are not terminals; a redrawn bar there is either invisible until the end or
a mess of control codes, so they get a line when a stage starts, one every :data:`LINE_EVERY_S` seconds with
the count, the speed over the last interval and the time left at that speed (a build on a busy machine runs
for 15 minutes; with nothing in between it looks hung), and one when it ends. The bar on a terminal estimates from
the same recent window.

The estimate counts work, not passages: the embeddings stage encodes passages longest first (batches of like
length pad less), so its passages/s climbs through the whole build (5 to 50 on the 2-core machine) and a
speed in passages, however recent, says 1.5-3x the time left. The stage is told what each passage
costs the encoder (:func:`factdebate.corpus.milvus.encoding_costs`), and the time left is the work left
over the recent speed in work; a stage that is told nothing counts each passage as one.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
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
)
from rich.text import Text

LINE_EVERY_S = 10.0  # off a terminal: seconds between progress lines


class StageReporter(Protocol):
    def stage(self, description: str, total: int, costs: Sequence[float] | None = None) -> None: ...
    def advance(self, n: int) -> None: ...
    def done(self) -> None: ...
    def note(self, text: str) -> None: ...


WARM_UP_BATCHES = 4  # left out of the speed: see TimeLeft


class TimeLeft:
    """The time a stage has left, from the speed over its last ``window`` seconds, in work.

    ``costs`` are the passages' work in the order they are done (none: one each). The first batches are left
    out: on the shared 2-core machine the first 4-8 batches of a new process took 2-8x the wall time of later
    ones of the same length for the same CPU time (a real build, and the encoder alone: 37, 23, 19, 21, 12,
    12, 9, 10, then 4-5 s a batch), so an estimate is given once ``warm_up`` batches are done and one more
    came after them."""

    def __init__(self, total: int, costs: Sequence[float] | None, now: float, window: float = LINE_EVERY_S,
                 warm_up: int = WARM_UP_BATCHES) -> None:
        self._costs = list(costs) if costs is not None and len(costs) == total else None
        self._total_work = sum(self._costs) if self._costs is not None else float(total)
        self._window = window
        self._warm_up = warm_up
        self._batches = 0
        self.done = 0
        self._work = 0.0
        self._warm: tuple[float, int, float] | None = (now, 0, 0.0) if warm_up == 0 else None
        self._recent: deque[tuple[float, int, float]] = deque([(now, 0, 0.0)])  # (time, passages, work)

    def advance(self, n: int, now: float) -> None:
        if self._costs is not None:
            self._work += sum(self._costs[self.done:self.done + n])
        else:
            self._work += n
        self.done += n
        self._batches += 1
        sample = (now, self.done, self._work)
        if self._batches == self._warm_up:
            self._warm = sample
        self._recent.append(sample)
        while len(self._recent) > 2 and self._recent[1][0] <= now - self._window:
            self._recent.popleft()

    def _since(self) -> tuple[float, int, float] | None:
        """Where the measured speed starts: the window's start, or the warm-up's end if later; None before a
        batch came after the warm-up."""
        if self._warm is None or self._warm[1] == self.done:
            return None
        return max(self._recent[0], self._warm)

    def speed(self, now: float) -> float:
        """Passages a second over the window (what the line shows; the estimate uses work)."""
        since, done_then, _ = self._since() or self._recent[0]
        return (self.done - done_then) / max(now - since, 1e-9)

    def seconds(self, now: float) -> float | None:
        start = self._since()
        if start is None:
            return None
        since, _, work_then = start
        rate = (self._work - work_then) / max(now - since, 1e-9)
        return (self._total_work - self._work) / rate if rate > 0 else None


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.fields.get("speed")
        return Text(f"{speed:.1f} passages/s" if speed else "… passages/s", style="progress.data.speed")


class _LeftColumn(ProgressColumn):
    """The time left from :class:`TimeLeft` (rich's own divides the passages left by their recent speed)."""

    def render(self, task: Task) -> Text:
        seconds = task.fields.get("left")
        shown = "-:--:--" if seconds is None or task.finished else time.strftime("%H:%M:%S", time.gmtime(seconds))
        return Text(f"eta {shown}", style="progress.remaining")


class _Bar:
    def __init__(self, progress: Progress, clock: Callable[[], float] = time.perf_counter) -> None:
        self._progress = progress
        self._clock = clock
        self._task: object | None = None
        self._left = TimeLeft(0, None, 0.0)

    def stage(self, description: str, total: int, costs: Sequence[float] | None = None) -> None:
        self._left = TimeLeft(total, costs, self._clock())
        self._task = self._progress.add_task(description, total=total, left=None, speed=None)

    def advance(self, n: int) -> None:
        if self._task is not None:
            now = self._clock()
            self._left.advance(n, now)
            self._progress.update(self._task, advance=n, left=self._left.seconds(now),  # type: ignore[arg-type]
                                  speed=self._left.speed(now))

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
    if seconds < 180:  # whole minutes here would be off by up to a third ("about 2 min" for 91 s)
        return f"about {10 * round(seconds / 10)} s"
    return f"about {round(seconds / 60)} min"


class _Lines:
    def __init__(self, console: Console, every: float = LINE_EVERY_S,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._console = console
        self._every = every
        self._clock = clock
        self._description = ""
        self._total = 0
        self._started = self._last = 0.0
        self._left = TimeLeft(0, None, 0.0, every)

    def stage(self, description: str, total: int, costs: Sequence[float] | None = None) -> None:
        self._description, self._total = description, total
        self._started = self._last = self._clock()
        self._left = TimeLeft(total, costs, self._started, self._every)
        self._console.print(f"{description}: {total} passages…", highlight=False)

    def advance(self, n: int) -> None:
        now = self._clock()
        self._left.advance(n, now)
        done = self._left.done
        if now - self._last < self._every or done >= self._total:
            return
        self._last = now
        seconds = self._left.seconds(now)
        # the first batches carry the warm-up: their speed says little about the rest
        left = ", time left after the warm-up" if seconds is None else f", {duration(seconds)} left at this speed"
        self._console.print(f"{self._description}: {done:,} of {self._total:,} passages "
                            f"({100 * done // max(self._total, 1)}%), {self._left.speed(now):.1f}/s{left}",
                            highlight=False)

    def done(self) -> None:
        seconds = self._clock() - self._started
        self._console.print(f"{self._description}: done in {seconds:.1f}s", highlight=False)

    def note(self, text: str) -> None:
        self._console.print(text, highlight=False)


class _Silent:
    def stage(self, description: str, total: int, costs: Sequence[float] | None = None) -> None:
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

    def stage(self, description: str, total: int, costs: Sequence[float] | None = None) -> None:
        self._inner.stage(description, total, costs)
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


_stop = threading.Event()


class BuildStopped(KeyboardInterrupt):
    """A build asked to stop (Ctrl-C or SIGTERM in a command): raised at its next batch, in whatever thread
    it runs."""


def stop_builds() -> None:
    """Every build in this process stops at its next batch. The command line's signal handlers call it: a
    build run in a worker thread (``run_claim``'s preparation) cannot be reached by KeyboardInterrupt, and
    ``asyncio.run`` waits for that thread before it lets the interrupt end the process, so without this the
    build would run to its end (minutes) after Ctrl-C."""
    _stop.set()


def stopping() -> bool:
    """Whether the process was told to stop (:func:`stop_builds`)."""
    return _stop.is_set()


def raise_if_stopped() -> None:
    """Raise :class:`BuildStopped` once the process was told to stop: for a build's waits between batches
    (another process's Lite folder, another process's build), which no reporter step reaches, and after a step
    no reporter follows (the vector index a native library builds in one call): an interrupt that came during
    it stops the run once it returns, never after the claim it was preparing has run."""
    if _stop.is_set():
        raise BuildStopped


class _Stoppable:
    """A reporter whose every step first asks whether the process was told to stop."""

    def __init__(self, inner: StageReporter) -> None:
        self._inner = inner

    def _check(self) -> None:
        if _stop.is_set():
            raise BuildStopped

    def stage(self, description: str, total: int, costs: Sequence[float] | None = None) -> None:
        self._check()
        self._inner.stage(description, total, costs)

    def advance(self, n: int) -> None:
        self._check()
        self._inner.advance(n)

    def done(self) -> None:
        self._inner.done()

    def note(self, text: str) -> None:
        self._inner.note(text)


@contextmanager
def stage_reporter(enabled: bool, console: Console | None = None) -> Iterator[StageReporter]:
    if _watchers:
        with _reporter(enabled, console) as inner:
            yield _Stoppable(_Watched(inner))
        return
    with _reporter(enabled, console) as inner:
        yield _Stoppable(inner)


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
               TimeElapsedColumn(), _LeftColumn())
    with Progress(*columns, console=console) as progress:
        yield _Bar(progress)
