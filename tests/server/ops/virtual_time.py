"""An event loop on a virtual clock: whenever nothing is ready to run, the clock jumps to the next timer, so a
simulation of a hundred seconds of checks runs in a moment and says the same on any machine. Only for code that
waits on timers (``asyncio.sleep``, ``asyncio.timeout``), never on sockets or threads: with nothing ready and no
timer due, it says so rather than wait forever."""

from __future__ import annotations

import asyncio
import selectors
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _Skipping(selectors.DefaultSelector):
    """A selector that never blocks: what the loop would wait for, it adds to the virtual clock."""

    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:
            raise RuntimeError("nothing is ready and no timer is due: the simulation would wait forever")
        self._loop.now += max(0.0, timeout)
        return super().select(0)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose ``time()`` is :attr:`now`, moved only by the timers it waits for."""

    def __init__(self) -> None:
        self.now = 0.0
        super().__init__(_Skipping(self))

    def time(self) -> float:
        return self.now


def run_virtual(main: Coroutine[Any, Any, T]) -> T:
    """``main`` run to its end on a new :class:`VirtualTimeLoop`, with ``time.perf_counter`` (what the admission
    and the call queues time themselves by) reading its clock meanwhile."""
    loop = VirtualTimeLoop()
    real = time.perf_counter
    time.perf_counter = loop.time
    try:
        return loop.run_until_complete(main)
    finally:
        time.perf_counter = real
        loop.close()
