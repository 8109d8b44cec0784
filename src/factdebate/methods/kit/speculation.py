"""Work started before it is known to be needed, and how it is counted: the one speculation mechanism.

An :class:`Ahead` is a task started ``speculative`` under a :class:`~factdebate.core.runtime.SpeculativeRecorder`:
its trace events are held back and its usage kept apart until :meth:`Ahead.commit` (the work is needed
after all: events and usage are released as if it had run in the open) or :meth:`Ahead.discard` (cancelled;
nothing of it reaches the trace). The accounting rule, the same for every method: ``usage.llm_calls``
counts the calls whose answers a verdict used; the calls of discarded work, those cancelled in flight
included, are ``usage.speculative_calls`` and their tokens ``usage.speculative_tokens``, per role; tool
calls of discarded work are not counted (docs/architecture.md, "Speculation: one rule").

A :class:`RoundWork` is one debate round run that way, plus a future that the round fills as soon as the
part the next round depends on exists (Tool-MAD: the answers, before they are scored), driven by
:func:`play_rounds` (Tool-MAD, MAD). DPD starts its next round's teams with :func:`run_ahead`.
"""

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
        """Cancel the work and wait until it has stopped, so calls cut off in flight are counted too; its
        outcome, error included, is dropped."""
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
        """The early result, or ``None`` when the work ended without setting it (it failed: awaiting
        ``task`` raises the error, which a speculative round must only do once committed)."""
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

    ``play(r, early_of_previous, early, confirmed)`` runs round ``r``; it gets what round ``r-1`` put in
    its ``early`` future (``None`` for round 1), must fill its own as soon as round ``r+1`` could start,
    and should wait for ``confirmed`` before work that only this round's own decision needs. ``settle(r,
    result)`` sees each round's result, in order, and says whether the debate stops there. With
    ``speculate``, round ``r+1`` starts as soon as round ``r``'s early part exists (one round ahead at
    most); it is committed if round ``r`` does not stop the debate and discarded otherwise. Without, round
    ``r+1`` starts after round ``r`` is settled. Either way ``play`` and ``settle`` see the same inputs,
    so the outcome is the same; only the time differs."""
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
    """A method's ``speculate`` setting; unset: on when the debater's model serves several calls at once
    (a served model), off when it serves one at a time: the in-process llama.cpp model, or a server that
    only ``in_flight`` (``llm.max_in_flight``: 1 by default for a server on this machine) requests may
    reach at once. There the speculative calls would queue in front of the ones the verdict waits for,
    and a discarded one that the server had started keeps it busy after it is cancelled
    (docs/methods/tool-mad.md)."""
    if setting is not None:
        return setting
    if in_flight is not None and in_flight <= 1:
        return False
    return rounds > 1 and (settings.llm.concurrency or backend_parallel) > 1
