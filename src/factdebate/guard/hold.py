"""``policy: hold`` in a stream: each part of the answer (the run of sentences the streaming check took at
once) is released to the client only once every claim extracted from it has its first tier's verdict, in the
answer's order. A part with nothing to check goes at once. A sentence a claim refuted at that tier is placed
in is replaced by :data:`~factdebate.guard.policy.WITHHELD`; a refuted claim placed nowhere in its part
withholds the whole part. Escalation goes on after the release: what a later tier refutes was shown already,
and the footnotes at the end say so, as ``flag``'s do.

A part waits for its verdicts for as long as the answer streams; once the answer has ended, the check's
deadline bounds the wait, and what is still held then is released with the check's final verdicts (a claim
refuted by then is withheld; one not decided is unchecked, shown, and said in the footnotes, as
``on_unchecked: pass`` lets unchecked text through).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from factdebate.core.types import Label
from factdebate.guard.policy import withhold
from factdebate.guard.tiers import Progress
from factdebate.guard.types import GuardClaim


@dataclass
class Part:
    """One part of the answer: its text from ``start`` (its trailing spaces included) and its sentences in
    the answer's offsets (None until gated); ``claims`` is None until its claims are known."""

    start: int
    text: str
    pieces: list[tuple[int, int]] | None
    claims: list[Progress] | None = None
    known: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def end(self) -> int:
        return self.start + len(self.text)


class HeldText:
    """The parts of a streamed answer on their way out under ``hold``: ``released()`` yields each piece of
    text to show, in order; ``close()`` (after the check) releases what is left."""

    def __init__(self) -> None:
        self._parts: list[Part] = []
        self._more = asyncio.Event()
        self._out: asyncio.Queue[str | None] = asyncio.Queue()
        self._next = 0  # the first part not released
        self._pump: asyncio.Task[None] | None = None
        self._closed = False
        self.shown: list[str] = []  # what was released, in order
        self.withheld = 0  # sentences (or parts) withheld

    def add(self, start: int, text: str, pieces: Sequence[tuple[int, int]] | None, *, waiting: bool) -> Part:
        """A new part; ``waiting``: it has claims coming (False: it states nothing to check, it goes at once)."""
        part = Part(start, text, list(pieces) if pieces is not None else None)
        if not waiting:
            self.settle(part, [])
        self._parts.append(part)
        self._more.set()
        if self._pump is None:
            self._pump = asyncio.create_task(self._run())
        return part

    @staticmethod
    def settle(part: Part, claims: list[Progress]) -> None:
        """``part``'s claims are known (an empty list: none, or none could be extracted)."""
        if part.claims is None:
            part.claims = claims
            part.known.set()

    async def _run(self) -> None:
        while True:
            while self._next >= len(self._parts):
                self._more.clear()
                await self._more.wait()
            part = self._parts[self._next]
            await part.known.wait()
            for progress in part.claims or []:
                await progress.first.wait()
            self._release(part, [p.claim for p in part.claims or [] if p.claim.label == Label.REFUTES])

    def _release(self, part: Part, wrong: list[GuardClaim]) -> None:
        text, count = withhold(part.text, wrong, part.pieces or [], part.start)
        self.withheld += count
        self._next += 1
        if text:
            self.shown.append(text)
            self._out.put_nowait(text)

    async def released(self) -> AsyncIterator[str]:
        """Each piece of text to show, as it is released; ends after :meth:`close` (or :meth:`cancel`)."""
        while (text := await self._out.get()) is not None:
            yield text

    async def close(self, claims: Sequence[GuardClaim], tail: str) -> str:
        """Release what is still held with the check's final ``claims`` (refuted ones withheld), then ``tail``
        (the answer past the last part: not checked, said in the result); the whole text shown."""
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)
        by_index = {c.index: c for c in claims}
        for part in self._parts[self._next:]:
            final = [by_index.get(p.claim.index, p.claim) for p in part.claims or []]
            self._release(part, [c for c in final if c.status == "checked" and c.label == Label.REFUTES])
        if tail:
            self.shown.append(tail)
            self._out.put_nowait(tail)
        self.cancel()
        return "".join(self.shown)

    @property
    def end(self) -> int:
        """Where the last part ends (the answer past it is in no part)."""
        return self._parts[-1].end if self._parts else 0

    def cancel(self) -> None:
        if self._pump is not None and not self._pump.done():
            self._pump.cancel()
        if not self._closed:
            self._closed = True
            self._out.put_nowait(None)
