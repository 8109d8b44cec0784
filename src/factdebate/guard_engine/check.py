"""Checking one whole text: the check-worthiness gate, claim extraction, each claim decided tier by tier
within the deadline, spans, corrections, and the policy.

The deadline covers everything from the call on: extraction, every claim's tiers, corrections. A claim
not decided when it ends is ``unchecked`` (its work is cancelled), and so is each sentence whose claims were not
extracted in time (the reason names the deadline), while the sentences decided before keep their verdicts; a
text whose claims could not be read from the extractor's reply, or whose deadline was spent before the check
began, is ``degraded`` and unchecked as a whole. What
is unchecked is said in the result and handled by ``on_unchecked``; nothing is reported as supported
that no tier supported.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import time
import uuid
from bisect import insort
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from factdebate.core.events import ClaimsExtracted, ResponseJudged, ResponseStarted
from factdebate.core.runtime import EventSink, RunRecorder, recording, span
from factdebate.core.types import Label, Span
from factdebate.guard_engine.citations import folded as _folded
from factdebate.guard_engine.clock import check_started, own_clock
from factdebate.guard_engine.conversation import Conversation, conversation
from factdebate.guard_engine.coverage import uncovered
from factdebate.guard_engine.evidence import evidence_digest, passages
from factdebate.guard_engine.gate import Sentence, gate
from factdebate.guard_engine.policy import apply_policy, recheck_options
from factdebate.guard_engine.session import SessionEvidence, query_of
from factdebate.guard_engine.tiers import (
    Context,
    Progress,
    TierOutcome,
    begin_fast,
    decide,
    tiers_for,
    window_outcome,
)
from factdebate.guard_engine.types import (
    GuardClaim,
    GuardOptions,
    GuardResult,
    GuardUsage,
    ResolvedGuardOptions,
    Reviser,
    SkippedSentence,
)
from factdebate.guard_engine.window import turns_of, unresolved, window
from factdebate.guard_engine.window_call import SO_FAR, WindowCall
from factdebate.llm.calls import CallCount, cache_scope, counting, current_count
from factdebate.llm.failure_budget import FailureBudget, sharing
from factdebate.llm.near_chance import CLAIMS, model_warnings
from factdebate.methods.resources import Resources
from factdebate.response_level.aggregate import response_label
from factdebate.response_level.extract import aextract_claims
from factdebate.response_level.grounding import content_words, uncovered_sentences
from factdebate.response_level.offload import read_text
from factdebate.response_level.placing import stated_in
from factdebate.response_level.spans import CLOSING, TextIndex, boundaries, find_span, sentences
from factdebate.response_level.worthiness import answers_asked, layout, short_answer
from factdebate.settings.model import Settings
from factdebate.util.errors import FactDebateError, InputError
from factdebate.util.textsafe import unsafe_reason

SHORT_ANSWER = "the short answer this claim states in full, read with the person's question"
DRAWN_FROM = "the sentence the extractor said this claim is drawn from"
# Failed checker tries one reply may spend in all (its extraction and every claim's tiers together): a transient
# failure or two is retried; a checker that fails everything is given up on at the fourth.
REPLY_FAILED_TRIES = 4


class Shown(str):
    """What the extractor is given of some sentences of the reply (:meth:`Check.extractor_text`), with those
    sentences and where each stands in it: the extractor numbers them, and the numbers it answers with each
    claim are read back into the reply's sentences here. A ``str``, so that a caller that only passes it on
    needs to know nothing of it."""

    sentences: tuple[Sentence, ...]
    units: tuple[tuple[int, int], ...]

    def __new__(cls, text: str, sentences: Sequence[Sentence], units: Sequence[tuple[int, int]]) -> Shown:
        shown = super().__new__(cls, text)
        shown.sentences, shown.units = tuple(sentences), tuple(units)
        return shown


class _Usage:
    """A sink counting the tool calls of everything the check runs, nested runs and cancelled claims included
    (their events arrive as they happen). Model calls are counted where they are sent (llm/calls.py's
    ``CallCount``): an event comes only for a call that got its answer, and for a cached answer too."""

    events = frozenset({"tool_call"})  # the only kind it reads: the recorder builds no other for it (Listener)

    def __init__(self) -> None:
        self.tool_calls = 0

    def __call__(self, record: dict[str, Any]) -> None:
        if record.get("event") == "tool_call":
            self.tool_calls += 1


def uncheckable(text: object, settings: Settings) -> str | None:
    """Why ``text`` (a model's reply) cannot be checked, or None. Not a refusal: the reply is the upstream
    model's, not the caller's, so the check is degraded instead, said, and ``on_unchecked`` applies. (A reply
    over ``guard.max_message_chars`` can be: as far as :func:`checked_length`.)"""
    if not isinstance(text, str):
        raise InputError(f"the text to check must be text, not {type(text).__name__}")
    if reason := unsafe_reason(text):
        return f"the reply cannot be checked: {reason}"
    return None


def checked_length(text: str, limit: int) -> int:
    """How much of a reply is checked: all of it within ``limit`` (``guard.max_message_chars``); past it, up to
    the last sentence that ends within the limit (none: nothing is checked). Every door cuts here, plain and
    streamed (guard_engine/stream.py), so a long reply gets the same verdicts through each; the rest is an unchecked
    claim of the result (:meth:`Check.beyond_note`)."""
    if len(text) <= limit:
        return len(text)
    gaps = boundaries(text[:limit])
    return gaps[-1][0] if gaps else 0


def guard_question(question: str | None, settings: Settings) -> str | None:
    """The user's message the reply answers, as the extractor's hint: a chat message is often longer than
    ``response.max_question_chars`` or holds text no prompt should carry, which must not refuse the check of
    the reply; such a message gives its last ``max_question_chars`` clean characters, or no hint."""
    if question is None or not question.strip() or unsafe_reason(question):
        return None
    limit = settings.response.max_question_chars
    return settings.response.checked_question(question if len(question.strip()) <= limit
                                              else question.strip()[-limit:])


class Check:
    """The state one check shares between its parts (what :func:`check_text` and the streaming check use)."""

    def __init__(self, settings: Settings, resources: Resources, options: GuardOptions | ResolvedGuardOptions, *,
                 question: str | None,
                 sinks: list[EventSink] | None, reviser: Reviser | None, caller: str | None,
                 messages: Sequence[Any] = ()) -> None:
        self.options = options if isinstance(options, ResolvedGuardOptions) else options.resolve(settings)
        self.settings = settings
        # The checker's failed tries, for the whole reply: a checker that fails every call is given up on once,
        # plain or streamed, not once per call (llm/failure_budget.py).
        self.failures = FailureBudget(REPLY_FAILED_TRIES)
        # The caller's factdebate.question names the person's question when the face's guess is not it.
        # The conversation before the reply (OpenAI messages, as the door read them: guard_engine/call.py), whole: what
        # the extractor is shown of it is chosen where its input is built (guard_engine/window.py).
        self.messages: list[Any] = list(messages)
        # The turns as the call read them (guard_engine/options.py's with_conversation, off the event loop for a long
        # conversation); read here only when a caller gave messages without them.
        dialogue = self.options.dialogue or (turns_of(self.messages) if self.messages else [])
        # Else the conversation's last turn, when it is the person's (a door that passes only the conversation).
        last = dialogue[-1][1] if dialogue and dialogue[-1][0] == "user" else None
        self.question = guard_question(self.options.question or question or last, settings)
        self.reviser = reviser
        self.caller = caller  # a revision is checked again as this caller (rewrite)
        self.usage = _Usage()
        self.calls = CallCount(parent=current_count())  # a re-check's calls count in its check's too
        self.sinks: list[EventSink] = [*(sinks or []), self.usage]
        self.conversation: Conversation | None = conversation(caller, self.options.conversation_id)
        # What of the conversation the extractor reads the reply in (guard_engine/window.py); a reply to a person's
        # message is read in its context, so a short answer ("Sydney.", "Yes.") is a statement (the gate).
        self.window = window(dialogue, self.question)
        self.asked = self.question is not None or self.window.text is not None
        docs = passages(self.options.evidence)
        self.session = SessionEvidence(self.options, settings)
        if not self.session.trimmed:  # within the limits: every claim reads every passage, as before
            docs += self.session.all_passages()
        self.context = Context(settings=settings, resources=resources, options=self.options, passages=docs,
                               sinks=self.sinks, scope=self.conversation.scope if self.conversation else None)
        self.digest = evidence_digest(docs)
        # The model cache is shared within one conversation of one caller, and never between API keys.
        self.cache_scope = (self.conversation.scope if self.conversation is not None
                            else "caller-" + hashlib.sha256(caller.encode()).hexdigest()[:20] if caller else "")
        self.recorder = RunRecorder(self.sinks, run_id=uuid.uuid4().hex[:12])
        self.started = check_started()  # on the service: the request's arrival (guard_engine/clock.py)
        self.progress: list[Progress] = []
        self._claimed: set[str] = set()  # each claim's words, folded: a claim said twice is checked once
        # The sentences of the reply each claim is drawn from, as the extractor said (by its words, folded).
        self._drawn: dict[str, list[Sentence]] = {}
        self.dropped: list[tuple[str, list[Sentence]]] = []  # claims the grounding filter dropped, and where from
        self.skipped: list[SkippedSentence] = []
        self.worthy: list[Sentence] = []  # every sentence the gate passed: each must be covered by a claim
        # Headings the gate set aside: each is shown to the extractor numbered, once, since a heading may state
        # a fact itself ("# The Titanic sank in 1915"); one that states nothing yields no claim and is not
        # counted as uncovered.
        self.headings: list[Sentence] = []
        self._headings_shown: set[int] = set()
        self.ungrounded: list[str] = []  # claims the grounding filter dropped
        self.unresolved: list[str] = []  # claims whose subject is still a pronoun: not checked
        self.unresolved_from: list[tuple[str, list[Sentence]]] = []  # those, with the sentences they came from
        self.capped = False  # the claim cap left statements out
        # The sentences (by their start) whose claims the limit of their extraction's call may have cut short
        # (guard_engine/coverage.py): covered only by claims that hold all they say.
        self.cut: set[int] = set()
        self.beyond: int | None = None  # where the part past guard.max_message_chars starts (checked_length)
        self.taken = 0  # check-worthy sentences given to the extractor so far (take: the claim cap, in order)
        self.degraded_reasons: list[str] = []
        self.deadline_cut = False  # the deadline ended the extraction (or came before it): GuardResult.deadline_missed
        # The sentences (by their start) whose claims were not extracted when the deadline ended, with why: each
        # is unchecked on its own, and the sentences decided before keep their verdicts (coverage.py).
        self.late: dict[int, str] = {}
        self.passed_through: list[str] = [self.window.note] if self.window.note else []
        self.pieces: list[tuple[int, int, str | None]] = []  # every sentence gated so far, in order (headings)
        self.gate_semaphore = asyncio.Semaphore(settings.response.claim_concurrency)
        # The fast tier asked with the extraction, one call a window (guard_engine/window_call.py, guard.window_call),
        # where the fast tier is the first and every claim reads the same passages (the conversation's tool
        # results within the limits: past them, each claim reads those ranked for it).
        self.window_call = WindowCall(self.context) if (
            settings.guard.window_call and tiers_for(self.options)[0] == "fast"
            and not self.session.trimmed) else None

    def skip(self, sentences: Sequence[Sentence]) -> list[Sentence]:
        """The check-worthy ones of ``sentences``; the others are recorded as skipped. A bare "Sure." or "Of
        course." answering the person's yes-or-no question is a statement (the gate alone reads it as framing:
        it does not know the question); every door's gating passes through here."""
        sentences = [dataclasses.replace(s, reason=None) if s.reason == "greeting" and answers_asked(
            self.question, s.text) else s for s in sentences]
        self.skipped += [SkippedSentence(span=s.span, text=s.text, reason=s.reason) for s in sentences if s.reason]
        for s in sentences:
            insort(self.pieces, (s.start, s.end, s.reason), key=lambda piece: piece[0])
        self.headings += [s for s in sentences if s.reason == "heading" and any(c.isalnum() for c in s.text)]
        worthy = [s for s in sentences if s.reason is None]
        self.worthy += worthy
        return worthy

    def take(self, worthy: Sequence[Sentence]) -> list[Sentence]:
        """The check-worthy sentences of ``worthy`` (the next ones of the reply, in its order) that fit the
        claim cap: the reply's first ``response.max_claims`` check-worthy sentences are given to the extractor,
        on every door alike (a whole reply at once, a stream part by part), so which sentences lie beyond the
        cap does not depend on the door or on what the extractor picks; those beyond are unchecked, said so."""
        room = max(0, self.settings.response.max_claims - self.taken)
        if len(worthy) > room:
            self.capped = True
        taken = list(worthy[:room])
        self.taken += len(taken)
        return taken

    def gate(self, text: str) -> list[Sentence]:
        """The gate's reading of ``text`` (the reply, or a part of it), in the reply's context."""
        return gate(text, asked=self.asked)

    def headings_in(self, start: int, end: int) -> list[Sentence]:
        """The headings gated in ``reply[start:end]`` that the extractor has not been shown numbered yet."""
        return [h for h in self.headings if start <= h.start < end and h.start not in self._headings_shown]

    def extractor_text(self, worthy: Sequence[Sentence], reply: str, headings: Sequence[Sentence] = ()) -> Shown:
        """What the extractor is given of ``worthy`` (sentences of ``reply``) and ``headings``: each sentence
        under its heading (response_level/worthiness.py's :func:`layout`), the same for a whole reply and a
        streamed one, the sentences and the headings numbered, with where each stands in it (:class:`Shown`)."""
        chosen = sorted([*worthy, *headings], key=lambda s: s.start)
        self._headings_shown.update(h.start for h in headings)
        text, units = layout(reply, self.pieces, [(s.start, s.end) for s in chosen])
        return Shown(text, chosen, units)

    async def extract(self, text: str, context: str | None = None) -> list[str] | None:
        """The claims of ``text`` (None, with the reason recorded, when the extractor's reply was unreadable
        or the extractor failed). ``context``: the reply before ``text`` (a stream's part); the conversation's
        window comes before it. For :meth:`extractor_text`'s text, the sentences each claim is drawn from are
        kept for :meth:`add_claim` and the coverage."""
        if self.window.text is not None:
            context = self.window.text + (f"{SO_FAR}{context}" if context else "")
        with sharing(self.failures), span("claims", "extraction"):
            try:
                # The reply's first check-worthy sentence: a leading "It" added as written stands for its
                # subject on every door, a whole reply and a streamed part alike.
                opening = self.worthy[0].text if self.worthy else None
                extraction = await aextract_claims(str(text), question=self.question,
                                                   llm=self.context.resources.llm("extractor"),
                                                   max_claims=self.settings.response.max_claims, context=context,
                                                   opening=opening,
                                                   units=text.units if isinstance(text, Shown) else None,
                                                   ask_claims=self.window_call)
            except FactDebateError as exc:
                self.degraded_reasons.append(f"the claims could not be extracted: {exc}")
                return None
        self.recorder.emit(ClaimsExtracted(claims=extraction.claims, parsed=extraction.parsed,
                                           ungrounded=extraction.ungrounded))
        if not extraction.parsed:
            self.degraded_reasons.append("the claims could not be read from the extractor's reply")
            return None
        shown = text.sentences if isinstance(text, Shown) else ()
        self.cut.update(s.start for s in drawn_from(extraction.cut, shown))
        for claim, numbers in zip(extraction.claims, extraction.sentences, strict=False):
            if drawn := drawn_from(numbers, shown):
                self._drawn.setdefault(_folded(claim), drawn)
        self.ungrounded += extraction.ungrounded
        self.dropped += [(claim, drawn_from(numbers, shown)) for claim, numbers in
                         zip(extraction.ungrounded, extraction.ungrounded_sentences, strict=False)]
        if len(extraction.claims) >= self.settings.response.max_claims:
            self.capped = True  # the sentences no claim covers are unchecked, said so (coverage.py)
        return self._resolved(extraction.claims, str(text), opening)

    def _resolved(self, claims: list[str], text: str, opening: str | None) -> list[str]:
        """``claims`` without those whose subject is still a pronoun ("It was finished in 1931."): checked as
        written they say nothing about anything. Their sentences are read as the extraction reads a sentence no
        claim covers, a leading "It" as the reply's opening subject ("The Eiffel Tower is in Rome. It was
        completed in 1889."); one whose subject the reply does not name either stays uncovered, unchecked with
        its subject unresolved (coverage.py), never checked as written."""
        kept = [claim for claim in claims if unresolved(claim) is None]
        if len(kept) == len(claims):
            return kept
        vague = [claim for claim in claims if unresolved(claim) is not None]
        self.unresolved += vague
        self.unresolved_from += [(claim, self._drawn.get(_folded(claim), [])) for claim in vague]
        again = uncovered_sentences(text, kept, len(claims) - len(kept), opening=opening)
        return kept + [claim for claim in again if claim not in kept and unresolved(claim) is None]

    def room(self) -> int:
        """How many more claims the reply may have (``response.max_claims`` for the whole reply, streams too)."""
        return max(0, self.settings.response.max_claims - len(self.progress))

    def add_claim(self, claim: str, text: str, after: int, *, index: TextIndex | None = None) -> Progress | None:
        """A new claim (None when this check has it already), placed in ``text`` (whose ``index`` it is, made
        once for all its claims) at or after ``after``: in the sentence the extractor said it is drawn from
        (on its words when they are there as written), else where its words are."""
        folded = _folded(claim)
        if folded in self._claimed:
            return None
        self._claimed.add(folded)
        drawn = self._drawn.get(folded, [])
        place: Span | None
        if drawn:
            place, note = place_in(claim, text, drawn, index)
        else:
            place, note = find_span(claim, text, after=after, index=index)
            if place is None and (answered := self._short_answer_of(claim)) is not None:
                place, note = answered.span, SHORT_ANSWER
        progress = Progress(GuardClaim(index=len(self.progress), claim=claim, span=place, span_note=note,
                                       sources=[s.span for s in drawn]))
        self.progress.append(progress)
        return progress

    def _short_answer_of(self, claim: str) -> Sentence | None:
        """The reply's short answer ("Yes.", "No, it is not.", "Sydney.") that ``claim``, placed in no sentence,
        states in full with the question's words: the one short answer of the reply so far (or the one no
        claim is placed in yet), when the claim shares half its content words with the question and the
        conversation. So "Apollo 11 landed on the Moon in 1972." is marked on "Yes.", and ``hold`` withholds
        that sentence, not the reply."""
        if not self.asked:
            return None
        asked = content_words(" ".join(filter(None, (self.question, self.window.text))))
        own = content_words(claim)
        if not own or 2 * len(own & asked) < len(own):
            return None
        short = [s for s in self.worthy if short_answer(s.text)]
        if len(short) > 1:
            placed = [p.claim.span for p in self.progress if p.claim.span is not None]
            short = [s for s in short if not any(a.start < s.end and s.start < a.end for a in placed)]
        return short[0] if len(short) == 1 else None

    def _cache_key(self, claim: str, digest: str) -> tuple[str, ...]:
        o = self.options
        return (" ".join(claim.lower().split()), o.method, o.tier, o.max_tier, o.evidence_mode, digest)

    def claim_context(self, claim: str) -> tuple[Context, str]:
        """The context one claim is decided in, and its passages' digest: the conversation's tool results
        over the limits are ranked for this claim (guard_engine/session.py)."""
        if not self.session.trimmed:
            return self.context, self.digest
        docs = [*self.context.passages, *self.session.passages_for(claim)]
        return dataclasses.replace(self.context, passages=docs), evidence_digest(docs)

    def begin(self, claim: str) -> asyncio.Task[TierOutcome] | None:
        """The fast tier's outcome for ``claim`` begun before the extractor has said it is a claim
        (guard_engine/head_start.py), to hand to :meth:`decide` if it is; None where :meth:`decide` would not ask
        the fast tier that very question: the first tier is not ``fast``, the conversation knows the claim,
        or the session's passages are ranked per claim (a claim not taken must not count in that ranking)."""
        if tiers_for(self.options)[0] != "fast" or self.session.trimmed or self.window_call is not None:
            return None  # (the window's call gives the fast tier's verdict with the claim)
        if self.conversation is not None and self.conversation.recall(self._cache_key(claim, self.digest)):
            return None
        return begin_fast(claim, self.context)

    async def decide(self, progress: Progress, head: asyncio.Future[TierOutcome] | None = None) -> None:
        """Decide one claim (from the conversation's verdicts when it was settled there before); ``head``:
        :meth:`begin`'s task for this claim's text, or the verdict the window's call gave it."""
        given = self.window_call.outcome_of(progress.claim.claim) if self.window_call is not None else None
        if given is not None:
            drop(head)
            head = asyncio.ensure_future(window_outcome(progress.claim.claim, given.verdict, self.context))
        context, digest = self.claim_context(progress.claim.claim)
        key = self._cache_key(progress.claim.claim, digest)
        known = self.conversation.recall(key) if self.conversation else None
        if known is not None:
            drop(head)
            progress.claim = known.model_copy(update={"index": progress.claim.index, "span": progress.claim.span,
                                                      "span_note": progress.claim.span_note,
                                                      "sources": progress.claim.sources})
            progress.done = True
            progress.first.set()
            return
        try:
            with sharing(self.failures):
                await self._decide(progress, context, head, given.correction if given is not None else None)
        finally:
            drop(head)  # a head the claim's check never reached (cancelled while it waited its turn)
            progress.first.set()  # however it ended (an error, cancelled by the deadline): nothing waits on
        final = progress.final(timed_out=False)
        if self.conversation is not None and final.status == "checked":
            self.conversation.keep(key, final)

    async def _decide(self, progress: Progress, context: Context,
                      head: asyncio.Future[TierOutcome] | None = None, proposed: str | None = None) -> None:
        async with self.gate_semaphore:
            with span(f"claim {progress.claim.index + 1}", "subclaim", index=progress.claim.index,
                      claim=progress.claim.claim[:300]):
                if head is None and self.window_call is not None:
                    # The window's answer gave it no usable verdict: asked alone, with passages ranked for it
                    head = asyncio.ensure_future(self.window_call.alone(progress.claim.claim))
                try:
                    await decide(progress, context, head, proposed)
                except FactDebateError as exc:
                    progress.claim.status, progress.claim.reason = "error", str(exc)
                    progress.done = True
                except Exception as exc:  # a fault in one claim's check is that claim's error, said as such
                    progress.claim.status = "error"
                    progress.claim.reason = f"the check failed: {type(exc).__name__}: {exc}"
                    progress.done = True
                finally:
                    drop(head)  # (asked alone, and the check ended before it was read)

    def remaining(self, deadline: float) -> float:
        return max(0.0, deadline - time.perf_counter())

    def not_reached(self, worthy: Sequence[Sentence]) -> None:
        """``worthy``'s claims were not extracted when the deadline ended: each of these sentences is unchecked,
        said why, and the reply is not degraded as a whole for it."""
        self.deadline_cut = True
        why = (f"the deadline ({self.options.deadline_s:g} s) ended before this sentence's claims were extracted: "
               "it was not checked")
        self.late.update((s.start, why) for s in worthy)

    def _unchecked_sentences(self, claims: list[GuardClaim], text: str) -> list[GuardClaim]:
        """The check-worthy sentences no claim covers, as unchecked claims with why (guard_engine/coverage.py); a
        table's header row, known only now that the row after it is read, goes to ``skipped``."""
        missing, headers = uncovered(self.worthy, claims, text, dropped=self.dropped, capped=self.capped,
                                     max_claims=self.settings.response.max_claims, unresolved=self.unresolved_from,
                                     cut=self.cut, late=self.late)
        self.skipped += [SkippedSentence(span=s.span, text=s.text, reason="table header") for s in headers]
        if self.capped:
            self.passed_through.append(f"at most {self.settings.response.max_claims} claims are taken from one "
                                       "reply (response.max_claims): the statements beyond them are unchecked")
        return [GuardClaim(index=len(claims) + n, claim=s.text.strip(), span=s.span, status="unchecked", reason=why)
                for n, (s, why) in enumerate(missing)]

    async def result(self, text: str, *, degraded: bool) -> GuardResult:
        """The check's result with the policy applied; every claim not done counts as timed out. A sentence
        that states something and no claim covers is an unchecked claim too (never SUPPORTS by omission)."""
        claims = [p.final(timed_out=not p.done) for p in self.progress]
        if not degraded and not self.degraded_reasons:
            claims += self._unchecked_sentences(claims, text)
        if (rest := self.beyond_note(text, len(claims))) is not None:
            claims.append(rest)
        if self.session.trimmed:
            if not self.session.dropped:  # no claim to rank for: ranked against the reply itself
                self.session.chosen(query_of([c.claim for c in claims], text))
            self.passed_through.append(self.session.note(self.settings))
        if not degraded and (failed := _all_failed(claims)) is not None:
            self.degraded_reasons.append(failed)  # nothing was checked: no label can stand for the reply
        reason = "; ".join(self.degraded_reasons) or None
        degraded = degraded or bool(self.degraded_reasons)
        # A claim still undecided when the deadline came is unchecked for it (Progress.final); the claims past
        # the progress's are sentences no claim covers, unchecked for other reasons.
        missed = self.deadline_cut or any(not p.done and c.status == "unchecked"
                                          for p, c in zip(self.progress, claims, strict=False))
        if degraded:
            label: Label | None = None
            decided_by = "degraded"
        else:
            label, decided_by = response_label([c.label if c.status == "checked" else None for c in claims])
        self.recorder.emit(ResponseJudged(label=label, decided_by=decided_by, claim_labels=[c.label for c in claims]))
        o = self.options
        total, checked = sentence_counts(text, claims, self.beyond)
        result = GuardResult(
            label=label, degraded=degraded, degraded_reason=reason, deadline_missed=missed,
            usage=GuardUsage(model_calls=self.calls.sent, cached_calls=self.calls.cached,
                             tool_calls=self.usage.tool_calls, seconds=round(time.perf_counter() - self.started, 3)),
            claims=claims, skipped=sorted(self.skipped, key=lambda s: s.span.start),
            passed_through=list(dict.fromkeys(self.passed_through)), policy=o.policy,
            evidence_dropped=self.session.dropped if self.session.trimmed else 0,
            on_unchecked=o.on_unchecked, on_not_enough_info=o.on_not_enough_info, answer_format=o.answer_format,
            tier=o.tier, deadline_s=o.deadline_s, original_text=text, text=text, sentences=total,
            sentences_checked=checked, question=self.question, method=o.method, models=self.models(),
            warnings=model_warnings(self.models(), CLAIMS))
        return await apply_policy(result, self.reviser, self.recheck, self.settings.guard.rewrite_fallback)

    def models(self) -> list[str]:
        """The models that answered for this check: the extraction's and the fast tier's (this check's
        recorder) and each debate tier's (their own)."""
        return sorted(set(self.recorder.usage_by_model) | self.context.models)

    def beyond_note(self, text: str, index: int) -> GuardClaim | None:
        """The reply's rest past ``guard.max_message_chars`` (from :attr:`beyond` on) as one unchecked claim,
        with its span and why: never checked, so never SUPPORTS, and ``on_unchecked`` applies to it."""
        if self.beyond is None or not text[self.beyond:].strip():
            return None
        start = self.beyond + len(text[self.beyond:]) - len(text[self.beyond:].lstrip())
        rest = " ".join(text[start:].split())
        limit = self.settings.guard.max_message_chars
        return GuardClaim(index=index, claim=rest if len(rest) <= 300 else rest[:299] + "\u2026",
                          span=Span(start=start, end=len(text.rstrip())), status="unchecked",
                          reason=f"past guard.max_message_chars ({limit} characters): the reply is checked as "
                                 "far as the last sentence ending within the limit; the rest, from character "
                                 f"{start} on, was not checked")

    async def recheck(self, revised: str, refuted: list[GuardClaim]) -> GuardResult:
        """A ``rewrite``'s revision checked again before it is sent: the same check, at the tier that refuted
        ``refuted`` (guard_engine/policy.py), with its own deadline of the same length; its calls count in this
        check's usage."""
        with own_clock(), counting(self.calls):  # its deadline from now; its model calls counted here too
            return await check_text(revised, self.settings, self.context.resources,
                                    options=recheck_options(self.options, refuted), question=self.question,
                                    sinks=self.sinks, caller=self.caller, messages=self.messages)


