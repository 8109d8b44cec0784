"""Checks in flight that the checker's known slots can answer within their deadline, before any check misses it.

The guard's calls to each model server wait their turn in a queue of the server's slots (llm/in_flight.py:
``llm.max_in_flight``, or what a server on this machine says it serves at once). That queue knows what the
deadlines learn only a deadline late (:class:`~factdebate.server.ops.adaptive.CheckedLimit`): a checker of 4 slots
answering a call in 1 s gives 4 call-seconds a second, and a check that needs 4 of them cannot have more than a
few companions if each is to end within 5 s. So the limit is, per server the process calls,

    slots * deadline * SHARE / (call-seconds per check)

never below :data:`~factdebate.server.ops.adaptive.CHECKED_FLOOR` (a few chats are never shed for a slow checker:
their deadlines cut them, said). Running that many, each check's calls share the slots with the others' for three
quarters of its deadline; the rest is its own chain (the upstream's reply, one call after another). The call-seconds
per check are learnt from the checks that end, a moving average over windows of a few checks: for each key, from
the seconds its own checks' calls held the slots (llm/call_owner.py), and for the service, from the server's busy
seconds over every check ended. A key's admission reckons with its own checks' cost once a window of them has
ended, so a key whose checks each hold the checker for a minute does not lower what the others are admitted to.
Until then it reckons with the service's, but never with fewer checks than the server has slots (at least
:data:`~factdebate.server.ops.adaptive.CHECKED_FLOOR`), what a service that has learnt nothing admits: each check
needs at least one call. And whenever the calls waiting before the key's next call (the queue serves the keys in
turn) already forecast a wait past that share of the deadline, no more are admitted than run.

A server without a limit (an in-process backend) has no queue and bounds nothing. Each process has its own
queues: ``serve --workers N`` sends a server N times the slots each process counts. The keys learnt are the
:data:`KEYS_KEPT` used last, so that many keys cannot grow the memory; a key dropped is learnt again."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from factdebate.engine import ResourcePool
from factdebate.server.ops.adaptive import CHECKED_FLOOR, KEYS_KEPT

SHARE = 0.75  # of a check's deadline, for its calls to wait on and share the server's slots
WINDOW = 4  # checks ended per sample of the call-seconds a check takes
LEARN = 0.3  # weight of the newest window

K = TypeVar("K")
V = TypeVar("V")


class Queue(Protocol):
    """What the bound reads of one model server's call queue (``ResourcePool.model_queues``)."""

    slots: int
    busy_s: float  # every ended call's seconds, added up

    def wait_s(self, owner: str | None = None) -> float: ...  # the seconds a call asked now would wait for a slot
    # (behind every call waiting; or, for ``owner``'s call, behind those served before it in turn)


@dataclass
class Bound:
    """The checks the checker's slots answer within the deadline now, and what says so."""

    checks: int
    why: str


class _Learnt:
    """One queue's call-seconds per check, window by window: the service's from the queue's busy seconds (from
    ``mark_s``), a key's from the seconds its checks' calls held it (``spent_s``)."""

    def __init__(self, busy_s: float) -> None:
        self.per_check_s: float | None = None
        self.mark_s, self.ended, self.spent_s = busy_s, 0, 0.0

    def ended_one(self, spent_s: float) -> None:
        self.ended += 1
        self.spent_s += spent_s

    def sample(self, sample_s: float) -> None:
        self.per_check_s = sample_s if self.per_check_s is None else (
            (1 - LEARN) * self.per_check_s + LEARN * sample_s)
        self.ended, self.spent_s = 0, 0.0


