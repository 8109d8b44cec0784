"""Bearer API keys and a per-key token-bucket rate limit.

Keys are compared in constant time and are never stored or logged as such: everything downstream (rate
buckets, batch ownership, log lines) sees only a short hash of the key."""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from dataclasses import dataclass

ANONYMOUS = "anonymous"


def key_id(key: str) -> str:
    return "key-" + hashlib.sha256(key.encode()).hexdigest()[:10]


# Where a request's scope state carries the API key's id (server/mcp/http.py puts it there for the MCP tools).
CALLER_STATE = "factdebate_caller"

class KeyRing:
    def __init__(self, keys: list[str], allow_anonymous: bool = False) -> None:
        self._keys = [k.encode() for k in keys]
        self.allow_anonymous = allow_anonymous

    @property
    def required(self) -> bool:
        return not self.allow_anonymous

    def identify(self, authorization: str | None) -> str | None:
        """The caller's key id, ``ANONYMOUS`` when keys are off, None when the header is missing or wrong."""
        if self.allow_anonymous:
            return ANONYMOUS
        if not authorization:
            return None
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        candidate = token.strip().encode()
        # Compare with every key (no early exit) so timing does not tell which prefix matched.
        matched = None
        for key in self._keys:
            if hmac.compare_digest(candidate, key):
                matched = key
        return key_id(matched.decode()) if matched is not None else None


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """``per_minute`` requests on average, up to ``burst`` at once; 0 turns limiting off."""

    def __init__(self, per_minute: float, burst: int | None = None, max_clients: int = 10_000) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(burst or max(1, math.ceil(per_minute)))
        self._buckets: dict[str, _Bucket] = {}
        self._max_clients = max_clients

    def acquire(self, client: str, now: float | None = None) -> float:
        """0 when allowed, else the seconds to wait before the next request would be allowed."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(client)
        if bucket is None:
            if len(self._buckets) >= self._max_clients:
                self._buckets.clear()  # bounded memory; forgetting buckets only ever loosens the limit
            bucket = self._buckets[client] = _Bucket(self.capacity, now)
        bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.rate

    def charge(self, client: str, tokens: float, now: float | None = None) -> None:
        """Take ``tokens`` more from ``client`` (negative: give them back), never refusing: for a request whose
        cost is known only as it runs. The bucket may go below zero; the client then waits until it refills."""
        if self.rate <= 0 or not tokens:
            return
        now = time.monotonic() if now is None else now
        bucket = self._buckets.setdefault(client, _Bucket(self.capacity, now))
        bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.updated) * self.rate - tokens)
        bucket.updated = now
