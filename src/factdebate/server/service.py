"""The service's state, one object per app: configuration, keys, limits, settings, resources and batches.
Routes reach it through ``request.app.state.service``."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request

from factdebate.engine import ResourcePool, Resources, Settings
from factdebate.server.config import ServiceConfig
from factdebate.server.ops.metrics import Metrics
from factdebate.server.ops.shedding import CheckLoad
from factdebate.server.ops.shutdown import Stopping
from factdebate.server.ops.tracing import Tracing
from factdebate.server.ops.warmup import WarmUp, needs_warm_up
from factdebate.server.options import SettingsResolver
from factdebate.server.routes.batches import BatchRunner
from factdebate.server.security import KeyRing, RateLimiter
from factdebate.server.state.batch_store import BatchStore
from factdebate.server.state.check_store import CheckStore
from factdebate.server.state.shared import SharedRateLimiter, SharedState, worker_id
from factdebate.util.paths import data_dir
from factdebate.util.scrub import remember_settings

# What builds a run's resources from its settings (tests pass one that builds scripted models).
Builder = Callable[[Settings], Resources]
AUTH_FAILURES_PER_MINUTE = 10
log = logging.getLogger(__name__)


@dataclass
class Service:
    config: ServiceConfig
    keys: KeyRing
    limiter: RateLimiter | SharedRateLimiter
    claims_limiter: RateLimiter | SharedRateLimiter  # claims per minute per key, apart (server/admission.py)
    resolver: SettingsResolver
    pool: ResourcePool
    store: BatchStore
    runner: BatchRunner
    checks: CheckStore
    active_runs: int = 0
    started: float = field(default_factory=time.time)
    # Failed authentications per client address: guessing keys costs a 429 after a few tries, even when
    # the per-key rate limit is off.
    auth_failures: RateLimiter | SharedRateLimiter = field(
        default_factory=lambda: RateLimiter(AUTH_FAILURES_PER_MINUTE))
    shared: SharedState | None = None  # limits and caps shared with the service's other processes
    # What the guard's checks need, loaded before /v1/health says ready (server/ops/warmup.py); an app run without
    # a lifespan (embedded in another program) never starts one and is ready as it is.
    warm_up: WarmUp = field(default_factory=lambda: WarmUp(ready=True, doing="not started"))
    # Set near the end of the grace period after a stop signal: the guard's requests answer then (shutdown.py).
    stopping: Stopping = field(default_factory=Stopping)
    metrics: Metrics = field(default_factory=Metrics)  # GET /metrics (server/ops/metrics.py)
    load: CheckLoad = field(default_factory=CheckLoad)  # the guard's checks in flight, for shedding (admission.py)
    tracing: Tracing | None = None  # OpenTelemetry, when the OTEL_* variables ask for it (server/ops/tracing.py)

    @classmethod
    def build(cls, config: ServiceConfig, build: Builder | None = None) -> Service:
        # Its keys, database URL and endpoints reach no caller, whatever text carries them (util/scrub/).
        remember_settings(config.model_dump(mode="json"), secrets=config.secret_values())
        pool = ResourcePool(config.resource_cache_size, build, lite_copies=config.shared_state)
        # A database server holds everything (replicas on several machines); otherwise the batch store's
        # SQLite file, with the shared limits in it or in the state_db file.
        store = BatchStore(config.state_db if config.state_db and config.uses_state_server else
                           (config.db_path or data_dir() / "service.sqlite"))
        shared = None
        if config.shared_state or config.uses_state_server:
            on_server_or_store = config.state_db is None or config.uses_state_server
            shared = SharedState(store.db if on_server_or_store else str(config.state_db))
        limiter: RateLimiter | SharedRateLimiter = RateLimiter(config.rate_limit_per_minute, config.rate_burst)
        failures: RateLimiter | SharedRateLimiter = RateLimiter(AUTH_FAILURES_PER_MINUTE)
        # rate_limit_per_minute 0 turns a key's limits off, its claims' too (as when they shared one bucket)
        claims_rate = config.claims_per_minute if config.rate_limit_per_minute > 0 else 0
        claims: RateLimiter | SharedRateLimiter = RateLimiter(claims_rate, config.claims_burst)
        if shared is not None:
            limiter = SharedRateLimiter(shared, config.rate_limit_per_minute, config.rate_burst, "key:")
            claims = SharedRateLimiter(shared, claims_rate, config.claims_burst, "claims:")
            failures = SharedRateLimiter(shared, AUTH_FAILURES_PER_MINUTE, None, "auth:")
        # Processes sharing the store also share the batches they run (one process alone has nothing to join).
        store.lease_s = config.heartbeat_lease_s
        if shared is not None:
            shared.lease_s = config.heartbeat_lease_s
        runner = BatchRunner(store, pool.get, config.batch_concurrency, config.batch_join_seconds if shared else 0)
        return cls(config=config, keys=KeyRing(config.key_values(), config.allow_anonymous),
                   limiter=limiter, claims_limiter=claims, auth_failures=failures, shared=shared,
                   resolver=SettingsResolver(config.defaults, config.config_file, config.allowed_llms, config.caps,
                                             config.allowed_mcp_tools, config.allowed_corpora, config.key_corpora),
                   pool=pool, store=store, runner=runner,
                   checks=CheckStore(store.db, config.kept_checks_per_key, config.kept_checks_days * 86_400))

    def resources(self, settings: Settings) -> Resources:
        return self.pool.get(settings)

    def start_warm_up(self) -> asyncio.Task[None] | None:
        """Start loading what the operator's guard settings need (None: nothing to load, ready now)."""
        settings = self.resolver.base
        if not needs_warm_up(settings):
            return None
        self.warm_up = WarmUp()
        return asyncio.create_task(self.warm_up.run(settings, self.resources), name="warm-up")

    def beat(self) -> None:
        """Tell the service's other processes that this one is alive (they free a silent one's claims and
        debate slots after the lease)."""
        self.store.beat(worker_id())
        if self.shared is not None and self.shared.db is not self.store.db:
            self.shared.beat()

    async def heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.config.heartbeat_lease_s / 4)  # four beats a lease
            try:
                await asyncio.to_thread(self.beat)
            except Exception:  # a database hiccup must not end the heartbeat; the next beat tries again
                log.warning("heartbeat to the state database failed", exc_info=True)