def _all_failed(claims: Sequence[GuardClaim]) -> str | None:
    """Why the check is degraded when every claim it tried to check failed (a checker down, say), else None:
    such a reply was no more checked than one whose claims were never extracted."""
    tried = [c for c in claims if c.status in ("checked", "error")]
    if not tried or any(c.status == "checked" for c in tried):
        return None
    first = next((c.reason for c in tried if c.reason), "")
    return f"none of the {len(tried)} claim(s) could be checked" + (f": {first}" if first else "")


def sentence_counts(text: str, claims: Sequence[GuardClaim], upto: int | None = None) -> tuple[int, int]:
    """How many sentences ``text`` has and how many of them hold a checked claim's span (so that a degraded
    check never says "3 sentences not checked" of 8 when none of the 8 was checked). ``upto``: where the checked
    part ends (:func:`checked_length`); the rest counts as one sentence, unchecked, and is not split: a reply of
    megabytes past the limit would hold the event loop for seconds."""
    if upto is not None and upto < len(text):
        total, checked = sentence_counts(text[:upto], claims)
        return total + 1, checked
    parts = sentences(text)
    spans = [c.span for c in claims if c.status == "checked" and c.span is not None]
    checked = sum(any(s.start < end and s.end > start for s in spans) for start, end in parts)
    return len(parts), checked


