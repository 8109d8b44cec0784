"""The fast tier's one call per reply window: the claims of the window (a whole reply, or the sentences of a
stream completed while its previous call ran) with each one's verdict over the passages, and a refuted claim's
correction, asked together.

The model is shown the window's sentences numbered, as the extraction prompt shows them, and the passages the
fast tier would read, and answers one JSON object (held to its schema where the backend constrains output)::

    {"claims": [{"claim": ..., "sentences": [1], "label": ..., "passage": 2, "quote": ..., "correction": ...}]}

The claims are read as an extraction's (response_level/extract.py: held to the text, sentences no claim
covers added as they stand); each claim's label, passage and quote as the fast tier reads its own reply
(guard_engine/fast.py). A refuted claim's ``correction`` is the sentence its quote says instead: it is held to that
quote and checked against it by the checker as a correction asked alone is (guard_engine/correct.py), so the
corrector's own call is saved, not the check. A claim whose verdict cannot be read, or that the extraction
adds itself, has no verdict here and is asked alone, as the fast tier asks any claim; a refuted claim with no
usable correction gets the corrector's call; a claim that goes up a tier goes up as before. An answer whose
claims cannot be read at all is not re-asked in this form: the window is extracted as it is without the fast
tier in one call, so a model that cannot answer both at once still gets its claims checked.

The passages are ranked for each sentence of the window, as the fast tier ranks them for each claim (the
given passages most similar to it, then the search engine's results for it), by its own words and by what it
is about (:func:`about_of`: the heading it is under, the subject named before it where it names none, the
question it answers), and merged best first, each shown once: a sentence's passages are the same whichever
window it is read in, a whole reply or a stream's part, and the model reads a passage that several sentences
share once instead of once a claim. A claim with no usable verdict is asked once more alone, over the
passages ranked for it and what its sentence is about (:meth:`WindowCall.alone`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from factdebate.core.runtime import count_reply, span
from factdebate.core.types import Document
from factdebate.guard_engine.citations import folded as _folded
from factdebate.guard_engine.deadline import checker_runs_here
from factdebate.guard_engine.evidence import Query, ranked, tier_resources, tier_settings
from factdebate.guard_engine.fast import (
    EXAMPLE_QUOTE,
    LABELS,
    NOT_FOUNDED,
    FastVerdict,
    decide_fast,
    read_value,
    searched,
    shown_passages,
    verdict_of,
)
from factdebate.guard_engine.tiers import Context, TierOutcome, fast_outcome
from factdebate.guard_engine.window import WHO
from factdebate.llm.ask import part_chars
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.response_level.extract import (
    CLAIM_TOKENS,
    MOST_SOURCES,
    ClaimsReply,
    ask_for_claims,
    claim_chars,
    numbered,
    parse_claims,
)
from factdebate.response_level.grounding import names
from factdebate.response_level.repeats import end_when_repeating
from factdebate.response_level.spans import sentences
from factdebate.response_level.structured import structured
from factdebate.response_level.worthiness import heading
from factdebate.tools.given import current_evidence, given_evidence
from factdebate.util.errors import FactDebateError

AGENT = "guard-fast"
# A sentence's number, as a claim may write it back ("[S2] The tower ..."): not part of the claim.
_MARK = re.compile(r"\s*\[S(\d{1,4})\]\s*")
_WORD = re.compile(r"[^\W_]+")
# Beyond the claim itself, each claim's verdict: a label, a passage number and a quote of up to a sentence;
# and a refuted claim's correction, a sentence.
VERDICT_TOKENS = 60
CORRECTION_TOKENS = 40
QUOTE_CHARS = 300
CORRECTION_CHARS = 300
# The passages of a window, all sentences together, in retrieval.k's: a sentence alone reads as many as the
# fast tier gives a claim (k given, k searched), six sentences read the best two of each, and a long reply's
# prompt stays within a small model's context (12 passages of retrieval.max_doc_chars at the defaults).
PASSAGES_PER_K = 4
# A checker on this machine (guard_engine/deadline.py: an in-process llama.cpp model, a loopback server) reads a
# prompt at about 44 tokens a second on two cores and writes about 17 (the offline model, docs/performance.md):
# a real answer's window prompt of 12 whole passages (about 1,500 tokens) and its quotes (about 380 tokens out)
# took two minutes, past the deadline. Such a checker is shown half the passages, each cut to the sentences
# that share most words with the window (about 600 characters), and quotes a shorter span.
LOCAL_PASSAGES_PER_K = 2
LOCAL_PASSAGE_CHARS = 600
LOCAL_QUOTE_CHARS = 160
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

# The prompt's worked example (guard_window.j2): the extraction prompt's invented bridge, so that a copied
# claim is dropped as the extraction's example is (response_level/grounding.py), and the fast tier's
# invented quote, which no passage holds (guard_engine/fast.py); its correction, copied, corrects nothing.
EXAMPLE_CORRECTION = "The Quorvel Bridge opened in 1881."
EXAMPLE = json.dumps({"claims": [
    {"claim": "The Quorvel Bridge spans the river Anselt.", "sentences": [1], "label": "NOT ENOUGH INFO",
     "passage": 0, "quote": "", "correction": ""},
    {"claim": "The Quorvel Bridge is in Tarnwick.", "sentences": [1], "label": "SUPPORTS", "passage": 2,
     "quote": EXAMPLE_QUOTE, "correction": ""},
    {"claim": "The Quorvel Bridge opened in 1874.", "sentences": [2], "label": "REFUTES", "passage": 1,
     "quote": "The Quorvel Bridge opened to traffic in 1881.", "correction": EXAMPLE_CORRECTION}]})


# The lean answer (:attr:`WindowCall.lean`): each claim's label and correction, without a passage number or a quote.
LEAN_EXAMPLE = json.dumps({"claims": [{k: v for k, v in item.items() if k not in ("passage", "quote")}
                                      for item in json.loads(EXAMPLE)["claims"]]})


def window_schema(max_items: int, count: int, longest: int, passages: int,
                  quote_chars: int = QUOTE_CHARS, *, lean: bool = False) -> dict[str, Any]:
    """The extraction's schema (response_level/extract.py's ``claims_schema``) with each claim's verdict and
    correction (empty unless the claim is refuted); ``lean``: without the passage number and the quote. A
    sentence's and a passage's number are each one of the numbers shown (an enumeration: llama.cpp's grammar of a
    JSON schema does not hold an integer to its minimum and maximum, and the offline model numbered a claim of a
    two-sentence answer 3)."""
    numbers = {"type": "integer", "enum": list(range(1, max(1, count) + 1))}
    fields: dict[str, Any] = {
        "claim": {"type": "string", "minLength": 1, "maxLength": longest},
        "sentences": {"type": "array", "minItems": 1, "maxItems": MOST_SOURCES, "items": numbers},
        "label": {"type": "string", "enum": LABELS},
        "passage": {"type": "integer", "enum": list(range(0, max(0, passages) + 1))},
        "quote": {"type": "string", "maxLength": quote_chars},
        "correction": {"type": "string", "maxLength": CORRECTION_CHARS}}
    if lean:
        fields = {k: v for k, v in fields.items() if k not in ("passage", "quote")}
    item = {"type": "object", "additionalProperties": False, "required": list(fields), "properties": fields}
    return {"type": "object", "additionalProperties": False, "required": ["claims"],
            "properties": {"claims": {"type": "array", "minItems": 1, "maxItems": max_items, "items": item}}}


def _items(answer: str) -> list[Any]:
    """The claims list of the answer, as JSON values (the answer was read by :func:`parse_claims` already)."""
    value = enclosed(answer, "{[")
    found = value.get("claims") if isinstance(value, dict) else value
    return found if isinstance(found, list) else []


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def for_claim(claim: str, shown: list[Document], read: list[set[str]]) -> tuple[list[Document], list[int]]:
    """The window's passages (``read``: each one's words) with those about ``claim`` (sharing a word of four
    letters or more with it) first, each kind in the window's order, and where each stood in the window's
    list: the passages its evidence names when its verdict cites none are then its own, not another
    sentence's."""
    words = {w for w in _words(claim) if len(w) > 3}
    order = sorted(range(len(shown)), key=lambda i: not words & read[i])
    return [shown[i] for i in order], order


