"""Checking an answer while it is still arriving.

``feed`` takes each delta; every run of complete sentences goes through the gate at once and, when
check-worthy, to the extractor with bounded context (the answer's opening sentence and its last
``CONTEXT_CHARS`` characters: the whole answer so far made prompts grow with the square of its length), and
its claims are decided while the rest streams. With the window call (guard_engine/window_call.py) one call is
in flight at a time, the runs completed meanwhile go together when it is answered, and a window holds two
check-worthy sentences at least while the answer streams (``guard.window_sentences``; not under hold), so a fast stream
costs a few calls, not one a sentence. Without it each run goes at once (under ``hold``, a lone sentence's fast
verdict starts beside its extraction: guard_engine/head_start.py). Claims are numbered in the answer's order.
``verdicts`` yields each claim when decided; ``finish`` checks the rest and waits within ``deadline_s`` from
the answer's end; a part not extracted by then is unchecked sentence by sentence, said why.

Each delta is read once, so a long stream costs in proportion to its length. A part ending in a question keeps
it back for the next ("Is it in Berlin? Yes."), and ``response.max_claims`` holds for the whole answer, as in a
whole check: sentences past it are unchecked, said so (guard_engine/coverage.py)."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from factdebate.core.events import ResponseStarted
from factdebate.core.runtime import EventSink, recording
from factdebate.guard_engine.check import Check, checked_length, drop, settle, uncheckable
from factdebate.guard_engine.gate import Sentence, fenced_after, gate, runs_on, sources_after_sentences
from factdebate.guard_engine.head_start import same_claim, stands_alone
from factdebate.guard_engine.hold import HeldText, Part
from factdebate.guard_engine.policy import StreamMode, stream_mode
from factdebate.guard_engine.policy import held as held_text
from factdebate.guard_engine.tiers import Progress, TierOutcome
from factdebate.guard_engine.types import GuardClaim, GuardOptions, GuardResult, ResolvedGuardOptions, Reviser
from factdebate.llm.calls import cache_scope, counting
from factdebate.methods.resources import Resources
from factdebate.response_level.offload import LONG_TEXT
from factdebate.response_level.spans import CLOSING, SentenceEnds, TextIndex, boundaries, sentences
from factdebate.settings.model import Settings
from factdebate.util.textsafe import unsafe_reason

CONTEXT_CHARS = 2_000  # of the answer just before a part, shown to the extractor with it


class AnswerSoFar:
    """A streamed answer as it arrives; the checks have not been handed the part from ``cursor`` on yet."""

    def __init__(self) -> None:
        self.index = TextIndex()  # the whole answer, also what its claims are placed in
        self._ends = SentenceEnds()
        self._pending: list[str] = []  # the answer from the cursor on
        self._opening: str | None = None  # the answer's opening sentence, as the context starts it
        self._gap = ""  # the whitespace after the part last taken
        self.held = -1  # the end of a question given back to wait for its answer ("Is it? Yes.")

    @property
    def cursor(self) -> int:
        return self._ends.cursor

    def add(self, delta: str, *, read: bool = True) -> tuple[int, int] | None:
        """Add ``delta``; the last sentence end (gap) from the cursor on, if any (``read`` False: only kept)."""
        self.index.extend(delta)
        if not read:
            self._pending = []
            return None
        self._pending.append(delta)
        gaps = self._ends.feed(delta) + self._ends.pending()
        return gaps[-1] if gaps else None

    def context(self, start: int) -> str | None:
        """The answer before ``start``; past CONTEXT_CHARS, its opening sentence (the subject) and its last ones."""
        text = self.index.text
        if start <= CONTEXT_CHARS:
            return text[:start].strip() or None
        if self._opening is None:  # the answer's first CONTEXT_CHARS characters no longer change
            first = sentences(text[:CONTEXT_CHARS])[:1]
            self._opening = "".join(text[a:b] + " [...] " for a, b in first)
        recent = text[start - CONTEXT_CHARS:start]
        gaps = boundaries(recent)  # from the first sentence that starts in it, or else from a word's start
        recent = recent[gaps[0][1] if gaps else next((i for i, c in enumerate(recent) if c.isspace()), 0):].strip()
        return (self._opening + recent).strip() or None

    @property
    def gap(self) -> str:
        """The whitespace after the part last taken."""
        return self._gap

    def take(self, end: int, resume: int) -> tuple[int, str]:
        """(where it starts, the answer from the cursor to ``end``); the cursor moves to ``resume``."""
        start = self._ends.cursor
        pending = "".join(self._pending)
        if start <= end < resume and pending[end - start] in CLOSING:
            # The closing quotes or brackets at a gap's start end the sentence before it, as a whole reply's
            # sentences do: 'He said "Paris is big."' keeps its closing quote.
            end += len(pending[end - start:resume - start].rstrip())
        self._pending = [pending[resume - start:]]
        self._gap = pending[end - start:resume - start]
        self._ends.cursor = resume
        return start, pending[:end - start]

    def reread(self, text: str) -> None:
        """Read the answer (all of ``text``) from the cursor on again, after :meth:`add` stopped reading it."""
        self._pending = [text[self.cursor:]]

    def give_back(self, start: int, tail: str) -> None:
        """Right after :meth:`take`, put ``tail`` (from ``start``) back to be taken with what follows it."""
        self._pending = [tail + self._gap + "".join(self._pending)]
        self.held = self._ends.cursor
        self._ends.cursor = start


def gated(part: str, start: int, *, asked: bool = False, fenced: bool = False, sources: bool = False,
          before: str | None = None) -> list[Sentence]:
    """The sentences of ``part`` gated as :func:`gate` does, with their offsets in the answer."""
    return [Sentence(s.start + start, s.end + start, s.text, s.reason)
            for s in gate(part, asked=asked, fenced=fenced, sources=sources, before=before)]


def whitespace_before(text: str, start: int) -> str:
    """The whitespace ``text`` holds right before ``start`` (all of it has arrived once a word starts there)."""
    head = text[max(0, start - 64):start]
    return head[len(head.rstrip()):]


def fenced_after_text(part: str, fenced: bool) -> bool:
    """Whether the answer after ``part`` is inside a fenced code block, read without gating it."""
    if "```" not in part and "~~~" not in part:
        return fenced
    return fenced_after((part[a:b] for a, b in sentences(part)), fenced)


@dataclass
class _Job:
    """A part of the answer waiting for its window (``worthy`` None until a long part is gated)."""

    part: str
    worthy: list[Sentence] | None
    start: int
    held: Part | None
    fenced: bool
    sources: bool = False  # the part starts inside a block of references (gate.sources_after_sentences)

    @property
    def end(self) -> int:
        return self.start + len(self.part)

    def states(self, claim: GuardClaim) -> bool:
        """Whether ``claim`` is placed in this part, or drawn from one of its sentences."""
        spans = [*([claim.span] if claim.span is not None else []), *claim.sources]
        return any(s.start < self.end and s.end > self.start for s in spans)


class StreamingCheck:
    """``feed`` each delta of the answer; ``verdicts()`` yields each claim's verdict when ready; ``finish()``
    (after the last delta) waits within the deadline and applies the policy. Built inside a running loop."""

    def __init__(self, settings: Settings, resources: Resources, *, options: GuardOptions | ResolvedGuardOptions,
                 question: str | None = None, sinks: list[EventSink] | None = None,
                 reviser: Reviser | None = None, caller: str | None = None, messages: Sequence[Any] = ()) -> None:
        self._check = Check(settings, resources, options, question=question, sinks=sinks, reviser=reviser,
                            caller=caller, messages=messages)
        self._opened = time.perf_counter()  # from here to finish() the upstream writes: not the check's time
        self._settings = settings
        self._answer = AnswerSoFar()
        self._tasks: list[asyncio.Task[Any]] = []
        self._extractions: list[asyncio.Task[Any]] = []  # each window's task
        self._parts: dict[asyncio.Task[Any], list[_Job]] = {}  # the parts of the answer each window asks about
        self._pending: list[_Job] = []  # parts waiting for the window's call in flight to end
        self._window: asyncio.Task[Any] | None = None  # the last window asked about
        self._registered: asyncio.Event | None = None  # set when the previous run's claims are numbered
        self._counted: asyncio.Event | None = None  # set when the previous run's sentences are counted (cap)
        self._queue: asyncio.Queue[GuardClaim | None] = asyncio.Queue()
        self._sent: set[int] = set()
        self._finished = False
        self._stopped: str | None = None  # why the rest of the answer is not checked
        self._long = False  # the answer passed guard.max_message_chars: the rest is kept, not read
        self._fenced = False  # the answer taken so far leaves a fenced code block open
        self._sources = False  # ... or a block of references ("Sources:" and its items) open
        self._result: GuardResult | None = None
        resolved = self._check.options
        self.mode: StreamMode = stream_mode(resolved.policy, resolved.on_unchecked, resolved.on_not_enough_info,
                                            resolved.answer_format)
        # policy hold: the text to show, released part by part once decided (guard_engine/hold.py); else None
        self.held: HeldText | None = HeldText() if self.mode == "hold_back" else None
        with recording(self._check.recorder), cache_scope(self._check.cache_scope), counting(self._check.calls):
            self._context = contextvars.copy_context()  # tasks started by feed() record into the check's run

    @property
    def options(self) -> ResolvedGuardOptions:
        """The options the check runs with, resolved within the operator's settings."""
        return self._check.options

    def feed(self, delta: str) -> None:
        """Add ``delta`` to the answer; complete sentences start being checked now."""
        if self._finished:
            raise RuntimeError("the answer was already finished")
        if not isinstance(delta, str):
            raise TypeError(f"a delta is text, not {type(delta).__name__}")
        if self._stopped is not None:  # what came before is being checked; nothing after is
            self._answer.add(delta, read=False)
            return
        if self._long or len(self._answer.index) + len(delta) > self._settings.guard.max_message_chars:
            # Past the limit: kept, not read; finish() checks as far as a whole check would (checked_length).
            self._answer.add(delta, read=False)
            self._long = True
            return
        if unsafe_reason(delta) is not None:
            self._answer.add(delta, read=False)
            # Said of the answer as a whole, as a check of the whole text says it (the whole is read once, here).
            self._stopped = uncheckable(self._answer.index.text, self._settings)
            return
        if (end := self._answer.add(delta)) is not None:
            self._dispatch(*end)

    def _dispatch(self, end: int, resume: int, *, final: bool = False) -> None:
        if not final and resume <= self._answer.held:  # the question given back waits for what follows it
            return
        start, part = self._answer.take(end, resume)
        shown = part + self._answer.gap  # what of the answer this part releases under hold
        worthy: list[Sentence] | None = None  # a long part is gated in a worker thread, in its run
        held: Part | None = None
        fenced = self._fenced  # the part's start is inside a code block: what follows "#" is a comment
        sources = self._sources  # ... or inside a block of references, whose items state nothing
        if len(part) < LONG_TEXT:
            # Within a block of references, whether the part goes on a reference's paragraph (read only then:
            # the answer's text is joined to read it).
            before = whitespace_before(self._answer.index.text, start) if sources else None
            found = gated(part, start, asked=self._check.asked, fenced=fenced, sources=sources, before=before)
            self._fenced = fenced_after((s.text for s in found), fenced)
            self._sources = sources_after_sentences(found, sources)
            if not final and found and (found[-1].reason == "question" or runs_on(found[-1], self._answer.gap)):
                # "Is the Eiffel Tower in Berlin? Yes." is a statement: the question waits for the next sentence;
                # so does a line wrapped before its sentence's end (gate.runs_on).
                last = found.pop()
                self._answer.give_back(last.start, part[last.start - start:])
                if not found:
                    return
                shown = part[:last.start - start]
            worthy = self._check.skip(found)
            # A heading is shown to the extractor too (it may state a fact): its part waits for that.
            titled = bool(self._check.headings_in(start, start + len(part)))
            if self.held is not None:
                held = self.held.add(start, shown, found, waiting=bool(worthy) or titled)
            if not worthy and not titled:
                return
        else:
            self._fenced = fenced_after_text(part, fenced)
            self._sources = False  # a long part is gated later: what follows it is read as statements
            if self.held is not None:
                held = self.held.add(start, shown, None, waiting=True)
        self._pending.append(_Job(part, worthy, start, held, fenced, sources))
        # With the window call, one call at a time (the module docstring); once the answer has ended, at once.
        if final or self._check.window_call is None or (
                (self._window is None or self._window.done()) and self._gathered()):
            self._open_window()

    def _gathered(self) -> bool:
        """Whether the parts waiting make a window while the answer still streams: under hold, any part (the
        reader waits for it); else ``guard.window_sentences`` check-worthy sentences (a checker faster than the
        stream would be asked once a sentence, each call costing CPU and a served model's price), or a long
        part not yet gated."""
        if self.held is not None:
            return True
        least = self._settings.guard.window_sentences
        return sum(least if job.worthy is None else max(1, len(job.worthy)) for job in self._pending) >= least

    def _open_window(self) -> None:
        """Ask about the parts waiting (one window), in a task of its own."""
        if not self._pending:
            return
        jobs, self._pending = self._pending, []
        previous, mine = self._registered, asyncio.Event()
        self._registered = mine
        before, counted = self._counted, asyncio.Event()
        self._counted = counted
        # Each window's task in a copy of the check's context: a variable one sets must not be read by another.
        task = asyncio.create_task(self._run(jobs, previous, mine, (before, counted)), context=self._context.copy())
        self._window = task
        self._parts[task] = jobs
        self._extractions.append(task)
        if self._check.window_call is not None:
            task.add_done_callback(self._next_window)

    def _next_window(self, task: asyncio.Task[None]) -> None:
        """The window's call is answered: the parts completed meanwhile go."""
        if not self._finished and not task.cancelled() and self._gathered():
            self._open_window()

    async def _run(self, jobs: list[_Job], previous: asyncio.Event | None, mine: asyncio.Event,
                   order: tuple[asyncio.Event | None, asyncio.Event] | None = None) -> None:
        waits: list[list[Progress]] = [[] for _ in jobs]  # the claims each part's release waits for (hold)
        shared: set[int] = set()  # claims placed in none of the window's parts: each of them waits for them
        head: asyncio.Task[TierOutcome] | None = None  # the fast verdict begun on the sentence (head_start.py)
        adopted: asyncio.Task[TierOutcome] | None = None
        fresh: list[Progress] = []
        before, counted = order or (None, asyncio.Event())
        try:
            for job in jobs:
                if job.worthy is None:
                    found = await asyncio.to_thread(gated, job.part, job.start, asked=self._check.asked,
                                                    fenced=job.fenced, sources=job.sources)
                    if job.held is not None:
                        job.held.pieces = found
                    job.worthy = self._check.skip(found)
            # The claim cap counts the answer's check-worthy sentences in order, as a whole check does
            # (Check.take): a window waits only for the previous one's count (its gating), not its extraction.
            if before is not None:
                await before.wait()
            worthy = [s for job in jobs for s in self._check.take(job.worthy or [])]
            counted.set()
            headings = [h for job in jobs for h in self._check.headings_in(job.start, job.end)]
            if not worthy and not headings:
                return
            if self._check.room() == 0:  # the reply's claim cap is reached: what follows is unchecked, said so
                self._check.capped = True
                return
            start = jobs[0].start
            chunk = self._check.extractor_text(worthy, self._answer.index.text, headings)
            context = self._answer.context(start)
            held = len(jobs) == 1 and jobs[0].held is not None
            if held and len(worthy) == 1 and stands_alone(worthy[0].text):
                # Under hold the reader waits for this verdict: it begins beside the extraction (head_start.py).
                head = self._check.begin(worthy[0].text.strip())
            claims = await self._check.extract(chunk, context=context)
            if previous is not None:
                await previous.wait()
            answer = self._answer.index
            said: list[Progress] = []  # claims said before, in an earlier window: the parts wait for them too
            for claim in claims or []:
                if self._check.room() == 0:  # response.max_claims holds for the whole streamed reply
                    self._check.capped = True
                    break
                if (progress := self._check.add_claim(claim, answer.text, start, index=answer)) is not None:
                    fresh.append(progress)
                elif any(job.held is not None for job in jobs):
                    folded = " ".join(claim.lower().split())
                    said += [p for p in self._check.progress if " ".join(p.claim.claim.lower().split()) == folded]
            for progress in [*said, *fresh]:
                own = [n for n, job in enumerate(jobs) if len(jobs) == 1 or job.states(progress.claim)]
                if not own:  # placed in none of them: any of them may state it
                    own = list(range(len(jobs)))
                    shared.add(progress.claim.index)
                for n in own:
                    waits[n].append(progress)
            # The head start stands for the part's claim only when the extractor wrote the sentence as it is.
            if head is not None and claims is not None and len(claims) == len(fresh) == 1 \
                    and same_claim(fresh[0].claim.claim, worthy[0].text):
                adopted, head = head, None
        finally:
            drop(head)
            counted.set()
            mine.set()
            for job, wait in zip(jobs, waits, strict=True):
                if job.held is not None:
                    job.held.shared |= shared
                    HeldText.settle(job.held, wait)
        for progress in fresh:
            self._tasks.append(asyncio.create_task(self._decide(progress, adopted)))

    async def _worthy(self, job: _Job) -> list[Sentence]:
        """``job``'s check-worthy sentences, its long part gated now if its window's task was cut first."""
        if job.worthy is None:
            found = await asyncio.to_thread(gated, job.part, job.start, asked=self._check.asked, fenced=job.fenced,
                                            sources=job.sources)
            job.worthy = self._check.skip(found)
        return job.worthy

    async def _decide(self, progress: Progress, head: asyncio.Task[TierOutcome] | None = None) -> None:
        await self._check.decide(progress, head)
        self._send(progress.final(timed_out=False))

    def _send(self, claim: GuardClaim) -> None:
        if claim.index not in self._sent:
            self._sent.add(claim.index)
            self._queue.put_nowait(claim)

    async def verdicts(self) -> AsyncIterator[GuardClaim]:
        """Each claim once, when it is decided (undecided ones as ``unchecked`` when the deadline ends)."""
        while (claim := await self._queue.get()) is not None:
            yield claim

    def cancel(self) -> None:
        """Stop every check in progress (the client went away): nothing more is asked of any model."""
        self._finished = True
        if self.held is not None:
            self.held.cancel()
        for task in [*self._extractions, *self._tasks]:
            task.cancel()
        self._queue.put_nowait(None)

    async def finish(self) -> GuardResult:
        """Check the rest of the answer, wait for every claim within the deadline, apply the policy."""
        if self._result is not None:
            return self._result
        self._finished = True
        check = self._check
        # usage.seconds as on a plain reply (guard_engine/clock.py): less the time the upstream took to write.
        check.started += time.perf_counter() - self._opened
        deadline = time.perf_counter() + check.options.deadline_s
        text = self._answer.index.text
        check.recorder.emit(ResponseStarted(response=text, question=check.question,
                                            method=check.options.method))
        if self._stopped is not None:
            check.degraded_reasons.append(f"{self._stopped} (from character {self._answer.cursor} on)")
        else:
            end = len(text)
            if self._long:  # the part a whole check of this answer checks; the rest is unchecked, said
                end = max(self._answer.cursor, checked_length(text, self._settings.guard.max_message_chars))
                check.beyond = end
                self._answer.reread(text)
            if self._answer.cursor < end:
                self._dispatch(end, end, final=True)
        self._open_window()  # the parts completed while the last window's call ran: asked now
        await settle(self._extractions, check.remaining(deadline))
        for task in self._extractions:
            if task.cancelled():  # the parts it asked about are unchecked sentence by sentence, said why
                check.not_reached([s for job in self._parts[task] for s in await self._worthy(job)])
        await settle(self._tasks, check.remaining(deadline))
        with recording(check.recorder):
            result = await check.result(text, degraded=False)
        if self.held is not None:  # the text as it was shown, part by part, and the footnotes after it
            shown = await self.held.close(result.claims, text[self.held.end:])
            out, action = held_text(result, shown, self.held.withheld)
            result = result.model_copy(update={"text": out, "action_taken": action})
        for claim in result.claims:
            self._send(claim)
        self._queue.put_nowait(None)
        self._result = result
        return result
