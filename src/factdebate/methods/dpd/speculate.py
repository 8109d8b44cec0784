"""Speculative team rounds for DPD (``methods.dpd.speculate``).

A round's teams need only the previous round's statements and their state; the judges of the previous
round decide the state (through the transition strategy) and whether the debate stops. So the next
round's teams can start while the judges still deliberate, in the state the strategy would give if the
outcome repeats (always-trust and always-skeptic need no guess at all). When the guess holds the work is
kept; when the state differs or the panel stops the debate, it is cancelled and its completed calls stay
in the usage (they were spent).

The speculative work's trace events are held back and replayed only if it is kept, so the trace and the
live page never show a round that did not happen.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from factdebate.core.runtime import RunRecorder, current_run, recording

T = TypeVar("T")


class Held(Generic[T]):
    """A coroutine run now, with its events held until :meth:`keep` (replayed) or :meth:`drop`."""

    def __init__(self, start: Callable[[], Awaitable[T]]) -> None:
        self.events: list[dict[str, Any]] = []
        self.parent = current_run()
        recorder: RunRecorder | None = None
        if self.parent is not None:
            recorder = RunRecorder([self.events.append], run_id=self.parent.run_id)
            recorder.usage_by_role = self.parent.usage_by_role  # the calls count in the run either way
            recorder.started = self.parent.started

        async def body() -> T:
            if recorder is None:
                return await start()
            with recording(recorder):
                return await start()

        self.task: asyncio.Task[T] = asyncio.create_task(body())

    async def keep(self) -> T:
        result = await self.task
        if self.parent is not None:
            for record in self.events:
                for sink in self.parent.sinks:
                    sink(record)
        return result

    async def drop(self) -> None:
        self.task.cancel()
        # Whatever the cancelled work was doing (or failed with) no longer matters: it is not used.
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task