# What the extractor reads before a stream's window of the reply itself (guard_engine/check.py writes it after
# the conversation): its headings are the window's too.
SO_FAR = "\nAssistant (this reply, so far): "
# Who says a line of the conversation as the extractor is shown it (guard_engine/window.py): no name of a subject.
_WHO = re.compile(r"\b(?:Person|Assistant|System prompt)\b[^:\n]{0,40}:")
_HEADING_MARKS = re.compile(r"^[#*\s]+|[*:\s]+$")


def queries_for(text: str, units: Sequence[tuple[int, int]], question: str | None,
                context: str | None) -> list[Query]:
    """What each sentence of the window (``units`` of ``text``) is ranked by: its own words, and what it is
    about (:func:`about_of`) in the conversation and the reply before it (``context``, as the extractor reads
    it)."""
    conversation, so_far = _parts(context or "")
    spoken = _WHO.sub(" ", conversation)
    out = []
    for a, b in units:
        sentence = " ".join(text[a:b].split())
        if sentence:
            out.append(Query(sentence, about_of(sentence, f"{so_far}\n{text[:a]}", spoken, question)))
    return out or [Query(" ".join(text.split()), about_of(text, so_far, spoken, question))]


def _parts(context: str) -> tuple[str, str]:
    """(the conversation, the reply before the window) of the extractor's ``context``: guard_engine/check.py
    writes the conversation as guard_engine/window.py does (each line opens with who says it, or the subjects
    named earlier), then the reply so far after :data:`SO_FAR`; a stream without a conversation gives the reply
    so far alone."""
    conversation, marked, so_far = context.partition(SO_FAR)
    if marked:
        return conversation, so_far
    return (context, "") if context.startswith((*WHO.values(), "Named earlier")) else ("", context)


