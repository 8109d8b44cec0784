"""A guard check's admission on the service, in one call (:func:`admit_check`): a check that would not end
within its deadline for the checks already running is shed (server/ops/shedding.py: a 503 with Retry-After, or
under ``guard.on_overload: pass`` admitted to pass its reply unchecked, said), then the run slot and the
reply's claims are taken (server/claim_limit.py: a 503 at the server's limit of checks, a 429 when the key's
claims per minute are used up). What it returns settles the claims and gives all of it back at release.

One call rather than the five the host made (shed, slot, start, end, release): the guard's face asks the
service once and never reaches into its load, slots and buckets (issue 57: the walk of a plain reply)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from fastapi import HTTPException

from factdebate.guard.call import Admission
from factdebate.server.claim_limit import ClaimCharge, claimed_slot
from factdebate.server.routes.verify import _RunSlot
from factdebate.server.service import Service
from factdebate.settings.model import Settings

log = logging.getLogger("factdebate.server")
SAY_SHED_EVERY_S = 10.0


class ServiceAdmission(Admission):
    """A run slot (503 at the server's limit of checks) and the most claims' tokens, settled at release; the
    check counted in the process's load (server/ops/shedding.py) until then, unless it was let through unchecked
    (``overloaded``)."""

    def __init__(self, slot: _RunSlot, charge: ClaimCharge, end: Callable[[], None] | None,
                 overloaded: str | None = None) -> None:
        self.slot, self.charge_of, self.end, self.overloaded = slot, charge, end, overloaded

    def charge(self, claims: int) -> None:
        if self.charge_of.claims is None:
            self.charge_of.claims = claims

    def release(self) -> None:
        if self.end is not None:
            self.end()
        self.slot.release()


def admit_check(service: Service, who: str, settings: Settings, deadline_s: float | None) -> ServiceAdmission:
    """The check of ``who`` admitted, or refused as an ``HTTPException`` (503 shed or at the limit of checks,
    429 out of claims). ``deadline_s``: the deadline the request asked for (None: the operator's)."""
    guard = settings.guard
    deadline = min(deadline_s or guard.deadline_s, guard.max_deadline_s)
    shed = service.load.shed(guard.checks_at_once, deadline, guard.max_loop_lag_ms)
    if shed is not None:
        service.metrics.shed.labels(guard.on_overload).inc()
        if time.monotonic() - service.load.said_at > SAY_SHED_EVERY_S:  # one line now and then, not a flood
            service.load.said_at = time.monotonic()
            log.warning("guard requests are being shed (%s; factdebate_shed_requests_total counts them): %s",
                        guard.on_overload, shed.why)
        if guard.on_overload == "503":
            raise HTTPException(503, f"overloaded: {shed.why}; retry in {shed.retry_after_s} s",
                                headers={"Retry-After": str(shed.retry_after_s)})
    slot, charge = claimed_slot(service, who, settings)
    if shed is not None:
        return ServiceAdmission(slot, charge, None, shed.why)
    return ServiceAdmission(slot, charge, service.load.start(guard.checks_at_once))
