"""An index build's progress as the rest of the process sees it: who follows it and how a build is told to
stop (util/progress.py draws what the user reads)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console

from factdebate.core.stopping import Stopped, raise_if_stopped, stop_all
from factdebate.util.progress import StageReporter, stage_display

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


# A build stops where the process was told to (core/stopping.py): the names builds and the command line use.
BuildStopped = Stopped
stop_builds = stop_all


class _Stoppable:
    """A reporter whose every step first asks whether the process was told to stop."""

    def __init__(self, inner: StageReporter) -> None:
        self._inner = inner

    def _check(self) -> None:
        raise_if_stopped()

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
        with stage_display(enabled, console) as inner:
            yield _Stoppable(_Watched(inner))
        return
    with stage_display(enabled, console) as inner:
        yield _Stoppable(inner)
