"""Batch jobs: parsing a JSONL upload, running its claims in the background with bounded concurrency, and
resuming unfinished jobs when the service starts."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import Callable
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception

from factdebate.engine import ClaimItem, Resources, Settings, run_claim
from factdebate.server.options import public_verdict
from factdebate.server.state.batch_store import BatchStore
from factdebate.server.state.db import process_alive
from factdebate.server.state.shared import worker_id
from factdebate.util.errors import FactDebateError, InputError
from factdebate.util.scrub import hide_endpoints, redact_value
from factdebate.util.storage_full import STORAGE

log = logging.getLogger("factdebate.server")
BATCH_PART = "batches"
RECORD_RETRY_SECONDS = 5.0  # how often a result the storage refused is tried again


def parse_jsonl(text: str, settings: Settings, max_claims: int) -> list[ClaimItem]:
    """The upload's claims (see :meth:`ClaimItem.from_lines`), each validated up front so a
    bad row is reported with its line before any work starts (an API caller gets a 422 at once, where the
    CLI records the line as an error and runs the rest)."""
    items = ClaimItem.from_lines(text.splitlines())
    for item in items:
        if item.error:
            raise InputError(item.error)
    if len(items) > max_claims:
        raise InputError(f"too many claims: the limit is {max_claims} per batch")
    for item in items:
        try:
            item.claim = settings.checked_claim(item.claim)
        except InputError as exc:
            raise InputError(f"line {item.line}: {exc}") from exc
    if not items:
        raise InputError("the batch holds no claims: send one JSON object per line with a 'claim' field")
    return items


_RUNNERS: set[str] = set()  # the runners of this process that are running (an app may be started again)


def _worker_alive(worker: str, fresh: set[str]) -> bool:
    """Whether the runner that took a claim (``host:pid:n``) still runs: in this process, one of _RUNNERS;
    elsewhere on this machine, its process; on another machine, a process that beat within the lease."""
    host, pid, _ = [*worker.split(":"), "", ""][:3]
    if host == socket.gethostname() and pid == str(os.getpid()):
        return worker in _RUNNERS
    return pid.isdigit() and process_alive(host, int(pid), fresh)


class BatchRunner:
    def __init__(self, store: BatchStore, resources_for: Callable[[Settings], Resources], concurrency: int,
                 join_seconds: float = 0) -> None:
        self.store = store
        self.resources_for = resources_for
        self.concurrency = concurrency
        # > 0: every so often, join the batches other processes run (claims are taken one by one, so any
        # number of processes can share a batch) and take over the claims of processes that are gone.
        self.join_seconds = join_seconds
        self._slots = asyncio.Semaphore(concurrency)  # shared by all batches
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._watch: asyncio.Task[None] | None = None
        self.worker = f"{worker_id()}:{uuid.uuid4().hex[:8]}"  # marks the claims this runner takes

    async def submit(self, owner: str, settings: Settings, options: dict[str, Any], items: list[ClaimItem],
                     max_pending: int | None = None) -> str:
        """Store and start a batch (``TooManyPending`` when ``owner`` would pass ``max_pending`` claims)."""
        batch_id = uuid.uuid4().hex
        await asyncio.to_thread(self.store.create, batch_id, owner, settings.model_dump(mode="json"), options, items,
                                max_pending)
        self.start(batch_id)
        return batch_id

    def start(self, batch_id: str) -> None:
        if batch_id not in self._tasks:
            task = asyncio.create_task(self._run(batch_id), name=f"batch-{batch_id}")
            self._tasks[batch_id] = task
            task.add_done_callback(lambda _: self._tasks.pop(batch_id, None))

    async def resume_all(self) -> int:
        """Called when the app starts: picks up every batch that was not finished (claims that a dead process
        had taken are pending again; claims another live process runs stay with it)."""
        self._slots = asyncio.Semaphore(self.concurrency)  # fresh, in case the app runs on a new event loop
        _RUNNERS.add(self.worker)
        await asyncio.to_thread(self.store.requeue_orphans, _worker_alive)
        unfinished = await asyncio.to_thread(self.store.unfinished)
        for batch_id in unfinished:
            self.start(batch_id)
        if unfinished:
            log.info("resuming %d unfinished batch(es)", len(unfinished))
        if self.join_seconds > 0 and self._watch is None:
            self._watch = asyncio.create_task(self._join_others(), name="batch-join")
        return len(unfinished)

    async def _join_others(self) -> None:
        while True:
            await asyncio.sleep(self.join_seconds)
            try:
                await asyncio.to_thread(self.store.requeue_orphans, _worker_alive)
                for batch_id in await asyncio.to_thread(self.store.joinable):
                    self.start(batch_id)
            except Exception:  # a database hiccup: the next round tries again
                log.warning("looking for batches to join failed", exc_info=True)

    async def stop(self) -> None:
        """Cancel running work; claims without a result stay pending and are picked up on the next start."""
        tasks = list(self._tasks.values())
        if self._watch is not None:
            tasks.append(self._watch)
            self._watch = None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        _RUNNERS.discard(self.worker)

    async def _run(self, batch_id: str) -> None:
        info = await asyncio.to_thread(self.store.get, batch_id)
        if info is None:
            return
        settings = Settings.model_validate(info.settings)
        resources = self.resources_for(settings)
        # Lanes take claims one at a time from the store, so processes sharing it never run a claim twice.
        await asyncio.gather(*(self._lane(batch_id, settings, resources) for _ in range(self.concurrency)))
        await asyncio.to_thread(self.store.finish, batch_id)

    async def _lane(self, batch_id: str, settings: Settings, resources: Resources) -> None:
        while True:
            async with self._slots:
                taken = await asyncio.to_thread(self.store.take, batch_id, self.worker)
                # Nothing pending: claims held by a process that died meanwhile are taken over, then done.
                if taken is None and not await asyncio.to_thread(self.store.requeue_orphans, _worker_alive):
                    return
                if taken is None:
                    continue
                idx, item = taken
                try:
                    await self._one(batch_id, idx, item, settings, resources)
                except asyncio.CancelledError:
                    await asyncio.shield(asyncio.to_thread(self.store.give_back, batch_id, idx))
                    raise

    async def _one(self, batch_id: str, idx: int, item: ClaimItem, settings: Settings, resources: Resources) -> None:
        record: dict[str, Any] = {"id": item.id, **item.extra}
        try:
            verdict = await run_claim(item.claim, settings, resources)
            record.update(public_verdict(verdict).model_dump(mode="json"))
        except FactDebateError as exc:
            log.warning("batch %s item %s failed: %s", batch_id, item.id, exc)  # the caller's record hides endpoints
            record.update({"claim": item.claim, "error": hide_endpoints(str(exc))})
        except Exception as exc:  # one failing claim is recorded; it must not stop the batch
            log.exception("batch %s item %s failed", batch_id, item.id)
            record.update({"claim": item.claim, "error": redact_value(f"{type(exc).__name__}: {exc}")})
        await self._record(batch_id, idx, record)

    async def _record(self, batch_id: str, idx: int, record: dict[str, Any]) -> None:
        """Store a claim's result. A full or read-only disk holds it here and tries again every few seconds
        (the claim stays taken by this runner; ``/v1/health`` says why), so a verdict reached is never
        dropped for want of room; if the service stops first, the claim is given back and runs again."""
        def held(retry_state: RetryCallState) -> None:
            failed = retry_state.outcome.exception() if retry_state.outcome is not None else None
            reason = STORAGE.problem(failed) if isinstance(failed, Exception) else None
            if reason is not None and STORAGE.failed(BATCH_PART, reason):
                log.warning("batch %s: a result could not be stored (%s); holding it and trying again",
                            batch_id, reason)

        # The policy: a storage problem (a full or read-only disk) is tried again every RECORD_RETRY_SECONDS,
        # with no limit; any other error is raised at once. The wait and the sleep are looked up per wait.
        await AsyncRetrying(
            retry=retry_if_exception(lambda exc: isinstance(exc, Exception) and STORAGE.problem(exc) is not None),
            wait=lambda _: RECORD_RETRY_SECONDS, before_sleep=held, sleep=lambda seconds: asyncio.sleep(seconds),
            reraise=True)(asyncio.to_thread, self.store.record, batch_id, idx, record)
        STORAGE.wrote(BATCH_PART)
