"""Work started before it is known to be needed: a debate round that may be run ahead of time.

A :class:`RoundWork` is one round's task plus a future that the round fills as soon as the part the next
round depends on exists (Tool-MAD: the answers, before they are scored). Started ``speculative``, the task
runs under a :class:`~factdebate.runtime.SpeculativeRecorder`: its trace events are held back and its usage
kept apart until :meth:`RoundWork.commit` (the round is needed after all: events and usage are released as
if the round had started then) or :meth:`RoundWork.discard` (cancelled; its LLM calls are counted as
``usage.speculative_calls`` and nothing of it reaches the trace).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from factdebate.runtime import SpeculativeRecorder, current_run, recording

T = TypeVar("T")
E = TypeVar("E")


@dataclass
class RoundWork(Generic[T, E]):
    task: asyncio.Task[T]
    early: asyncio.Future[E]  # what the next round needs, set by the work before it ends
    recorder: SpeculativeRecorder | None = None

    @classmethod
    def start(cls, work: Callable[[asyncio.Future[E]], Awaitable[T]], *,
              speculative: bool = False) -> RoundWork[T, E]:
        early: asyncio.Future[E] = asyncio.get_running_loop().create_future()
        parent = current_run()
        recorder = SpeculativeRecorder(parent) if speculative and parent is not None else None

        async def run() -> T:
            if recorder is None:
                return await work(early)
            with recording(recorder):  # the task's own context: the caller's recorder is untouched
                return await work(early)

        return cls(asyncio.create_task(run()), early, recorder)

    async def answers(self) -> E | None:
        """The early result, or ``None`` when the work ended without setting it (it failed: awaiting
        ``task`` raises the error, which a speculative round must only do once committed)."""
        pending: set[asyncio.Future[object]] = {self.early, self.task}  # type: ignore[arg-type]
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        return self.early.result() if self.early.done() and not self.early.cancelled() else None

    def commit(self) -> RoundWork[T, E]:
        if self.recorder is not None:
            self.recorder.commit()
        return self

    async def discard(self) -> None:
        """Cancel the work and wait until it has stopped, so calls cut off in flight are counted too; its
        outcome, error included, is dropped."""
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        if self.recorder is not None:
            self.recorder.discard()
