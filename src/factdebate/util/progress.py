"""Progress on stderr, drawn in one place: rich's live bar on a terminal; anywhere else plain lines at an
interval, whether or not anything finished, so that a long build or a slow claim does not look hung.

* :class:`Counter`, items of a known count: the bar, or a :class:`Ticker` line every :data:`EVERY_S` seconds.
* :func:`stage_display`, an index build's stages: the bar, or lines with the count, the recent speed and the
  time left. The estimate counts encoder work (:func:`factdebate.corpus.milvus.encoding_costs`), not
  passages: passages go longest first, so passages/s climbs through a build and would overstate the time left.
* :class:`ShardLines`, a build spread over Ray workers: lines as its shards finish.
* :class:`EveryLine`, progress told through a callback: a line at most every :data:`EVERY_S` seconds.
* :func:`download_bar`, a Hub download as a :class:`Counter` of bytes."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.text import Text

EVERY_S = 10.0  # off a terminal: seconds between progress lines
SHARD_EVERY_S = 5.0  # at most this often a Ray build's line (each comes when shards finish)


def elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


class Ticker:
    """Prints ``"<label>: <describe()>, <m:ss> elapsed"`` every ``every`` seconds from a daemon thread;
    ``describe`` runs on that thread, so it should only read counters."""

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
    """Progress is asked for and the console is not a terminal."""
    return enabled and not console.is_terminal


class Counter:
    """Items of a known count: the bar on a terminal, a :class:`Ticker` line elsewhere."""

    def __init__(self, label: str, total: int, describe: Callable[[], str], *, console: Console | None = None,
                 enabled: bool = True, completed: int = 0, status: str = "", time_left: bool = False,
                 in_bytes: bool = False, every: float | None = None) -> None:
        console = console or Console(stderr=True)
        plain = plain_lines(console, enabled)
        self._ticker = Ticker(console, label, describe, every=every) if plain else None
        count = [DownloadColumn(), TransferSpeedColumn()] if in_bytes else [MofNCompleteColumn()]
        columns = [TextColumn(f"[bold]{label}"), BarColumn(), *count, TimeElapsedColumn(),
                   *([TimeRemainingColumn()] if time_left else []), TextColumn("{task.fields[status]}")]
        self._bar = Progress(*columns, disable=not enabled or plain, console=console)
        self._task = self._bar.add_task(label, total=total, completed=completed, status=status)

    def advance(self, n: int = 1, status: str = "") -> None:
        self._bar.update(self._task, advance=n, status=status)

    def restart(self, total: int | None) -> None:
        self._bar.reset(self._task, total=total)

    def __enter__(self) -> Counter:
        self._bar.__enter__()
        if self._ticker is not None:
            self._ticker.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._ticker is not None:
            self._ticker.__exit__(kind, exc, tb)
        self._bar.__exit__(kind, exc, tb)


class StageReporter(Protocol):
    def stage(self, description: str, total: int, costs: Sequence[float] | None = None) -> None: ...
    def advance(self, n: int) -> None: ...
    def done(self) -> None: ...
    def note(self, text: str) -> None: ...


WARM_UP_BATCHES = 4  # left out of the speed: see TimeLeft


class TimeLeft:
    """The time a stage has left, from the speed in work (``costs``; none: one each) over the last ``window``
    seconds. A new process's first ``warm_up`` batches run several times slower, so they are left out."""

    def __init__(self, total: int, costs: Sequence[float] | None, now: float, window: float = EVERY_S,
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
        """The window's start, or the warm-up's end if later; None before a batch came after the warm-up."""
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


class StageBar:
    """A build's stages as rich bars: passages, their speed, the time elapsed and the time left."""

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


class StageLines:
    """A build's stages as plain lines: when a stage starts, every ``every`` seconds, when it ends."""

    def __init__(self, console: Console, every: float = EVERY_S,
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


class Silent:
    def stage(self, description: str, total: int, costs: Sequence[float] | None = None) -> None:
        pass

    def advance(self, n: int) -> None:
        pass

    def done(self) -> None:
        pass

    def note(self, text: str) -> None:
        pass


class EveryLine:
    """Lines for progress told through a callback, at most every ``every`` seconds, the ``last`` one always."""

    def __init__(self, console: Console | None = None, every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._console = console or Console(stderr=True, soft_wrap=True)
        self._every, self._clock = EVERY_S if every is None else every, clock
        self._last = clock()

    def __call__(self, text: Callable[[], str], *, last: bool = False) -> None:
        now = self._clock()
        if last or now - self._last >= self._every:
            self._last = now
            self._console.print(text(), highlight=False, markup=False, soft_wrap=True)


@contextmanager
def stage_display(enabled: bool, console: Console | None = None) -> Iterator[StageReporter]:
    """A build's stages shown: the bar on a terminal, lines elsewhere, nothing when not ``enabled``."""
    if not enabled:
        yield Silent()
        return
    console = console or Console(stderr=True, soft_wrap=True)
    if not console.is_terminal:
        yield StageLines(console)
        return
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), _RateColumn(),
               TimeElapsedColumn(), _LeftColumn())
    with Progress(*columns, console=console) as progress:
        yield StageBar(progress)


def short_duration(seconds: float) -> str:
    """``"1h02m"``, ``"3m05s"``, ``"40s"``: a shard build's time left."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class Shard(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def documents(self) -> int | None: ...


class ShardLines:
    """What the driver of an index build on Ray prints as shards finish. The rate includes Ray's start-up; the
    time left counts documents where each shard's count is known (JSONL, Parquet), shards otherwise."""

    def __init__(self, corpus: str, shards: Sequence[Shard], done: dict[str, Any], console: Console | None) -> None:
        self.corpus = corpus
        self.console = console
        self.planned = {shard.key: shard.documents for shard in shards}
        self.by_documents = all(count is not None for count in self.planned.values())
        self.total_documents = sum(count or 0 for count in self.planned.values())
        self.finished_keys = {key for key in done if key in self.planned}
        # what earlier runs finished: the pace counts only this run's work
        self._earlier_documents = sum(self.planned[key] or 0 for key in self.finished_keys)
        self._earlier_shards = len(self.finished_keys)
        self.passages = 0  # this run's
        self.started = time.perf_counter()
        self.printed = 0.0

    def _say(self, text: str) -> None:
        if self.console is not None:
            self.console.print(f"{self.corpus}: {text}", markup=False, highlight=False)

    def starting(self, resumed: bool, replaced: bool, workers: int) -> None:
        documents = f" ({self.total_documents:,} documents)" if self.by_documents else ""
        self._say(f"{len(self.planned):,} shards{documents} on {workers} Ray workers")
        if resumed and self.finished_keys:
            self._say(f"resuming: {len(self.finished_keys):,} shards were written by an earlier run")
        if replaced:
            self._say("the source or the settings changed since the last build: every shard is done again "
                      "(passages already stored keep their ids and are not duplicated)")
        self.started = time.perf_counter()

    def shard_done(self, row: dict[str, Any]) -> None:
        self.finished_keys.add(row["shard"])
        self.passages += int(row["passages"])
        now = time.perf_counter()
        if now - self.printed >= SHARD_EVERY_S or len(self.finished_keys) == len(self.planned):
            self.printed = now
            self._say(self.line(now - self.started))

    def line(self, elapsed: float) -> str:
        done = len(self.finished_keys)
        rate = self.passages / elapsed if elapsed > 0 else 0.0
        text = f"{done:,}/{len(self.planned):,} shards, {self.passages:,} passages, {rate:,.1f} passages/s"
        left = self.eta(elapsed)
        return text + (f", about {short_duration(left)} left" if left is not None and done < len(self.planned) else "")

    def eta(self, elapsed: float) -> float | None:
        """Seconds left at this run's pace so far; ``None`` before anything of this run finished."""
        if self.by_documents:
            finished = sum(self.planned[key] or 0 for key in self.finished_keys)
            remaining = self.total_documents - finished
            this_run = finished - self._earlier_documents
        else:
            remaining = len(self.planned) - len(self.finished_keys)
            this_run = len(self.finished_keys) - self._earlier_shards
        return remaining * elapsed / this_run if this_run > 0 else None


def download_bar(label: str) -> type:
    """The tqdm class for huggingface_hub's download bar: a :class:`Counter` of bytes named ``label``."""
    import os

    from tqdm.auto import tqdm

    class Bar(tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "disable": True})
            off = os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS", "").lower() in ("1", "true", "yes", "on")
            self.n = kwargs.get("initial") or 0
            self.total = kwargs.get("total")
            self._shown: Counter | None = Counter(label, self.total or 0, self._line, enabled=not off,
                                                  completed=self.n, in_bytes=True).__enter__()

        def _line(self) -> str:
            total = f" of {self.total / 1e6:,.1f}" if self.total else ""
            return f"{self.n / 1e6:,.1f}{total} MB"

        def update(self, n: float | None = 1) -> bool | None:
            self.n += int(n or 0)
            if self._shown is not None:
                self._shown.advance(int(n or 0))
            return None

        def reset(self, total: float | None = None) -> None:
            self.n = 0
            if total is not None:
                self.total = total
            if self._shown is not None:
                self._shown.restart(None if total is None else int(total))

        def close(self) -> None:
            shown, self._shown = self._shown, None
            if shown is not None:
                shown.__exit__(None, None, None)
            super().close()

    return Bar
