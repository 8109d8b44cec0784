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
per check are learnt from the checks that end (the server's busy seconds over the checks ended, a moving average
over windows of a few checks). Until a window has ended, no more checks run than the server has slots (each
needs at least one call); and whenever the calls waiting already forecast a wait past that share of the deadline
(the queue standing, whatever was learnt), no more are admitted than run.

A server without a limit (an in-process backend) has no queue and bounds nothing. Each process has its own
queues: ``serve --workers N`` sends a server N times the slots each process counts."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from factdebate.engine import ResourcePool
from factdebate.server.ops.adaptive import CHECKED_FLOOR

SHARE = 0.75  # of a check's deadline, for its calls to wait on and share the server's slots
WINDOW = 4  # checks ended per sample of the call-seconds a check takes
LEARN = 0.3  # weight of the newest window


class Queue(Protocol):
    """What the bound reads of one model server's call queue (``ResourcePool.model_queues``)."""

    slots: int
    busy_s: float  # every ended call's seconds, added up

    def wait_s(self) -> float: ...  # the seconds a call asked now would wait for a slot


@dataclass
class Bound:
    """The checks the checker's slots answer within the deadline now, and what says so."""

    checks: int
    why: str


class _Learnt:
    """One queue's call-seconds per check: busy seconds over checks ended, window by window."""

    def __init__(self, busy_s: float) -> None:
        self.per_check_s: float | None = None
        self.mark_s, self.ended = busy_s, 0


class CheckerSlots:
    """The bound over every server this process's loop calls (the least of them)."""

    def __init__(self, found: Callable[[], list[Queue]] | None = None) -> None:
        # read when first asked: the pool's module loads with the check engine, not with the admission
        self.found = found or (lambda: list(ResourcePool.model_queues()))
        self._learnt: dict[Queue, _Learnt] = {}

    def check_ended(self) -> None:
        """A check ended: one more in each queue's window; a window of :data:`WINDOW` checks is a sample."""
        for queue in self.found():
            learnt = self._learnt.setdefault(queue, _Learnt(0.0))
            learnt.ended += 1
            if learnt.ended >= WINDOW:
                sample = (queue.busy_s - learnt.mark_s) / learnt.ended
                learnt.per_check_s = sample if learnt.per_check_s is None else (
                    (1 - LEARN) * learnt.per_check_s + LEARN * sample)
                learnt.mark_s, learnt.ended = queue.busy_s, 0

    def bound(self, deadline_s: float, running: int) -> Bound | None:
        """The least bound of the servers called, or None where none bounds (no queue, nothing learnt that
        limits): ``running`` checks in flight now."""
        least: Bound | None = None
        for queue in self.found():
            bound = self._of(queue, deadline_s, running)
            if bound is not None and (least is None or bound.checks < least.checks):
                least = bound
        return least

    def _of(self, queue: Queue, deadline_s: float, running: int) -> Bound | None:
        budget = deadline_s * SHARE
        learnt = self._learnt.get(queue)
        per_check = learnt.per_check_s if learnt is not None else None
        slots = f"{queue.slots} slot{'s' if queue.slots != 1 else ''}"
        if (waits := queue.wait_s()) > budget:  # the queue standing: no more than run now
            return Bound(max(CHECKED_FLOOR, running), f"its checker's calls queue for {slots}: a call asked now "
                         f"would wait about {waits:.1f} s, past {SHARE:g} of its {deadline_s:.3g} s deadline")
        if per_check is None:
            return Bound(max(CHECKED_FLOOR, queue.slots), f"its checker serves {slots} at once, and how long a "
                         "check holds them is not known yet")
        if per_check <= 0:
            return None
        checks = max(CHECKED_FLOOR, math.floor(queue.slots * budget / per_check))
        return Bound(checks, f"as many as its checker's {slots} answer within {SHARE:g} of their {deadline_s:.3g} s "
                     f"deadline (a check holds them for about {per_check:.2g} s)")
