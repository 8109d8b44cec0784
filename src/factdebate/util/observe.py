"""Where the service's metrics and traces watch work done below the server (a model call, a search): the work
says what it is (:meth:`Watcher.watched`), and the watchers of its context (:meth:`Watcher.watching`) measure
it; outside any, one context-variable lookup. A watcher is told a kind and attributes that never hold a prompt,
claim or key."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar

from factdebate.util.context import bound


class Watcher:
    """What measures work for the service (its metrics, its traces): a subclass's :meth:`watch` is entered
    around each piece of work done within :meth:`watching` of it."""

    def watch(self, kind: str, attributes: dict[str, str]) -> AbstractContextManager[None]:
        """A context around the work: entered before it, left after it (with its exception, if it raised)."""
        raise NotImplementedError  # abstract: each subclass measures in its own way

    @staticmethod
    def watching(watchers: Sequence[Watcher]) -> AbstractContextManager[tuple[Watcher, ...]]:
        """Everything done inside (and in the tasks it starts) watched by ``watchers``."""
        return bound(_watchers, tuple(watchers))

    @staticmethod
    @contextlib.contextmanager
    def watched(kind: str, **attributes: str) -> Iterator[dict[str, str]]:
        """The work inside, watched; it may add what it learnt to the attributes yielded."""
        watchers = _watchers.get()
        if not watchers:
            yield attributes
            return
        if len(watchers) == 1:  # the service's metrics alone (no traces): entered as the stack would, without one
            with watchers[0].watch(kind, attributes):
                yield attributes
            return
        with contextlib.ExitStack() as stack:
            for watcher in watchers:
                stack.enter_context(watcher.watch(kind, attributes))
            yield attributes


# A ContextVar: watchers (metrics, traces) are installed by the service or a test around work whose code
# does not know about them, and must not see a concurrent request's work.
_watchers: ContextVar[tuple[Watcher, ...]] = ContextVar("factdebate_watchers", default=())

watched = Watcher.watched  # what the library's work says of itself
