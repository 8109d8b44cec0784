"""How many requests may be in flight to one model server at once, for the whole process.

A local server often serves one request at a time and queues the rest while their timeouts run, so a method
that fans out timed out on requests not yet started. The limit makes them wait here, where no timeout runs:
one per endpoint and event loop, shared by every role and claim. ``llm.max_in_flight`` sets it; unset, it is
1 on loopback and 64 elsewhere, unless a local server says otherwise (llm/server_slots.py, :func:`learn`).

A request holds a :class:`CallQueue`'s turn, which also keeps what the service's admission reads of each server
(server/ops/shedding.py): its slots, the calls in flight and waiting, and how long a call holds its slot, so
a guard admits no more replies than the checker can check within their deadline."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import ipaddress
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from urllib.parse import urlsplit

from factdebate.llm.call_owner import call_owner
from factdebate.llm.server_slots import Slots

log = logging.getLogger(__name__)

LOCAL_LIMIT = 1
REMOTE_LIMIT = 64
ASK_WITHIN_S = 5.0  # asking a server what it serves at once (its model list, then /props) takes no longer

CALL_LEARN = 0.2  # weight of the newest call's seconds in a queue's moving average
OWNERS_KEPT = 1024  # owners whose calls' seconds a queue keeps, the least recently used dropped


class CallQueue:
    """One server's calls on one event loop: at most ``slots`` in flight, the rest waiting their turn, and what
    admission reads: ``running``, ``waiting``, ``call_s`` (a moving average of a call's seconds; None until one
    ends) and ``busy_s`` (every ended call's seconds, added up).

    The waiting calls are served fairly between their owners (llm/call_owner.py: a service's key), as start-time
    fair queueing serves flows, in the seconds of the server's time they take: each owner's calls in the order
    they came, the owners in turn. A call's start is the start of the call served last, or the start of its
    owner's newest call (waiting or in flight) plus what one of the owner's calls takes (a moving average of their
    seconds), whichever is later; the call of the earliest start goes next (the one that came first of two
    alike). So a key whose first call comes while another key has a hundred waiting is served after the calls in
    hand, not after the hundred; a key whose calls take a quarter of another's gets four calls to its one; and one
    owner alone is served first in, first out."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.waiting = 0
        self.call_s: float | None = None
        self.busy_s = 0.0
        self._since: dict[int, float] = {}  # each call in flight's start (perf_counter), by its id
        self._ids = 0
        self._free = slots
        self._queued: list[tuple[float, int, _Waiter]] = []  # a heap of (start, arrival, waiter)
        # each owner with calls waiting or in flight: (their count, the newest one's start)
        self._newest: dict[str, tuple[int, float]] = {}
        self._start = 0.0  # the start of the call last given a slot
        self._arrivals = 0
        self._call_s_of: OrderedDict[str, float] = OrderedDict()  # each owner's calls' seconds, a moving average

    @property
    def running(self) -> int:
        return len(self._since)

    def held_s(self) -> float:
        """The seconds a call holds its slot: the moving average, else the oldest running call's time so far."""
        if self.call_s is not None:
            return self.call_s
        return time.perf_counter() - min(self._since.values()) if self._since else 0.0

    def wait_s(self, owner: str | None = None) -> float:
        """The seconds a call asked now would wait for a slot (0 while one is free): behind every call waiting,
        or, for ``owner``'s call, behind those served before it in turn."""
        ahead = (self.waiting if owner is None else self._before(owner)) + self.running + 1 - self.slots
        return 0.0 if ahead <= 0 else ahead * self.held_s() / self.slots

    def _start_of(self, owner: str) -> float:
        """The start of a call of ``owner`` asked now."""
        newest = self._newest.get(owner)
        if newest is None:
            return self._start
        return max(self._start, newest[1] + (self._call_s_of.get(owner) or self.call_s or 1.0))

    def _before(self, owner: str) -> int:
        """The calls waiting that would be served before a call of ``owner`` asked now."""
        start = self._start_of(owner)
        return sum(1 for queued, _, _ in self._queued if queued <= start)

    def turn(self) -> _Turn:
        """What one call holds while in flight (``async with``): a slot, its seconds learnt when it ends."""
        self._ids += 1
        return _Turn(self, self._ids)

    async def _acquire(self, owner: str) -> None:
        start = self._start_of(owner)
        self._newest[owner] = (self._newest.get(owner, (0, 0.0))[0] + 1, start)
        if self._free > 0 and not self._queued:
            self._free -= 1
            self._start = start
            return
        waiter = _Waiter(owner, asyncio.get_running_loop().create_future())
        self._arrivals += 1
        heapq.heappush(self._queued, (start, self._arrivals, waiter))
        self.waiting += 1
        try:
            await waiter.future
        except asyncio.CancelledError:
            if waiter.queued:  # cancelled while it waited: out of the queue
                self._queued = [entry for entry in self._queued if entry[2] is not waiter]
                heapq.heapify(self._queued)
                waiter.queued = False
                self.waiting -= 1
                self._done(owner)
            elif not waiter.future.cancelled():  # given a slot as it was cancelled: the slot to the next
                self._release(owner)
            raise

    def _done(self, owner: str) -> None:
        """A call of ``owner`` out of the queue and its slot: the owner's count of calls in hand less one (the
        owner forgotten at none, so the table holds only owners with calls in hand)."""
        count, newest = self._newest[owner]
        if count > 1:
            self._newest[owner] = (count - 1, newest)
        else:
            del self._newest[owner]

    def _release(self, owner: str) -> None:
        """``owner``'s slot given back: to the waiting call of the earliest start, if any."""
        self._done(owner)
        self._free += 1
        while self._free > 0 and self._queued:
            start, _, waiter = heapq.heappop(self._queued)
            waiter.queued = False
            self.waiting -= 1
            if waiter.future.done():  # its task was cancelled and has not run since
                self._done(waiter.owner)
                continue
            self._free -= 1
            self._start = start
            waiter.future.set_result(None)

    def _ended(self, owner: str, seconds: float) -> None:
        """A call of ``owner`` held its slot ``seconds``: the queue's and the owner's moving averages."""
        self.busy_s += seconds
        self.call_s = seconds if self.call_s is None else (1 - CALL_LEARN) * self.call_s + CALL_LEARN * seconds
        before = self._call_s_of.pop(owner, None)
        self._call_s_of[owner] = seconds if before is None else (1 - CALL_LEARN) * before + CALL_LEARN * seconds
        if len(self._call_s_of) > OWNERS_KEPT:
            self._call_s_of.popitem(last=False)

    @staticmethod
    def on_this_loop() -> list[CallQueue]:
        """The queues of the running event loop (none outside one): a server each that this loop has called."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return []
        return list(_slots.get(loop, {}).values())


@dataclass(eq=False)
class _Waiter:
    owner: str
    future: asyncio.Future[None]
    queued: bool = True


class _Turn:
    """One call's turn in a :class:`CallQueue`, taken in its owner's turn (llm/call_owner.py)."""

    def __init__(self, queue: CallQueue, number: int) -> None:
        self.queue, self.number = queue, number
        self.owner = call_owner()
        self.who = self.owner.who if self.owner is not None else ""

    async def __aenter__(self) -> None:
        queue = self.queue
        await queue._acquire(self.who)
        queue._since[self.number] = time.perf_counter()

    async def __aexit__(self, *_: object) -> None:
        queue = self.queue
        seconds = time.perf_counter() - queue._since.pop(self.number)
        queue._release(self.who)
        queue._ended(self.who, seconds)
        if self.owner is not None:
            self.owner.held(queue, seconds)


_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, CallQueue]] = (
    weakref.WeakKeyDictionary())
# What each local server said of itself (None: nothing usable), once per process, for every loop.
_learned: dict[str, Slots | None] = {}
_asking: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Future[None]]] = (
    weakref.WeakKeyDictionary())


def is_loopback(endpoint: str) -> bool:
    host = (urlsplit(endpoint).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def default_limit(endpoint: str) -> int:
    if not is_loopback(endpoint):
        return REMOTE_LIMIT
    said = _learned.get(_key(endpoint))
    return said.count if said is not None else LOCAL_LIMIT


def _key(endpoint: str) -> str:
    return endpoint.rstrip("/")


def learned(endpoint: str) -> Slots | None:
    """What the server at ``endpoint`` said of the requests it serves at once, if it was asked and said."""
    return _learned.get(_key(endpoint))


def remember(endpoint: str, said: Slots | None) -> None:
    """Keep what the server said (the start-up probe, run/model_servers.py, asks before any model is called)."""
    if is_loopback(endpoint):
        _learned[_key(endpoint)] = said


def wants_asking(endpoint: str, setting: int | None) -> bool:
    """Whether a model's first request should ask a local server first (no limit set, not asked yet)."""
    return not setting and bool(endpoint) and is_loopback(endpoint) and _key(endpoint) not in _learned


async def learn(endpoint: str, ask: Callable[[], Awaitable[Slots | None]]) -> None:
    """Ask the server once per process; one silent past :data:`ASK_WITHIN_S` is asked again later."""
    key = _key(endpoint)
    if key in _learned:
        return
    per_loop = _asking.setdefault(asyncio.get_running_loop(), {})
    asking = per_loop.get(key)
    if asking is None:
        asking = per_loop[key] = asyncio.ensure_future(_ask(key, ask))
        asking.add_done_callback(lambda _: per_loop.pop(key, None))
    await asyncio.shield(asking)  # one caller cancelled does not cancel the others' answer


async def _ask(key: str, ask: Callable[[], Awaitable[Slots | None]]) -> None:
    try:
        async with asyncio.timeout(ASK_WITHIN_S):  # a server that hangs on its model list holds no call for long
            said = await ask()
    except Exception as exc:  # asking is a courtesy: a failure leaves the address's default, asked again later
        log.debug("asking a model server's slots failed: %s", type(exc).__name__)
        return
    _learned.setdefault(key, said)


def limit_for(endpoint: str, setting: int | None) -> int | None:
    """The limit for ``endpoint``; ``None`` for an in-process backend (no endpoint: it has its own)."""
    if not endpoint:
        return None
    return setting or default_limit(endpoint)


def slot(endpoint: str, limit: int | None) -> AbstractAsyncContextManager[object]:
    """What a request to ``endpoint`` holds while in flight; the first limit asked for on this loop is kept."""
    if limit is None:
        return contextlib.nullcontext()
    per_loop = _slots.setdefault(asyncio.get_running_loop(), {})
    queue = per_loop.get(endpoint)
    if queue is None:
        queue = per_loop[endpoint] = CallQueue(limit)
    return queue.turn()