def about_of(sentence: str, reply_before: str, conversation: str, question: str | None) -> str:
    """What ``sentence`` is about beyond its own words: the heading it is under in the reply before it (a table
    row or a list item names its subject there), else, where it names nothing itself or is a table row ("It
    opened in 1889.", "No, it isn't.", "| Height | 330 m |"), the names of the nearest sentence before it that
    names something, in the reply or else the conversation; and the question it answers. "" when none."""
    subject = _heading_above(reply_before)
    if not subject and (not names(sentence) or structured(sentence)):
        subject = _antecedent(reply_before) or _antecedent(conversation)
    return " ".join(" ".join(p.split()) for p in (subject, question or "") if p.strip())


def _heading_above(reply_before: str) -> str:
    """The last heading of ``reply_before``, without its marks ("## Eiffel Tower" -> "Eiffel Tower")."""
    found = next((line for line in reversed(reply_before.splitlines()) if line.strip() and heading(line)), "")
    return _HEADING_MARKS.sub("", found)


def _antecedent(before: str) -> str:
    """The names the last sentence of ``before`` that names something writes, in its order ("" when none); a
    table row names its own subject, not the next row's."""
    for start, end in reversed(sentences(before)):
        piece = before[start:end]
        if not structured(piece) and (named := names(piece)):
            return " ".join(dict.fromkeys(w for w in _WORD.findall(piece) if w.casefold() in named))
    return ""


def merged(lists: Sequence[Sequence[Document]], most: int) -> list[Document]:
    """``lists`` (each sentence's passages, best first) taken rank by rank, each passage once, at most
    ``most``: every sentence's best passages before any sentence's second best."""
    out: list[Document] = []
    seen: set[str] = set()
    for rank in range(max((len(x) for x in lists), default=0)):
        for found in lists:
            if rank < len(found) and found[rank].text not in seen:
                seen.add(found[rank].text)
                out.append(found[rank])
                if len(out) == most:
                    return out
    return out