# Dependencies are async on purpose: FastAPI runs plain `def` dependencies in a worker thread, a hop that
# cost more than the whole check under load.
async def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


ServiceDep = Annotated[Service, Depends(get_service)]


async def caller(service: ServiceDep, request: Request,
                 authorization: Annotated[str | None, Header(include_in_schema=False)] = None) -> str:
    """Authenticates the request and charges it to the caller's rate bucket; returns the caller's key id."""
    who = service.keys.identify(authorization)
    if who is None:
        address = request.client.host if request.client else "unknown"
        wait = service.auth_failures.acquire(f"auth-failed:{address}")
        if wait > 0:
            service.metrics.rate_limited.labels("failed_authentications").inc()
            raise HTTPException(429, f"too many failed authentications: retry in {math.ceil(wait)} s",
                                headers={"Retry-After": str(math.ceil(wait))})
        raise HTTPException(401, "missing or invalid API key: send 'Authorization: Bearer <key>'",
                            headers={"WWW-Authenticate": "Bearer"})
    wait = service.limiter.acquire(who)
    if wait > 0:
        service.metrics.rate_limited.labels("requests").inc()
        raise HTTPException(429, f"rate limit exceeded: retry in {math.ceil(wait)} s",
                            headers={"Retry-After": str(math.ceil(wait))})
    return who


CallerDep = Annotated[str, Depends(caller)]
