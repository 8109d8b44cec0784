"""Admission to the service, in one place: what a check or a debate must hold to run, and what refuses it.

- :class:`RunSlot`: one of ``max_active_runs`` debates or checks in progress (a 503 at the limit), across the
  service's processes when they share state; :class:`SlotStream` gives it back when its stream ends, however it
  ends.
- :class:`ClaimCharge` and :func:`claimed_slot`: a key's claims per minute, apart from its requests per minute
  (one bucket for both would hold a chatbot of one key to about 10 replies a minute). A guard reply or a
  ``/v1/check-response`` check is one request of ``rate_limit_per_minute`` and as many claims of
  ``claims_per_minute`` as it checks: the most it may check (``response.max_claims``) is reserved when it starts,
  so parallel replies cannot each start on one token, and what it did not check is given back when it ends (a
  429 naming the claims limit when the bucket is empty).
- :func:`admit_check`: a guard check's admission in one call. A check past what the service serves now (the
  adaptive limit, server/ops/adaptive.py; the operator's CPU cap) or that would not end within its deadline for
  the checks already running is shed (server/ops/shedding.py: a 503 with Retry-After, or under
  ``guard.on_overload: pass`` admitted to pass its reply unchecked, said), unless its key holds less than its
  fair share of what that limit admits while another key holds more (``CheckLoad.fair_turn``: the heavy
  key's new requests are the ones shed); then the slot and the claims are taken, and the check's model calls
  are its key's (llm/call_owner.py: they wait in the key's turn in the checker's queue, and what they hold
  of the checker's slots is what the key's next admissions reckon with).
  One call rather than five (shed, slot, start, end, release): the guard's front asks the service once and
  never reaches into its load, slots and buckets, which keeps the walk of a plain reply short.

Routes import these public names; nothing private crosses a module."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

from fastapi import HTTPException
from fastapi.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from factdebate.engine import CallOwner, GuardOptions, Settings, own_calls
from factdebate.server.ops.shedding import Shed
from factdebate.server.security import RateLimiter
from factdebate.server.service import Service
from factdebate.server.state.shared import SharedRateLimiter
from factdebate.server.streaming import RunFn, debate_stream

log = logging.getLogger("factdebate.server")
SAY_SHED_EVERY_S = 10.0


class RunSlot:
    """Counts interactive debates against ``max_active_runs``; ``release`` may be called more than once."""

    def __init__(self, service: Service) -> None:
        busy = HTTPException(503, "the server is at its limit of debates in progress; retry in 1 s",
                             headers={"Retry-After": "1"})
        if service.active_runs >= service.config.max_active_runs:
            raise busy
        # With shared state the cap holds across all the service's processes (serve --workers N).
        self._lease = service.shared.acquire_slot(service.config.max_active_runs) if service.shared else None
        if service.shared is not None and self._lease is None:
            raise busy
        service.active_runs += 1
        service.metrics.active.inc()
        self._service: Service | None = service
        self.on_release: list[Callable[[], None]] = []  # what else ends with the run (a rate-limit refund)

    def release(self) -> None:
        if self._service is not None:
            service, self._service = self._service, None
            try:
                for done in self.on_release:
                    done()
            finally:
                service.active_runs -= 1
                service.metrics.active.dec()
                if service.shared is not None and self._lease is not None:
                    service.shared.release_slot(self._lease)

    def stream(self, service: Service, run: RunFn) -> StreamingResponse:
        """The run's events as Server-Sent Events, holding this slot for the life of the stream."""
        return SlotStream(debate_stream(run, service.config.stream_ping_seconds,
                                         service.config.stream_flush_seconds), self.release)