def _interleaved(given: list[Document], found: list[Document]) -> list[Document]:
    """A sentence's passages, the given and the engine's alternately, best first (so that the merge's first
    ranks hold both kinds)."""
    texts = {d.text for d in given}
    found = [d for d in found if d.text not in texts]
    out: list[Document] = []
    for n in range(max(len(given), len(found))):
        out += given[n:n + 1] + found[n:n + 1]
    return out


@dataclass
class Decided:
    """One claim's verdict from the window's call, and the correction it proposed (refuted claims only); its
    outcome is read as the fast tier reads its own (guard_engine/tiers.py's ``window_outcome``), when the claim's
    check begins."""

    verdict: FastVerdict
    correction: str | None = None


# Why a claim is asked alone (the trace's ``guard_window_reask`` span says which claims were, and why).
NO_ITEM = "the window's answer has no item for it"
UNREAD_ANSWER = "the window's answer could not be read"
FAILED_CALL = "the window's call failed"
NO_PASSAGES = "the window's passages could not be gathered"


@dataclass
class WindowCall:
    """One window's call: asks as :class:`~factdebate.response_level.extract.AskClaims` does, and keeps each
    claim's fast-tier outcome, by its words folded, for :meth:`outcome_of`; a claim it has none for is asked
    alone (:meth:`alone`)."""

    ctx: Context
    decided: dict[str, Decided] = field(default_factory=dict)
    # Each sentence asked about, by its words, with what it is about (its passages' query): a claim asked alone
    # is ranked with what its sentence is about.
    about: list[tuple[set[str], str]] = field(default_factory=list)
    # Why a claim has no usable verdict: by its words folded, an item that could not be read; by each window's
    # words, why its answer gave no verdicts at all (None: it gave them).
    unusable: dict[str, str] = field(default_factory=dict)
    windows: list[tuple[set[str], str | None]] = field(default_factory=list)
    question: str | None = None

    async def __call__(self, llm: LLM, text: str, units: Sequence[tuple[int, int]], room: int, *,
                       question: str | None, context: str | None) -> ClaimsReply:
        queries = queries_for(text, units, question, context)
        self.question = question
        self.about += [(_words(q.own), q.about) for q in queries]
        why: str | None = None
        try:
            shown = await self._passages(text, queries)
        except Exception:  # a fault of the search engine's: each claim asked alone meets it alone
            # A claim's own check makes such a fault that claim's error (guard_engine/check.py), not the window's: the
            # window is extracted and its claims are asked one by one, as they would be without the window call.
            shown, why = None, NO_PASSAGES
        try:
            reply = None if shown is None else await self._ask(text, units, room, shown, question=question,
                                                               context=context)
            why = why or (UNREAD_ANSWER if reply is None else None)
        except FactDebateError as exc:
            reply, why = None, f"{FAILED_CALL}: {exc}"  # the extraction alone, below, says what it says
        self.windows.append((_words(text), why))
        if reply is not None:
            return reply
        return await ask_for_claims(llm, text, units, room, question=question, context=context)

    async def _passages(self, text: str, queries: Sequence[Query]) -> list[Document]:
        """The passages the fast tier reads, ranked for each sentence of the window (module docstring) by its
        words and what it is about (:func:`queries_for`)."""
        ctx = self.ctx
        mode = ctx.options.evidence_mode
        settings = tier_settings(ctx.settings, method=ctx.options.method, tier="fast", mode=mode, scope=ctx.scope)
        resources = tier_resources(ctx.resources, settings)
        k = resources.settings.retrieval.k
        with given_evidence(ctx.passages if ctx.passages else None):
            given = current_evidence() or []
            best = await ranked(queries, given, k, resources.encoder) if given and mode != "retrieved" else \
                [[] for _ in queries]
            # (given passages only: no search, and no task a query to find nothing)
            found = await asyncio.gather(*(searched(q.search, resources, mode) for q in queries)) \
                if mode != "given" else [[] for _ in queries]
        lists = [_interleaved(g, f) for g, f in zip(best, found, strict=True)]
        if not self.local:
            return shown_passages(merged(lists, PASSAGES_PER_K * k), resources)
        wanted = _words(text).union(*(_words(q.about) for q in queries))
        return [d.model_copy(update={"text": excerpt(d.text, wanted, LOCAL_PASSAGE_CHARS)})
                for d in shown_passages(merged(lists, LOCAL_PASSAGES_PER_K * k), resources)]

    @property
    def local(self) -> bool:
        """Whether the checker runs on this machine, where every prompt token costs (:data:`LOCAL_PASSAGES_PER_K`)."""
        return checker_runs_here(self.ctx.settings)

    @property
    def lean(self) -> bool:
        """Whether the answer leaves out each claim's passage number and quote: a checker on this machine (where
        every token it writes costs about a tenth of a second) with the stance step on, which copies the quote
        from the passages itself and decides its stance (guard_engine/stance.py), so neither is read. The
        offline model's quotes were most of its answer (455 tokens for a two-sentence reply, 109 s), rarely a
        passage's words, and its passage numbers named the wrong passage; without them the stance step copies
        the sentence closest to the claim from every passage shown."""
        return self.local and self.ctx.settings.guard.stance_step

    async def _ask(self, text: str, units: Sequence[tuple[int, int]], room: int, shown: list[Document], *,
                   question: str | None, context: str | None) -> ClaimsReply | None:
        """The window's claims with their verdicts kept; None when the answer's claims cannot be read."""
        max_tokens = (CLAIM_TOKENS + VERDICT_TOKENS + CORRECTION_TOKENS) * room + 64
        most = claim_chars(part_chars(CLAIM_TOKENS * room + 64, room, len('{"claims": []}') + 40 * room), text, units)
        settings = tier_settings(self.ctx.settings, method=self.ctx.options.method, tier="fast",
                                 mode=self.ctx.options.evidence_mode, scope=self.ctx.scope)
        checker = tier_resources(self.ctx.resources, settings).llm("debater")
        lean = self.lean
        if lean:
            max_tokens -= VERDICT_TOKENS * room // 2  # no passage number or quote: about half a verdict's tokens
        prompt = render("guard_window", text=numbered(text, units), question=question, context=context,
                        documents=shown, max_claims=room, example=LEAN_EXAMPLE if lean else EXAMPLE, lean=lean)

        with span("claims and their fast verdicts", "extraction"):
            count_reply("guard_window", "asked")
            reply = await checker.complete(
                [{"role": "user", "content": prompt.text}],
                GenParams(temperature=0.0, max_tokens=max_tokens,
                          json_schema=window_schema(room, len(units), most, len(shown),
                                                    LOCAL_QUOTE_CHARS if self.local else QUOTE_CHARS, lean=lean),
                          ended=end_when_repeating([text[a:b] for a, b in units])),
                agent=AGENT, prompt=prompt.name)
        items, _ = parse_claims(reply.text, len(units))
        if items is None:
            count_reply("guard_window", "lost")
            return None
        self._keep(reply.text, shown)
        return ClaimsReply(items[:room], 0, reply.text)

    def _keep(self, answer: str, shown: list[Document]) -> None:
        """Each claim's outcome; a claim whose verdict cannot be read keeps none (it is asked alone)."""
        read = [_words(d.title + " " + d.text) for d in shown]
        for item in _items(answer):
            if not isinstance(item, dict) or not isinstance(item.get("claim"), str):
                continue
            claim = " ".join(_MARK.sub(" ", item["claim"]).split())
            label, index, quote, problem = read_value(item, shown, claim)
            count_reply("guard_fast", "asked")
            if label is None and problem not in NOT_FOUNDED:
                count_reply("guard_fast", "lost")
                self.unusable.setdefault(_folded(claim), f"its item could not be read: {problem}")
                continue
            own, order = for_claim(claim, shown, read)
            if label is None:  # read, but no verdict: the claim stays unchecked at this tier, not asked again
                self.decided.setdefault(_folded(claim), Decided(verdict_of(None, -1, "", problem, own), None))
                continue
            verdict = verdict_of(label, order.index(index) if index >= 0 else -1, quote, problem, own)
            self.decided.setdefault(_folded(claim), Decided(verdict,
                                                            _correction(item) if label.value == "REFUTES" else None))

    def outcome_of(self, claim: str) -> Decided | None:
        """The verdict the window's call gave ``claim`` (each claim's once), or None. A claim the extractor wrote
        opening with "It" reaches its check with the reply's subject in its place ("It was finished in 1889." is
        checked as "The Eiffel Tower was finished in 1889.", response_level/grounding.py's ``uncovered_places``):
        the same statement, so its verdict is the one given under the words the extractor wrote. Without this it
        was asked again alone, a second call (about 30 s offline) for a verdict already in hand."""
        folded = _folded(claim)
        if (found := self.decided.pop(folded, None)) is not None:
            return found
        for key in list(self.decided):
            rest = key.removeprefix("it ")
            if rest != key and folded.endswith(" " + rest):
                return self.decided.pop(key)
        return None

    async def alone(self, claim: str) -> TierOutcome:
        """The fast tier's outcome for ``claim``, which the window's answer gave no usable verdict (its item
        could not be read, it had none, or the answer could not be read at all): asked once more, alone, over
        the passages ranked for the claim and what its sentence is about (guard_engine/fast.py's
        ``decide_fast``), in the claim's own check, so within its deadline. The trace says which claim and why."""
        ctx, about, why = self.ctx, self._about_of(claim), self._why(claim)
        mode = ctx.options.evidence_mode
        settings = tier_settings(ctx.settings, method=ctx.options.method, tier="fast", mode=mode, scope=ctx.scope)
        resources = tier_resources(ctx.resources, settings)
        count_reply("guard_window", "reasked", AGENT)
        with span("claim asked alone", "guard_window_reask", claim=claim[:300], why=why, about=about[:300]), \
                given_evidence(ctx.passages if ctx.passages else None), span("tier fast", "guard_tier", tier="fast"):
            fast = await decide_fast(claim, resources, mode, about)
            return await fast_outcome(claim, fast, resources, stance_step=ctx.settings.guard.stance_step)

    def _about_of(self, claim: str) -> str:
        """What the sentence ``claim`` is drawn from is about (the one sharing most of its words), else the
        question."""
        words = {w for w in _words(claim) if len(w) > 3}
        shared, about = max(((len(words & own), about) for own, about in self.about), default=(0, ""),
                            key=lambda pair: pair[0])
        return about if shared else (self.question or "")

    def _why(self, claim: str) -> str:
        """Why ``claim`` has no verdict from the window's answer (:data:`NO_ITEM` and the others)."""
        if (found := self.unusable.pop(_folded(claim), None)) is not None:
            return found
        words = _words(claim)
        _, why = max(((len(words & own), why) for own, why in self.windows), default=(0, None),
                     key=lambda pair: pair[0])
        return why or NO_ITEM


def excerpt(text: str, wanted: set[str], chars: int) -> str:
    """``text`` cut to about ``chars`` characters: its sentences that share most words with ``wanted`` (words of
    four letters or more), in the passage's own order; the whole text when it is short enough."""
    if len(text) <= chars:
        return text
    sentences = [s for s in _SENTENCE_END.split(text) if s.strip()]
    keys = {w for w in wanted if len(w) > 3}
    ranked = sorted(range(len(sentences)), key=lambda i: (-len(keys & _words(sentences[i])), i))
    kept: set[int] = set()
    used = 0
    for i in ranked:
        if kept and used + len(sentences[i]) + 1 > chars:
            continue
        kept.add(i)
        used += len(sentences[i]) + 1
    return " ".join(sentences[i] for i in sorted(kept))[:chars]


def _correction(item: dict[str, Any]) -> str | None:
    """The correction an item proposes, or None: none written, or the prompt's example copied."""
    sentence = item.get("correction")
    if not isinstance(sentence, str) or not sentence.strip():
        return None
    if _words(sentence) == _words(EXAMPLE_CORRECTION):
        return None  # the example's, not a reading of the quote: the corrector is asked instead
    return " ".join(sentence.split())
