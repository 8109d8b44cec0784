"""Adaptive limits on the guard's checks in flight: what the service serves now, learnt, not a fixed budget.

A fixed budget (a share of one core, a count of checks) is right for one machine and one mix of replies; the
capacity that matters is what the process serves now. So the limit learns it the way Netflix's concurrency-limits
(``Gradient2Limit``, ``AIMDLimit``) and Envoy's adaptive concurrency filter do: it grows while the service keeps up
and shrinks as a queue builds. The queue watched is the event loop's, the one every stream's next chunk and every
new reply's first token wait in: a 20 ms sleep that wakes late has waited behind other callbacks. Each interval
(:data:`INTERVAL_S`) the limit is multiplied by a gradient, :data:`TARGET_S` (CoDel's target) over the ticks' mean
lateness, at most 1 and at least a half, and given its square root as room while it binds (the checks running
fill most of it), smoothed (:class:`AdaptiveLimit`). It settles where the loop runs about the target late: near
the CPU's capacity, before every stream waits behind the others' work, and finds a capacity of a hundred checks
within about ten seconds. A mean lateness, not a CPU share: it counts what delays a stream whatever causes it,
and needs no knowledge of the machine.

It never falls below its floor, :data:`FLOOR_PER_CORE` checks per CPU core or ``guard.checks_at_once`` where that
is larger: what one core serves at full speed (checks mostly wait on their upstream and checker), so below the
floor nothing is shed whatever else the machine runs. A machine busy with others' work makes the loop late
without this service being its cause; the floor keeps that from shedding a handful of chats, and above the floor
the limit follows what the service can serve beside that work. An operator who sets ``checks_at_once`` very
high lifts the floor past any load, which turns the limit off.

At the capacity, admissions are paced (:class:`Pace`, which says why): the places that free together are not
refilled together. Below the capacity nothing is paced, and the limit refuses only the peaks of random
arrivals that make the loop run late.

The loop does not see the checker's capacity: checks waiting for a checker's slots leave it idle, and the limit
would admit checks that end at their deadlines unchecked. :class:`CheckedLimit` is the second limit, learnt from
the checks' ends: a check that ran past its deadline with more than a few running lowers it, one checked within it
raises it while it binds. Only deadlines at least the operator's count (server/admission.py): a caller asking for
a shorter one accepts its misses, and must not lower what every other caller is admitted to. For the same reason
the limit is each key's (:class:`CheckedLimits`): a miss lowers the limit of the key whose check missed, and a key
whose checks are slow (a long reply's many claims, each a call) does not lower what the others are admitted to;
the checker's queue serves the keys in turn (llm/in_flight.py), so the others' checks do not wait behind its
calls and miss with them. A key's lowered limit is forgotten once one of its deadlines has passed without a miss
of its checks: by then every check admitted while it missed has ended, and what it said of the checker is past.

The ticks run only while enough checks run for the limit to matter (half its floor), or where the operator
watches the loop's lateness itself (``guard.max_loop_lag_ms``, :class:`LoopLag`'s moving average)."""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict
from collections.abc import Callable

from factdebate.util.cores import usable_cores

FLOOR_PER_CORE = 8  # as many checks as guard.checks_at_once's default gives one core
TARGET_S = 0.005  # the loop's mean lateness the limit holds (CoDel's target)
INTERVAL_S = 0.2  # the limit steps once per interval, on the mean lateness of its ticks
BACKOFF = 0.5  # a deadline missed: the checker's limit to this share of the checks running (TCP's halving: a
# miss is seen a whole deadline late, and every check admitted meanwhile may miss too)
CHECKED_FLOOR = 4  # the checker's limit never sheds with fewer running: a few slow checks are their deadlines'
# to cut, not a checker out of slots (and a few chats are never shed for a reply the checker found hard)
CEILING = 100_000  # as guard.checks_at_once's own bound
KEYS_KEPT = 1024  # keys whose checker's limit and checks' cost are kept, the least recently used dropped: a key
# dropped is as one never seen, and many keys cannot grow the memory
LAG_TICK_S = 0.02  # how often the loop's lateness is sampled while it is watched
LAG_LEARN = 0.3  # weight of the newest sample in the lateness's moving average
BINDS = 0.8  # the limit binds (and may grow) while the checks running fill this share of it
SMOOTHING = 0.3  # weight of each interval's new limit
LATE_ROOM = 3.0  # late: the limit down to the checks running plus this many of their square roots, the spread of
# random arrivals about their mean, so that a load below the capacity keeps room for its ordinary peaks
PACE = 1.25  # at the capacity, admissions come at most this many times the limit's own rate (0: not paced)
PACE_BURST = 2.0  # admissions that may come together however they are paced
PACE_FROM = 0.5  # pacing applies while the checks running fill this share of the limit
HELD_LEARN = 0.05  # weight of the newest check in the moving average of how long one holds its place


