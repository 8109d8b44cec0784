"""The driver's side of a Ray run: a pool of :class:`~factdebate.scale.worker.ClaimWorker` actors, each
fed by a few lanes that pull claims from one shared queue (so a slow worker takes fewer).

Exactly once: only this process writes records. A dead worker's claims go to its replacement; a claim that
kills workers repeatedly ends as an error record."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from factdebate.corpus.milvus_uri import is_lite_uri
from factdebate.methods.base import Method
from factdebate.methods.resources import RunScope
from factdebate.run.build import builtin_engines, ensure_indexes
from factdebate.scale.lite_copy import close_lite_clients
from factdebate.scale.ray_start import join_ray, start_local_ray
from factdebate.scale.worker import ClaimWorker, ResourceBuilder
from factdebate.settings.model import Settings
from factdebate.util.errors import ConfigError, FactDebateError, MissingDependencyError

Handle = Callable[[dict[str, Any], list[dict[str, Any]]], Awaitable[None]]
MAX_ATTEMPTS = 3  # workers a claim may take down before it is recorded as an error


class WorkerStartError(FactDebateError):
    """A worker could not build its resources (a missing index or key, a bad model spec...)."""


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise MissingDependencyError("ray", "ray") from exc
    return ray


class RayPool:
    """``async with RayPool(settings) as pool``: joins ``scale.ray_address`` or starts a local Ray, and
    ``scale.workers`` actors. ``run``: the evaluation or batch they serve."""

    def __init__(self, settings: Settings, *, builder: ResourceBuilder | None = None, trace: bool = False,
                 context: Any = None, run: RunScope | None = None) -> None:
        self.settings = settings
        self.run = run
        self.scale = settings.scale
        self.builder = builder
        self.trace = trace
        self.context = context
        self.actors: list[Any] = []
        self.generation: list[int] = []
        self.restarts = 0  # workers replaced after dying
        self._owns_ray = False

    # -- lifecycle -----------------------------------------------------------------------------------
    async def __aenter__(self) -> RayPool:
        check_lite_sharing(self.settings, self.builder)
        check_order(self.settings)
        if self.builder is None and builtin_engines(self.settings):
            await asyncio.to_thread(ensure_indexes, self.settings, wait=True)  # once, here, before any worker copies it
            close_lite_clients()
        ray = _ray()
        if not ray.is_initialized():
            self._init_ray(ray)  # on the main thread, where Ray installs its signal handlers
        try:
            self._remote = ray.remote(ClaimWorker)
            self.actors = [self._spawn(i) for i in range(self.scale.workers)]
            self.generation = [0] * self.scale.workers
            try:
                problems = await asyncio.gather(*(actor.ready.remote() for actor in self.actors))  # until built
            except ray.exceptions.RayActorError as exc:
                problems = [_cause(exc)]
            if any(problems):
                raise WorkerStartError(f"a Ray worker could not start: {next(p for p in problems if p)}")
        except BaseException:
            await self.aclose()  # and stop the Ray instance this pool started
            raise
        return self

    def _init_ray(self, ray: Any) -> None:
        quiet: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
        if self.scale.ray_address:
            join_ray(ray, self.scale.ray_address, **quiet)
            return
        cpus = max(os.cpu_count() or 1, int(self.scale.workers * self.scale.worker_cpus + 0.999))
        start_local_ray(ray, cpus, **quiet)
        self._owns_ray = True

    def _spawn(self, index: int) -> Any:
        data = self.settings.model_dump(mode="json")
        # The settings travel whole; of the environment only the data directory does (indexes, cache), when
        # it is set here (on a cluster that path must then exist on every node). Workers run in a folder of
        # their own (ray_start.py), so paths relative to ours are made absolute.
        env = {name: os.path.abspath(os.environ[name]) for name in ("FACTDEBATE_DATA_DIR",) if name in os.environ}
        uri = data["retrieval"].get("milvus_uri")
        if uri and is_lite_uri(uri):
            data["retrieval"]["milvus_uri"] = os.path.abspath(os.path.expanduser(uri))
        return self._remote.options(num_cpus=self.scale.worker_cpus, max_restarts=0, max_concurrency=1000,
                                    runtime_env={"env_vars": env}).remote(
            data, index, self.builder, self.context, self.trace, self.run)

    async def aclose(self) -> None:
        ray = _ray()
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors = []
        if self._owns_ray:
            await asyncio.to_thread(ray.shutdown)
            self._owns_ray = False

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def pids(self) -> list[int]:
        return list(await asyncio.gather(*(actor.pid.remote() for actor in self.actors)))

    # -- running ------------------------------------------------------------------------------------
    async def run_claims(self, items: list[Any], settings: Settings, handle: Handle) -> None:
        from factdebate.run.batch import error_record

        await self._run("claim", items, handle, lambda item, why: error_record(item, why, settings))

    async def run_samples(self, samples: list[Any], plan: Any, handle: Handle) -> None:
        from factdebate.eval.runner import error_record

        await self._run("sample", samples, handle, error_record)

    async def _run(self, kind: str, payloads: list[Any], handle: Handle,
                   lost: Callable[[Any, str], dict[str, Any]]) -> None:
        queue = deque(payloads)
        per_worker = self.scale.worker_concurrency or self.settings.concurrency

        async def lane(slot: int) -> None:
            while queue:
                payload = queue.popleft()
                try:
                    record, events = await self._attempt(slot, kind, payload)
                except ClaimFailed as exc:
                    record, events = lost(payload, str(exc)), []
                await handle(record, events)

        await asyncio.gather(*(lane(slot) for slot in range(len(self.actors)) for _ in range(per_worker)))

    async def _attempt(self, slot: int, kind: str, payload: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        ray = _ray()
        for _ in range(MAX_ATTEMPTS):
            actor, generation = self.actors[slot], self.generation[slot]
            try:
                result: tuple[dict[str, Any], list[dict[str, Any]]] = await actor.run.remote(kind, payload)
                return result
            except ray.exceptions.RayActorError:
                self._replace(slot, generation)
            except ray.exceptions.RayTaskError as exc:  # records carry their errors; this is the worker's own
                raise ClaimFailed(f"the Ray worker failed: {_cause(exc)}") from None
        raise ClaimFailed(f"Ray workers died {MAX_ATTEMPTS} times while running this claim; it was not "
                         "recorded as done, so a re-run tries it again")

    def _replace(self, slot: int, generation: int) -> None:
        """Start a fresh worker in ``slot`` unless a lane that saw the same death already did."""
        if self.generation[slot] != generation:
            return
        _ray().kill(self.actors[slot], no_restart=True)
        self.actors[slot] = self._spawn(slot)
        self.generation[slot] += 1
        self.restarts += 1


class ClaimFailed(Exception):
    """A claim that got no record from any worker: it is recorded as an error, to be retried by a re-run."""


def _cause(exc: BaseException) -> str:
    """The worker's own error, not Ray's wrapping of it."""
    text = str(exc)
    for line in reversed(text.splitlines()):
        if "Error" in line or "error" in line:
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else type(exc).__name__


def check_lite_sharing(settings: Settings, builder: ResourceBuilder | None) -> None:
    """Milvus Lite serves one process: refuse a pool whose workers would open the same Lite database."""
    from factdebate.corpus.milvus import default_milvus_uri, is_lite_uri
    from factdebate.run.build import tools_needed

    uri = settings.retrieval.milvus_uri or default_milvus_uri()
    if (builder is None and "rag" in tools_needed(settings) and is_lite_uri(uri) and not settings.scale.lite_copy
            and settings.scale.workers > 1):
        raise ConfigError(f"{settings.scale.workers} Ray workers would open the Milvus Lite database {uri} "
                          "together, and Milvus Lite serves one process at a time: point --milvus-uri at a "
                          "Milvus server, or set scale.lite_copy (each worker searches its own copy)")


def check_order(settings: Settings) -> None:
    """A method whose claims must run one at a time is refused before any worker starts."""
    reason = Method.named(settings.method).in_order(settings)
    if reason:
        raise ConfigError(f"{settings.method} cannot spread its claims over Ray workers: {reason}; use the local "
                          "executor")


def slim_plan(plan: Any) -> Any:
    """The plan without its samples (each worker gets the plan once; samples travel one by one)."""
    return dataclasses.replace(plan, samples=[], dataset=dataclasses.replace(plan.dataset, samples=[]))
