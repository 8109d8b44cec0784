"""A key's claims per minute, apart from its requests per minute (issue 59: one bucket for both let a chatbot
of one key send about 10 replies a minute, each reply's claims taking the tokens of its later requests).

A guard reply, and a ``/v1/check-response`` check, is one request of ``rate_limit_per_minute`` (replies per
minute, the key check) and as many claims of ``claims_per_minute`` as it checks: the most it may check
(``response.max_claims``) is reserved when it starts, so parallel replies cannot each start on one token, and
what it did not check is given back when it ends. A key whose claim bucket is empty is refused with a 429
naming the claims limit and when to retry."""

from __future__ import annotations

import math
from typing import Any

from fastapi import HTTPException

from factdebate.server.routes.verify import _RunSlot
from factdebate.server.security import RateLimiter
from factdebate.server.service import Service
from factdebate.server.state.shared import SharedRateLimiter
from factdebate.settings.model import Settings


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


def claimed_slot(service: Service, who: str, settings: Settings) -> tuple[_RunSlot, ClaimCharge]:
    """The run slot and the reply's claims reserved from the key's claim bucket (a 429 when it is empty)."""
    wait = service.claims_limiter.acquire(who)  # the reply's first claim
    if wait > 0:
        service.metrics.rate_limited.labels("claims").inc()
        retry = math.ceil(wait)
        raise HTTPException(429, f"this key's claims per minute are used up (the server checks at most "
                            f"{service.config.claims_per_minute:g} claims a minute for a key, claims_per_minute): "
                            f"retry in {retry} s", headers={"Retry-After": str(retry)})
    try:
        slot = _RunSlot(service)
    except BaseException:
        service.claims_limiter.charge(who, -1)  # refused for the server's load: its claim given back
        raise
    try:
        charge = ClaimCharge(service.claims_limiter, who, settings.response.max_claims)
    except BaseException:
        slot.release()
        raise
    slot.on_release.append(charge.settle)
    return slot, charge
