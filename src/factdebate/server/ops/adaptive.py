"""An adaptive limit on the guard's checks in flight, following how late the process's event loop runs.

A fixed budget (a share of one core, a count of checks) is right for one machine and one mix of replies; the
capacity that matters is what the process serves now. So the limit learns it the way TCP Vegas, Netflix's
concurrency-limits (``AIMDLimit``, ``Gradient2Limit``) and Envoy's adaptive concurrency filter do: it grows while the
service keeps up and shrinks when a queue stands. The queue watched is the event loop's, the one every stream's
next chunk waits in: a 20 ms sleep that wakes late has waited behind other callbacks. Following CoDel, it is the
*least* lateness over an interval that counts (:data:`INTERVAL_S`): a burst or a garbage collection makes a few
ticks late, a loop out of CPU makes all of them late. Past :data:`TARGET_S` the limit falls multiplicatively, to
:data:`BACKOFF` of the checks running (not of a limit far above them); at or under it, and while the limit binds
(the checks running fill most of it), it grows by its square root per interval, as Gradient2's queue allowance
does, so it finds a capacity of hundreds within seconds.

It never falls below its floor, :data:`FLOOR_PER_CORE` checks per CPU core or ``guard.checks_at_once`` where that
is larger: what one core serves at full speed (checks mostly wait on their upstream and checker), so below the
floor nothing is shed whatever else the machine runs. A machine busy with others' work makes the loop late
without this service being its cause; the floor keeps that from shedding a handful of chats, and above the floor
the limit then follows what the service can serve beside that work. An operator who sets ``checks_at_once`` very
high lifts the floor past any load, which turns the limit off.

The ticks run only while enough checks run for the limit to matter (half its floor), or where the operator
watches the loop's lateness itself (``guard.max_loop_lag_ms``, :class:`LoopLag`'s moving average)."""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable

FLOOR_PER_CORE = 8  # as many checks as guard.checks_at_once's default gives one core
TARGET_S = 0.005  # CoDel's target: a standing delay past it is a queue, not a burst
INTERVAL_S = 0.2  # the least lateness of the ticks over this long is the standing delay
BACKOFF = 0.9  # a standing queue: the limit to this share of the checks running
CEILING = 100_000  # as guard.checks_at_once's own bound
LAG_TICK_S = 0.02  # how often the loop's lateness is sampled while it is watched
LAG_LEARN = 0.3  # weight of the newest sample in the lateness's moving average
BINDS = 0.8  # the limit binds (and may grow) while the checks running fill this share of it


def floor_of(checks_at_once: int) -> int:
    """The least the limit is: FLOOR_PER_CORE checks per CPU core, or ``checks_at_once`` where it is larger."""
    return max(checks_at_once, FLOOR_PER_CORE * (os.cpu_count() or 1))


class AdaptiveLimit:
    """Checks in flight the service admits now: additive-increase, multiplicative-decrease on the loop's
    standing delay, one step per interval, never below the floor."""

    def __init__(self) -> None:
        self.limit = 0.0  # raised to the floor at the first admission that names one
        self.floor = 0

    def at_least(self, floor: int) -> int:
        """The limit now, as whole checks, with ``floor`` (the operator's settings may change) under it."""
        self.floor = floor
        self.limit = max(self.limit, float(floor))
        return int(self.limit)

    def observe(self, standing_s: float, running: int) -> None:
        """One interval's standing delay (the least lateness of its ticks) while ``running`` checks ran."""
        if standing_s > TARGET_S:
            self.limit = max(float(self.floor), min(self.limit, running) * BACKOFF)
        elif running >= BINDS * self.limit:
            self.limit = min(float(CEILING), self.limit + math.sqrt(self.limit))


class LoopLag:
    """How late this process's event loop runs: a moving average of how much later than asked a 20 ms sleep
    wakes (``late_s``, for ``guard.max_loop_lag_ms``), and each interval's least lateness given to
    ``on_interval`` (the adaptive limit's signal). Sampled only while ``busy()``; an idle loop counts as on
    time."""

    def __init__(self, on_interval: Callable[[float], None] | None = None) -> None:
        self.late_s = 0.0
        self.on_interval = on_interval
        self._task: asyncio.Task[None] | None = None

    def watch(self, busy: Callable[[], bool]) -> None:
        if self._task is not None and not self._task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test calling the admission directly): nothing to watch
            return
        self._task = loop.create_task(self._ticks(busy))

    async def _ticks(self, busy: Callable[[], bool]) -> None:
        least, began = math.inf, time.perf_counter()
        try:
            while busy():
                asked = time.perf_counter()
                await asyncio.sleep(LAG_TICK_S)
                now = time.perf_counter()
                late = max(0.0, now - asked - LAG_TICK_S)
                self.late_s = (1 - LAG_LEARN) * self.late_s + LAG_LEARN * late
                least = min(least, late)
                if now - began >= INTERVAL_S:
                    if self.on_interval is not None:
                        self.on_interval(least)
                    least, began = math.inf, now
        finally:
            self.late_s = 0.0