# The cores this process may use (its affinity, a container's quota), not the host's: read once, since admission
# asks for the floor at every request, shed ones included
CORES = max(1.0, usable_cores())


def floor_of(checks_at_once: int) -> int:
    """The least the limit is: FLOOR_PER_CORE checks per CPU core, or ``checks_at_once`` where it is larger."""
    return max(checks_at_once, int(FLOOR_PER_CORE * CORES))


class AdaptiveLimit:
    """Checks in flight the service admits now, by the loop's lateness: one step per interval, never below the
    floor."""

    def __init__(self) -> None:
        self.limit = 0.0  # raised to the floor at the first admission that names one
        self.floor = 0

    def at_least(self, floor: int) -> int:
        """The limit now, as whole checks, with ``floor`` (the operator's settings may change) under it."""
        self.floor = floor
        self.limit = max(self.limit, float(floor))
        return int(self.limit)

    def observe(self, late_s: float, running: int) -> None:
        """One interval's lateness (the mean of its ticks) while ``running`` checks ran: the limit times the
        gradient (the target over the lateness, at most 1, at least a half), plus its square root while it binds,
        smoothed. Held at the target, the gradient is ``1 - 1/sqrt(limit)``: the limit settles where the loop runs
        about the target late. A late loop brings a limit far above the checks running down to them (and
        :data:`LATE_ROOM` of their square roots) at once."""
        gradient = max(0.5, min(1.0, TARGET_S / max(late_s, 1e-6)))
        allowance = math.sqrt(self.limit)  # Gradient2's queue allowance: room to find a larger capacity
        grown = self.limit * gradient + (allowance if running >= BINDS * self.limit else 0.0)
        if gradient < 1.0:
            grown = min(grown, max(float(running), self.floor) * gradient + allowance)
        limit = (1 - SMOOTHING) * self.limit + SMOOTHING * grown
        if gradient < 1.0:  # late: about as many admitted as run now, however far above them the limit was
            limit = min(limit, running + LATE_ROOM * math.sqrt(running))
        self.limit = max(float(self.floor), min(float(CEILING), limit))


class Pace:
    """Admissions spread over time at the capacity: while the limit has refused a request within the last check's
    time (the service is full) and the checks running fill at least :data:`PACE_FROM` of it, one more is admitted
    only as a credit comes, :data:`PACE` times the limit's own rate (the limit over the seconds a check holds its
    place), at most :data:`PACE_BURST` in hand. Without it the checks freed together are refilled together from a
    queue of arrivals that never empties: those admitted together reach their upstream's first token, their
    streams and their checks' ends together, one reply's time later, and again, so the loop's work comes in
    bursts that the first tokens wait behind. Below the capacity nothing is paced."""

    def __init__(self) -> None:
        self.held_s: float | None = None  # wall seconds a check holds its place, admission to end, averaged
        self.credit = 0.0
        self._at = time.perf_counter()  # when the credit was last counted
        self._full_at = float("-inf")  # when the limit last refused a request

    def full(self) -> None:
        """The limit refused a request."""
        self._full_at = time.perf_counter()

    def _credits(self, limit: int) -> float:
        now = time.perf_counter()
        if self.held_s and PACE > 0:
            gap = self.held_s / max(1, limit) / PACE  # seconds between admissions at PACE times the limit's rate
            self.credit = min(PACE_BURST, self.credit + (now - self._at) / gap)
        self._at = now
        return self.credit

    def waits_s(self, running: int, limit: int) -> float | None:
        """Seconds until the next admission's credit, where one more is refused for its pace; None: admitted."""
        if PACE <= 0 or self.held_s is None or running < PACE_FROM * limit:
            return None
        if time.perf_counter() - self._full_at > self.held_s:  # not refused within a check's time: not full
            return None
        if self._credits(limit) >= 1:
            return None
        return (1 - self.credit) * self.held_s / max(1, limit) / PACE

    def admitted(self, limit: int) -> None:
        """A check admitted: one credit spent (none in hand, none owed)."""
        self.credit = max(0.0, self._credits(limit) - 1)

    def ended(self, held_s: float) -> None:
        """A check ended after holding its place ``held_s`` seconds."""
        self.held_s = held_s if self.held_s is None else (1 - HELD_LEARN) * self.held_s + HELD_LEARN * held_s