class CheckerSlots:
    """The bound over every server this process's loop calls (the least of them)."""

    def __init__(self, found: Callable[[], list[Queue]] | None = None) -> None:
        # read when first asked: the pool's module loads with the check engine, not with the admission
        self.found = found or (lambda: list(ResourcePool.model_queues()))
        self._learnt: OrderedDict[Queue, _Learnt] = OrderedDict()  # the service's, by queue
        self._keys: OrderedDict[tuple[Queue, str], _Learnt] = OrderedDict()  # each key's, by queue and key

    def check_ended(self, who: str | None = None, spent: Mapping[object, float] | None = None) -> None:
        """A check ended: one more in each queue's window; a window of :data:`WINDOW` checks is a sample. With
        ``who`` and ``spent`` (the seconds the check's calls held each queue), one more in the key's window."""
        for queue in self.found():
            learnt = _kept(self._learnt, queue, lambda: _Learnt(0.0))
            learnt.ended_one(0.0)
            if learnt.ended >= WINDOW:
                sample = (queue.busy_s - learnt.mark_s) / learnt.ended
                learnt.mark_s = queue.busy_s
                learnt.sample(sample)
            if who is None or spent is None:
                continue
            own = _kept(self._keys, (queue, who), lambda: _Learnt(0.0))
            own.ended_one(spent.get(queue, 0.0))
            if own.ended >= WINDOW:
                own.sample(own.spent_s / own.ended)

    def bound(self, deadline_s: float, running: int, who: str | None = None) -> Bound | None:
        """The least bound of the servers called, or None where none bounds (no queue, nothing learnt that
        limits): ``running`` checks in flight now, for a check of ``who`` (None: any key's, as the service's
        checks go)."""
        least: Bound | None = None
        for queue in self.found():
            bound = self._of(queue, deadline_s, running, who)
            if bound is not None and (least is None or bound.checks < least.checks):
                least = bound
        return least

    def _of(self, queue: Queue, deadline_s: float, running: int, who: str | None) -> Bound | None:
        budget = deadline_s * SHARE
        slots = f"{queue.slots} slot{'s' if queue.slots != 1 else ''}"
        if (waits := queue.wait_s(who)) > budget:  # the queue standing: no more than run now
            return Bound(max(CHECKED_FLOOR, running), f"its checker's calls queue for {slots}: a call asked now "
                         f"would wait about {waits:.1f} s, past {SHARE:g} of its {deadline_s:.3g} s deadline")
        own = self._keys.get((queue, who)) if who is not None else None
        if own is not None and own.per_check_s is not None:
            return _fits(queue.slots, slots, budget, deadline_s, own.per_check_s)
        learnt = self._learnt.get(queue)
        per_check = learnt.per_check_s if learnt is not None else None
        if per_check is None:
            return Bound(max(CHECKED_FLOOR, queue.slots), f"its checker serves {slots} at once, and how long a "
                         "check holds them is not known yet")
        fits = _fits(queue.slots, slots, budget, deadline_s, per_check)
        if who is None or fits is None or fits.checks >= max(CHECKED_FLOOR, queue.slots):
            return fits
        # A key not learnt yet: the service's checks may be another key's, each far dearer than its own. It is
        # admitted as a service that has learnt nothing admits, until its own checks say what they cost.
        return Bound(max(CHECKED_FLOOR, queue.slots), f"its checker serves {slots} at once, and how long this "
                     "key's checks hold them is not known yet")


def _fits(slots: int, said: str, budget: float, deadline_s: float, per_check: float) -> Bound | None:
    """The checks ``slots`` answer within ``budget`` at ``per_check`` call-seconds each (None: no bound)."""
    if per_check <= 0:
        return None
    checks = max(CHECKED_FLOOR, math.floor(slots * budget / per_check))
    return Bound(checks, f"as many as its checker's {said} answer within {SHARE:g} of their {deadline_s:.3g} s "
                 f"deadline (a check holds them for about {per_check:.2g} s)")


def _kept(table: OrderedDict[K, V], key: K, new: Callable[[], V]) -> V:
    """``table``'s entry for ``key`` (made new where missing), as the one used last; the least recently used
    dropped past :data:`KEYS_KEPT`."""
    entry = table.get(key)
    if entry is None:
        entry = table[key] = new()
        while len(table) > KEYS_KEPT:
            table.popitem(last=False)
    else:
        table.move_to_end(key)
    return entry
