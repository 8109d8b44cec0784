"""A request the server never answers must not hold a one-slot server's only slot for its whole timeout.

With one request in flight at a time (the default for a local server), a hung request stalls every call of
the process for ``llm.timeout``. So while other calls wait, a try that has taken ``PATIENCE_FACTOR`` times the
endpoint's slowest recent answer (at least ``MIN_PATIENCE`` s) is given up and retried at the back of the line;
the patience doubles each time, so a merely long call still finishes. With no call waiting, or before
``MIN_ANSWERS`` answers, a try keeps its whole timeout. ``benchmarks/hung_calls.py`` measures it."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator, Awaitable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TypeVar

from factdebate.llm.base import TransientLLMError

T = TypeVar("T")

PATIENCE_FACTOR = 4.0  # times the slowest recent answer
MIN_PATIENCE = 5.0  # seconds: never give up on a try sooner
MIN_ANSWERS = 8  # answers seen before a try may be given up early
RECENT = 32  # answers remembered per endpoint
POLL = 0.5  # seconds between looks at a try in flight


class Endpoint:
    """One server's recent answer times and the calls waiting for its in-flight limit, on one event loop."""

    def __init__(self) -> None:
        self.waiting = 0
        self.recent: deque[float] = deque(maxlen=RECENT)

    def patience(self, given_up: int) -> float | None:
        """Seconds after which a try may be given up when others wait (None: never; it keeps its timeout)."""
        if len(self.recent) < MIN_ANSWERS:
            return None
        return max(MIN_PATIENCE, PATIENCE_FACTOR * max(self.recent)) * 2**given_up


class HungCall(TransientLLMError):
    """A try given up early because it held the in-flight limit that other calls waited for."""


_endpoints: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Endpoint]] = (
    weakref.WeakKeyDictionary())


def endpoint(url: str) -> Endpoint:
    per_loop = _endpoints.setdefault(asyncio.get_running_loop(), {})
    return per_loop.setdefault(url, Endpoint())


@asynccontextmanager
async def queued(state: Endpoint, slot: AbstractAsyncContextManager[object]) -> AsyncIterator[None]:
    """Hold ``slot`` (the in-flight limit), counted among ``state``'s waiting calls until it is had."""
    state.waiting += 1
    try:
        await slot.__aenter__()
    finally:
        state.waiting -= 1
    try:
        yield
    except BaseException as exc:
        await slot.__aexit__(type(exc), exc, exc.__traceback__)
        raise
    await slot.__aexit__(None, None, None)


async def watched(state: Endpoint, call: Awaitable[T], given_up: int, timeout: float | None = None) -> T:
    """``call``'s result, or :class:`HungCall` when it outlasts its patience while others wait (not its timeout)."""
    task = asyncio.ensure_future(call)
    started = time.monotonic()
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=POLL)
            if done:
                result = task.result()
                state.recent.append(time.monotonic() - started)
                return result
            patience, elapsed = state.patience(given_up), time.monotonic() - started
            if patience is not None and timeout is not None:
                patience = max(patience, timeout)
            if patience is not None and elapsed >= patience and state.waiting > 0:
                raise HungCall(f"no answer after {elapsed:.0f} s while {state.waiting} other call(s) waited for "
                               f"the in-flight limit (the server's last answers took {max(state.recent):.1f} s at "
                               "most); given up early to try again", timed_out=True)
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