class CheckedLimit:
    """Checks in flight the checker keeps up with: additive-increase, multiplicative-decrease on checks that did
    or did not end within their deadline (Netflix's ``AIMDLimit``, a deadline missed standing for a request
    dropped; one more per limit's worth of checks within their deadlines, as TCP's congestion avoidance grows).
    The loop's limit does not see a checker's slots: checks waiting on them leave the loop idle, so
    only their deadlines say that more were admitted than the checker can answer."""

    def __init__(self) -> None:
        self.limit = float(CEILING)  # nothing known of the checker until a check misses its deadline

    def missed(self, running: int) -> None:
        """A check ended past its deadline with ``running`` checks in flight (itself counted); with no more than
        the floor running it says nothing of the checker's slots."""
        if running > CHECKED_FLOOR:
            self.limit = max(float(CHECKED_FLOOR), min(self.limit, running) * BACKOFF)

    def checked(self, running: int) -> None:
        """A check ended within its deadline with ``running`` in flight: a fraction of one more while the limit
        binds (one more for as many such checks as the limit)."""
        if self.limit < CEILING and running >= BINDS * self.limit:
            self.limit = min(float(CEILING), self.limit + 1 / self.limit)


class CheckedLimits:
    """Each key's :class:`CheckedLimit`, kept for the :data:`KEYS_KEPT` keys whose checks missed last. A key's is
    dropped (back to no limit) once a deadline of its checks has passed since the last of them missed, by
    ``clock`` (seconds, monotonic)."""

    def __init__(self, clock: Callable[[], float] = lambda: time.monotonic()) -> None:
        self.clock = clock
        self._keys: OrderedDict[str, tuple[CheckedLimit, float]] = OrderedDict()  # (its limit, forgotten at)

    def of(self, who: str) -> float:
        """The checks in flight that ``who``'s checks are admitted beside (:data:`CEILING`: nothing learnt)."""
        kept = self._keys.get(who)
        if kept is None:
            return float(CEILING)
        if self.clock() >= kept[1]:
            del self._keys[who]
            return float(CEILING)
        return kept[0].limit

    @property
    def limit(self) -> float:
        """The least of the keys' limits (:data:`CEILING` where none has one): what the key whose checks missed
        most is admitted beside."""
        return min((self.of(who) for who in list(self._keys)), default=float(CEILING))

    def missed(self, who: str, running: int, deadline_s: float) -> None:
        """A check of ``who`` at a ``deadline_s`` deadline ended past it with ``running`` in flight: its key's
        limit lowered (:meth:`CheckedLimit.missed`), and kept a deadline from now. A miss that lowers nothing
        (a few running) still keeps a lowered limit: the key's checks still miss."""
        known = self.of(who) < CEILING
        checked = self._keys[who][0] if known else CheckedLimit()
        checked.missed(running)
        if known or checked.limit < CEILING:
            self._keys[who] = (checked, self.clock() + deadline_s)
            self._keys.move_to_end(who)
            while len(self._keys) > KEYS_KEPT:
                self._keys.popitem(last=False)

    def checked(self, who: str, running: int) -> None:
        """A check of ``who`` ended within its deadline with ``running`` in flight: its limit, if it has one,
        raised while it binds (:meth:`CheckedLimit.checked`)."""
        if self.of(who) < CEILING:
            self._keys[who][0].checked(running)


class LoopLag:
    """How late this process's event loop runs: a moving average of how much later than asked a 20 ms sleep
    wakes (``late_s``, for ``guard.max_loop_lag_ms``), and each interval's mean lateness given to
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
        total, ticks, began = 0.0, 0, time.perf_counter()  # the interval's ticks
        try:
            while busy():
                asked = time.perf_counter()
                await asyncio.sleep(LAG_TICK_S)
                now = time.perf_counter()
                late = max(0.0, now - asked - LAG_TICK_S)
                self.late_s = (1 - LAG_LEARN) * self.late_s + LAG_LEARN * late
                total, ticks = total + late, ticks + 1
                if now - began >= INTERVAL_S:
                    if self.on_interval is not None:
                        self.on_interval(total / ticks)
                    total, ticks, began = 0.0, 0, now
        finally:
            self.late_s = 0.0