def drawn_from(numbers: Sequence[int], shown: Sequence[Sentence]) -> list[Sentence]:
    """The reply's sentences that ``numbers`` (the extractor's, from 1) name among those it was ``shown``."""
    return [shown[n - 1] for n in numbers if 1 <= n <= len(shown)]


def place_in(claim: str, text: str, drawn: Sequence[Sentence], index: TextIndex | None) -> tuple[Span, str | None]:
    """Where ``claim``, drawn from the sentences ``drawn``, is placed in ``text``: on its words where one of them
    writes them as the claim does; else on the lines of one sentence wrapped across them (a line break mid-sentence,
    an object's members on lines of their own: the part the claim states wrongly may be on any); else on the one
    its words place it in (response_level/placing.py's :func:`stated_in`: "She won two Nobel Prizes.", not the
    sentence before it that names Marie Curie). The claim is marked and withheld on every sentence it was drawn
    from all the same (:meth:`GuardClaim.places`)."""
    for sentence in drawn:
        found, note = find_span(claim, text, after=sentence.start, index=index)
        if found is not None and note is None and sentence.start <= found.start and found.end <= sentence.end:
            return found, None
    ordered = sorted(drawn, key=lambda s: s.start)
    if len(ordered) > 1 and all(not text[a.end:b.start].strip() and not _ends_sentence(text[a.start:a.end])
                                for a, b in pairwise(ordered)):
        return Span(start=ordered[0].start, end=max(s.end for s in ordered)), DRAWN_FROM
    return ordered[stated_in(claim, [text[s.start:s.end] for s in ordered])].span, DRAWN_FROM


