"""``policy: hold`` in a stream: each part of the answer (a run of sentences the streaming check took at once)
is released in the answer's order, and only once every claim drawn from it or placed in it has its first
tier's verdict. A heading the gate leaves out is read with the sentences under it
(:func:`~factdebate.guard_engine.gate.reads_on`), so its part also waits for theirs: nothing the extractor
reads is shown before its claims are decided. A part with nothing to check goes at once.

Each sentence a refuted claim is placed in or drawn from is replaced by
:data:`~factdebate.guard_engine.policy.WITHHELD`, whichever part's extraction it came from; a refuted claim
placed nowhere withholds the whole part it was drawn from. What a later tier refutes was shown already, and the
footnotes say so, as ``flag``'s do. Once the answer has ended the deadline bounds the wait; what is undecided
then is shown, unchecked, and footnoted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from factdebate.core.types import Label
from factdebate.guard_engine.gate import Sentence, ends_reach, reads_on
from factdebate.guard_engine.policy import WITHHELD, withheld_in, withhold
from factdebate.guard_engine.tiers import Progress
from factdebate.guard_engine.types import GuardClaim


@dataclass
class Part:
    """One part of the answer: its text from ``start`` and its gated sentences (None until gated); ``claims``
    (None until known) are those it states, its own and those it repeats from an earlier part."""

    start: int
    text: str
    pieces: list[Sentence] | None
    claims: list[Progress] | None = None
    known: asyncio.Event = field(default_factory=asyncio.Event)
    # The claims (by index) of a window of several parts that none of them is known to state: each of those
    # parts is withheld for such a claim refuted and placed nowhere, not only the first.
    shared: set[int] = field(default_factory=set)

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    def touches(self, claim: GuardClaim) -> bool:
        """Whether ``claim`` is placed in one of this part's sentences or drawn from one (its places)."""
        return any(p.start < s.end and p.end > s.start for p in claim.places() for s in self.pieces or [])


class HeldText:
    """The parts of a streamed answer on their way out under ``hold``, yielded in order by ``released()``."""

    def __init__(self) -> None:
        self._parts: list[Part] = []
        self._more = asyncio.Event()
        self._out: asyncio.Queue[str | None] = asyncio.Queue()
        self._next = 0  # the first part not released
        self._pump: asyncio.Task[None] | None = None
        self._closed = False
        self._marked: set[int] = set()  # the claims (by index) already withheld where they are placed
        self.shown: list[str] = []  # what was released, in order
        self.withheld = 0  # sentences (or parts) withheld

    def add(self, start: int, text: str, pieces: Sequence[Sentence] | None, *, waiting: bool) -> Part:
        """A new part; ``waiting``: it has claims coming (False: it states nothing to check)."""
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
        """``part``'s claims are known (maybe none); its sentences are gated by then."""
        if part.claims is None:
            part.claims = claims
            part.known.set()

    async def _part(self, n: int) -> Part:
        while n >= len(self._parts):
            self._more.clear()
            await self._more.wait()
        return self._parts[n]

    @staticmethod
    async def _decided(part: Part) -> None:
        await part.known.wait()
        for progress in part.claims or []:
            await progress.first.wait()

    async def _run(self) -> None:
        while True:
            part = await self._part(self._next)
            await self._decided(part)
            # A heading is read with what follows it: those parts' claims may be placed in it.
            readers: list[Part] = []
            reach = _reads_on(part)
            while reach:
                reader = await self._part(self._next + 1 + len(readers))
                await self._decided(reader)
                readers.append(reader)
                reach = _goes_on(reader)
            self._release(part, readers, lambda claim: claim.label == Label.REFUTES)

    def _readers(self, n: int) -> list[Part]:
        """The parts after part ``n`` read under its last heading, of those there are (the answer has ended)."""
        out: list[Part] = []
        reach = _reads_on(self._parts[n])
        for reader in self._parts[n + 1:]:
            if not reach:
                break
            out.append(reader)
            reach = _goes_on(reader)
        return out

    def _claims(self) -> dict[int, GuardClaim]:
        """Every claim known so far, by index, as it stands."""
        return {p.claim.index: p.claim for part in self._parts for p in part.claims or []}

    def _held(self, claim: GuardClaim) -> bool:
        """Whether ``claim`` is placed in text not shown yet (a part still held, or past the parts)."""
        places = claim.places()
        return bool(places) and (max(p.end for p in places) > self.end
                                 or any(p.touches(claim) for p in self._parts[self._next:]))

    def _lost(self, part: Part, refuted: list[GuardClaim]) -> list[GuardClaim]:
        """The claims of ``refuted`` that ``part`` states, placed in no text still held nor withheld yet."""
        own = {p.claim.index for p in part.claims or []}
        return [c for c in refuted if c.index in own and (c.index not in self._marked or c.index in part.shared)
                and not self._held(c)]

    def _release(self, part: Part, readers: list[Part], wrong: Callable[[GuardClaim], bool],
                 claims: dict[int, GuardClaim] | None = None) -> None:
        """Release ``part`` with what ``wrong`` calls refuted withheld (``readers``: read under its heading)."""
        claims = claims if claims is not None else self._claims()
        refuted = [c for c in claims.values() if wrong(c)]
        if lost := self._lost(part, refuted):  # placed nowhere that can still be withheld: the whole part
            text, count = withhold(part.text, lost[:1], [], part.start)
            self._marked.update(c.index for c in lost)
        else:
            placed = [c for c in refuted if part.touches(c)]
            hit = {n for n, s in enumerate(part.pieces or []) for c in placed if withheld_in(c, s.start, s.end, s.text)}
            heading = next((n for n, s in reversed(list(enumerate(part.pieces or []))) if s.reason == "heading"), None)
            if heading is not None and any(self._lost(reader, refuted) for reader in readers):
                hit.add(heading)  # a reader's claim placed nowhere may be the heading's
            text, count = _withheld(part, sorted(hit))
            self._marked.update(c.index for c in placed)
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
        """Release what is still held with the final ``claims``, then the unchecked ``tail``; the text shown."""
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)
        final = {**self._claims(), **{c.index: c for c in claims}}
        while self._next < len(self._parts):
            self._release(self._parts[self._next], self._readers(self._next),
                          lambda c: c.status == "checked" and c.label == Label.REFUTES, final)
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


def _withheld(part: Part, numbers: Sequence[int]) -> tuple[str, int]:
    """``part``'s text with its sentences ``numbers`` (in order) withheld, and how many were."""
    hit = [(part.pieces or [])[n] for n in numbers]
    out, at = [], part.start
    for sentence in hit:
        out += [part.text[at - part.start:sentence.start - part.start], WITHHELD]
        at = sentence.end
    out.append(part.text[at - part.start:])
    return "".join(out), len(hit)


def _reads_on(part: Part) -> bool:
    """Whether a part after ``part`` may be read under a heading of it (not known yet: it may)."""
    return part.pieces is None or reads_on(part.pieces)


def _goes_on(reader: Part) -> bool:
    """Whether the heading ``reader`` is read under may be read with the part after it too."""
    return reader.pieces is None or not ends_reach(reader.pieces)