class SlotStream(StreamingResponse):
    """An SSE response that gives its debate slot back when it ends, however it ends: finished, the client
    gone (even before the first frame), or a write that failed. Ending the frames also cancels the debate,
    so an abandoned stream spends no more model calls."""

    def __init__(self, frames: AsyncGenerator[bytes, None], release: Callable[[], None]) -> None:
        self._frames = frames
        self._release = release
        self._body = self._released_at_end()
        super().__init__(self._body, media_type="text/event-stream",
                         headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def _released_at_end(self) -> AsyncGenerator[bytes, None]:
        """The frames; once the last is written, the slot given back before the response's end is: a client
        that reads the end and asks again at once finds the slot free (after the end, the event loop could
        take its next request first)."""
        async for chunk in self._frames:
            yield chunk
        self._release()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            try:
                await self._body.aclose()
                await self._frames.aclose()
            finally:
                self._release()


class ClaimCharge:
    """A check's claims charged to a bucket, one token per claim it checks. The claims are known only after
    extraction, so the most the check may cost is taken before it starts (parallel checks cannot each start on
    one token: the first is taken by the caller, the ``most - 1`` others here) and what it did not check is
    given back when it ends."""

    def __init__(self, limiter: RateLimiter | SharedRateLimiter, who: str, most: int) -> None:
        self.limiter, self.who, self.most = limiter, who, max(1, most)
        self.claims: int | None = None
        self.settled = False
        limiter.charge(who, self.most - 1)

    def sink(self, event: dict[str, Any]) -> None:
        if self.claims is None and event.get("event") == "claims_extracted":
            self.claims = len(event.get("claims") or [])

    def settle(self) -> None:
        if not self.settled:
            self.settled = True
            self.limiter.charge(self.who, -(self.most - max(1, self.claims or 0)))


def claimed_slot(service: Service, who: str, settings: Settings) -> tuple[RunSlot, ClaimCharge]:
    """The run slot and the reply's claims reserved from the key's claim bucket (a 429 when it is empty); the
    model calls made from here on in the request are the key's (:func:`_calls_of`)."""
    slot, charge, _ = _claimed(service, who, settings)
    return slot, charge


def _calls_of(who: str) -> CallOwner:
    """The model calls the request makes from now on are ``who``'s (a key's id): they wait in its turn in each
    model server's queue (llm/in_flight.py), so that one key's calls do not wait behind all of another's, and
    the owner returned adds up what they held of each server's slots."""
    owner = CallOwner(who)
    own_calls(owner)
    return owner


def _claimed(service: Service, who: str, settings: Settings) -> tuple[RunSlot, ClaimCharge, CallOwner]:
    """:func:`claimed_slot`, with the owner of the request's model calls."""
    wait = service.claims_limiter.acquire(who)  # the reply's first claim
    if wait > 0:
        service.metrics.rate_limited.labels("claims").inc()
        retry = math.ceil(wait)
        raise HTTPException(429, f"this key's claims per minute are used up (the server checks at most "
                            f"{service.config.claims_per_minute:g} claims a minute for a key, claims_per_minute): "
                            f"retry in {retry} s", headers={"Retry-After": str(retry)})
    try:
        slot = RunSlot(service)
    except BaseException:
        service.claims_limiter.charge(who, -1)  # refused for the server's load: its claim given back
        raise
    try:
        charge = ClaimCharge(service.claims_limiter, who, settings.response.max_claims)
    except BaseException:
        slot.release()
        raise
    slot.on_release.append(charge.settle)
    return slot, charge, _calls_of(who)


class ServiceAdmission:
    """A check's admission as the service's hosts give it (``Host.admit``): a run slot (503 at the server's limit
    of checks) and the most claims' tokens, settled at release; the check counted in the process's load
    (server/ops/shedding.py) until then, unless it was let through unchecked (``overloaded``)."""

    def __init__(self, slot: RunSlot, charge: ClaimCharge, end: Callable[[], None] | None,
                 overloaded: str | None = None, teach: Callable[[bool], None] | None = None) -> None:
        self.slot, self.charge_of, self.end, self.overloaded = slot, charge, end, overloaded
        # What its end says of the checker, for its key (CheckLoad.check_ended): admitted to be checked, at a
        # deadline no shorter than the operator's.
        self.teach = teach

    def check_ended(self, past_deadline: bool) -> None:
        """The check's result: whether it ran past its deadline, taught to its key's checker's limit."""
        if self.teach is not None:
            self.teach(past_deadline)

    def charge(self, claims: int) -> None:
        if self.charge_of.claims is None:
            self.charge_of.claims = claims

    def release(self) -> None:
        if self.end is not None:
            self.end()
        self.slot.release()


def admit_check(service: Service, who: str, settings: Settings, deadline_s: float | None) -> ServiceAdmission:
    """The check of ``who`` (a key's id) admitted, or refused as an ``HTTPException`` (503 shed or at the limit
    of checks, 429 out of claims). ``deadline_s``: the deadline the request asked for (None: the operator's)."""
    guard = settings.guard
    deadline = GuardOptions(deadline_s=deadline_s).deadline_within(settings)  # as the check's options resolve it
    operators = operator_deadline_s(settings)
    load = service.load
    shed = load.shed(guard.checks_at_once, deadline, guard.max_loop_lag_ms, guard.max_cpu_share, operators, who)
    # A key under its share is admitted though the service is full; the heavy key's next requests pay for it.
    past = shed is not None and load.fair_turn(who, shed.capacity)
    if past:
        shed = None
    if shed is not None and (refused := _shed(service, guard.on_overload, shed)) is not None:
        raise refused
    slot, charge, owner = _claimed(service, who, settings)
    if shed is not None:
        return ServiceAdmission(slot, charge, None, shed.why)
    end = load.start(guard.checks_at_once, guard.max_loop_lag_ms, who, past, owner.held_s)
    teach = (lambda missed: load.check_ended(missed, who, deadline)) if deadline >= operators else None
    return ServiceAdmission(slot, charge, end, teach=teach)


def operator_deadline_s(settings: Settings) -> float:
    """A guard check's deadline unless its caller asks for another: what the checker's limits reckon with."""
    return GuardOptions().deadline_within(settings)


def _shed(service: Service, on_overload: str, shed: Shed) -> HTTPException | None:
    """A shed request counted (and said in the log now and then); its 503 where ``on_overload`` is 503."""
    count_shed(service, on_overload, shed)
    if on_overload != "503":
        return None
    return HTTPException(503, shed.message, headers={"Retry-After": str(shed.retry_after_s)})


def count_shed(service: Service, on_overload: str, shed: Shed) -> None:
    """A shed request counted in the metrics, and said in the log now and then (not a line per request)."""
    service.metrics.shed.labels(on_overload).inc()
    if time.monotonic() - service.load.said_at > SAY_SHED_EVERY_S:
        service.load.said_at = time.monotonic()
        log.warning("guard requests are being shed (%s; factdebate_shed_requests_total counts them): %s",
                    on_overload, shed.why)