def _ends_sentence(line: str) -> bool:
    """Whether ``line`` ends as a sentence does: the line after it is another sentence, not its rest."""
    return line.rstrip(CLOSING).endswith(tuple(".!?\u3002\uff01\uff1f"))


def drop(head: asyncio.Future[Any] | None) -> None:
    """Give up on ``head`` (:meth:`Check.begin`'s task): cancelled, or its outcome read and thrown away."""
    if head is None:
        return
    if not head.done():
        head.cancel()
    elif not head.cancelled():
        head.exception()  # read, so that a failure nobody needs is not reported as never retrieved


async def settle(tasks: Sequence[asyncio.Task[Any]], timeout: float) -> None:
    """Wait for ``tasks`` at most ``timeout`` seconds; cancel the rest and wait for them to stop."""
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _place(check: Check, claims: list[str], text: str) -> None:
    """Add ``claims`` to the check, each placed in ``text`` after the previous one found exactly."""
    after = 0
    index = TextIndex(text)
    for claim in claims:
        progress = check.add_claim(claim, text, after, index=index)
        if progress is not None and progress.claim.span is not None and progress.claim.span_note is None:
            after = progress.claim.span.start + 1


async def check_text(text: str, settings: Settings, resources: Resources, *,
                     options: GuardOptions | ResolvedGuardOptions,
                     question: str | None = None, sinks: list[EventSink] | None = None,
                     reviser: Reviser | None = None, caller: str | None = None,
                     messages: Sequence[Any] = ()) -> GuardResult:
    """Check ``text`` (an assistant's reply) and apply the policy. ``caller``: who asks (the service: the API
    key's id), so a conversation's shared state is never another caller's. Raises ``InputError`` for
    options out of bounds; a reply that cannot be checked at all (not clean text) is ``degraded``, one longer
    than ``guard.max_message_chars`` is checked as far as :func:`checked_length` (the rest unchecked), and
    a claim that could not be decided is ``unchecked``, never an error."""
    problem = uncheckable(text, settings)
    check = Check(settings, resources, options, question=question, sinks=sinks, reviser=reviser, caller=caller,
                  messages=messages)
    deadline = check.started + check.options.deadline_s
    with recording(check.recorder), cache_scope(check.cache_scope), counting(check.calls):
        if problem is not None:
            check.degraded_reasons.append(problem)
            return await check.result(text, degraded=True)
        check.recorder.emit(ResponseStarted(response=text, question=check.question, method=check.options.method))
        if (cut := checked_length(text, settings.guard.max_message_chars)) < len(text):
            check.beyond = cut  # the rest: one unchecked claim of the result, said why
        worthy = check.take(check.skip(await read_text(cut, check.gate, text[:cut])))
        headings = check.headings_in(0, cut)
        claims: list[str] | None = []
        # The request's wait before the check may have used the whole deadline (clock.py).
        if (worthy or headings) and check.remaining(deadline) <= 0:
            check.deadline_cut = True
            check.degraded_reasons.append(
                f"the deadline ({check.options.deadline_s:g} s) ended before the check began: the request had "
                f"waited {time.perf_counter() - check.started:.2f} s for the service by then")
            claims = None
        elif worthy or headings:
            extraction = asyncio.ensure_future(check.extract(check.extractor_text(worthy, text[:cut], headings)))
            await settle([extraction], check.remaining(deadline))
            if extraction.cancelled():
                check.not_reached(worthy)
            else:
                claims = extraction.result()
        await read_text(cut, _place, check, claims or [], text[:cut])
        tasks = [asyncio.ensure_future(check.decide(p)) for p in check.progress]
        await settle(tasks, check.remaining(deadline))
        return await check.result(text, degraded=claims is None)
