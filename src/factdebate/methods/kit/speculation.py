"""Work started before it is known to be needed, and how it is counted: the one speculation mechanism.

An :class:`Ahead` is a task under a :class:`~factdebate.core.runtime.SpeculativeRecorder`, held back until
:meth:`Ahead.commit` or dropped by :meth:`Ahead.discard`. ``usage.llm_calls`` counts the calls a verdict used;
discarded calls are ``usage.speculative_calls`` (docs/architecture.md, "Speculation: one rule"). A
:class:`RoundWork` is a round run so, with a future filled once the next round's input exists
(:func:`play_rounds`); DPD uses :func:`run_ahead`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from factdebate.core.runtime import SpeculativeRecorder, current_run, recording

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

T = TypeVar("T")
E = TypeVar("E")


def _spawn(work: Callable[[], Awaitable[T]], speculative: bool) -> tuple[asyncio.Task[T],
                                                                       SpeculativeRecorder | None]:
    parent = current_run()
    recorder = SpeculativeRecorder(parent) if speculative and parent is not None else None

    async def run() -> T:
        if recorder is None:
            return await work()
        with recording(recorder):  # the task's own context: the caller's recorder is untouched
            return await work()

    return asyncio.create_task(run()), recorder


@dataclass
class Ahead(Generic[T]):
    task: asyncio.Task[T]
    recorder: SpeculativeRecorder | None  # None: not speculative, or no run to account to

    def commit(self) -> None:
        if self.recorder is not None:
            self.recorder.commit()

    async def keep(self) -> T:
        """The work is needed: commit it and wait for its result."""
        self.commit()
        return await self.task

    async def discard(self) -> None:
        """Cancel the work and wait until it stops (so calls cut in flight count); its outcome is dropped."""
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        if self.recorder is not None:
            self.recorder.discard()


def run_ahead(work: Callable[[], Awaitable[T]]) -> Ahead[T]:
    """Run ``work`` now, speculatively: it counts only once committed."""
    return Ahead(*_spawn(work, True))


@dataclass
class RoundWork(Ahead[T], Generic[T, E]):
    early: asyncio.Future[E]  # what the next round needs, set by the work before it ends
    # Set once the round is known to be needed (at once for a round that is not speculative): the work
    # waits for it before its costly rest (Tool-MAD's scoring), so a discarded round costs little.
    confirmed: asyncio.Event

    @classmethod
    def start(cls, work: Callable[[asyncio.Future[E], asyncio.Event], Awaitable[T]], *,
              speculative: bool = False) -> RoundWork[T, E]:
        early: asyncio.Future[E] = asyncio.get_running_loop().create_future()
        confirmed = asyncio.Event()
        if not speculative:
            confirmed.set()
        task, recorder = _spawn(lambda: work(early, confirmed), speculative)
        return cls(task, recorder, early, confirmed)

    async def answers(self) -> E | None:
        """The early result, or ``None`` when the work ended without setting it (it failed)."""
        pending: set[asyncio.Future[object]] = {self.early, self.task}  # type: ignore[arg-type]
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        return self.early.result() if self.early.done() and not self.early.cancelled() else None

    def commit(self) -> None:
        super().commit()
        self.confirmed.set()


Play = Callable[[int, E | None, asyncio.Future[E], asyncio.Event], Awaitable[T]]


async def play_rounds(total: int, play: Play[E, T], settle: Callable[[int, T], bool], *,
                      speculate: bool) -> bool:
    """Play rounds ``1..total`` in order; returns whether ``settle`` stopped the debate early.

    ``play(r, early_of_previous, early, confirmed)`` runs round ``r``, fills ``early`` as soon as round
    ``r+1`` could start, and waits for ``confirmed`` before work only its own decision needs; ``settle(r,
    result)`` says whether the debate stops there. With ``speculate`` round ``r+1`` starts on round ``r``'s
    early part and is committed or discarded; the outcome is the same either way."""
    def start(r: int, previous: E | None, speculative: bool = False) -> RoundWork[T, E]:
        return RoundWork.start(lambda early, confirmed: play(r, previous, early, confirmed),
                               speculative=speculative)

    work = start(1, None)
    ahead: RoundWork[T, E] | None = None
    try:
        for r in range(1, total + 1):
            if speculate and r < total:
                early = await work.answers()
                if early is not None:
                    ahead = start(r + 1, early, speculative=True)
            result = await work.task
            if settle(r, result):
                return True
            if r < total:
                if ahead is not None:
                    ahead.commit()
                    work, ahead = ahead, None
                else:
                    work = start(r + 1, work.early.result() if work.early.done() else None)
        return False
    finally:
        if not work.task.done():  # cancelled, or failed while waiting for the early part
            work.task.cancel()
        if ahead is not None:
            await ahead.discard()


def speculation_wanted(setting: bool | None, rounds: int, settings: RunSettings, backend_parallel: int,
                       in_flight: int | None = None) -> bool:
    """A method's ``speculate`` setting; unset: on when the debater's model serves several calls at once,
    off for the in-process model or ``in_flight`` 1, where speculative calls would queue ahead."""
    if setting is not None:
        return setting
    if in_flight is not None and in_flight <= 1:
        return False
    return rounds > 1 and (settings.llm.concurrency or backend_parallel) > 1
