"""When a check's clock starts: on a service, the request's arrival (:func:`request_clock`), so its deadline and
the seconds it reports cover reading the body and building what it needs too, less the time spent waiting on
another server (:func:`not_counted`). Elsewhere, and for a check made again inside one (:func:`own_clock`), when
the check starts."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass

from factdebate.util.context import bound


@dataclass
class RequestClock:
    arrived: float  # time.perf_counter() when the request arrived
    waited: float = 0.0  # seconds spent waiting for the upstream's answer: not the check's time

    def start(self) -> float:
        return self.arrived + self.waited


# A ContextVar: a request's clock starts at the door and is read by every deadline beneath it, in its tasks.
_clock: ContextVar[RequestClock | None] = ContextVar("factdebate_request_clock", default=None)


def request_clock(arrived: float | None = None) -> AbstractContextManager[RequestClock]:
    """The checks made inside (and by the tasks started inside) count their time from ``arrived`` (now)."""
    clock = RequestClock(time.perf_counter() if arrived is None else arrived)
    return bound(_clock, clock)


def own_clock() -> AbstractContextManager[RequestClock | None]:
    """The checks made inside start their clock when they start (a rewrite's re-check: a deadline of its own)."""
    return bound(_clock, None)


@contextlib.contextmanager
def not_counted() -> Iterator[None]:
    """The time inside is not the check's (the wait for the upstream's answer): the clock's start moves by it."""
    clock = _clock.get()
    began = time.perf_counter()
    try:
        yield
    finally:
        if clock is not None:
            clock.waited += time.perf_counter() - began


def check_started() -> float:
    """Where a check made now starts its clock (a ``time.perf_counter()`` value)."""
    clock = _clock.get()
    return clock.start() if clock is not None else time.perf_counter()
