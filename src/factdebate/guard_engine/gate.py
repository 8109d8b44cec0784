"""The check-worthiness gate: every sentence of a chat reply, with why it is left out when it states nothing
that could be checked; the rules are response_level/worthiness.py's. A heading the gate leaves out is still
read with the list items and the sentence under it, so a claim can be placed in it; :func:`reads_on` and
:func:`ends_reach` say how far, for ``policy: hold`` (guard_engine/hold.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from factdebate.core.types import Span
from factdebate.response_level.structured import json_line, punctuation, structured
from factdebate.response_level.worthiness import FENCE, answers, gated, list_item, reason_to_skip, sources_after

__all__ = ["Sentence", "answers", "ends_reach", "fenced_after", "gate", "reads_on", "reason_to_skip", "runs_on",
           "sources_after_sentences"]



@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str
    reason: str | None  # None: check-worthy; else why it is left out

    @property
    def span(self) -> Span:
        return Span(start=self.start, end=self.end)


def gate(text: str, *, asked: bool = False, fenced: bool = False, sources: bool = False,
         before: str | None = None) -> list[Sentence]:
    """Every sentence of ``text`` with its offsets and whether it is check-worthy. A question followed by its
    yes or no is one statement. ``asked``: the reply answers a person's message, so a short answer is a
    statement, never "no content". In a fenced code block a ``#`` line is a comment judged as any sentence,
    not a heading; ``fenced``: ``text`` starts inside such a block (:func:`fenced_after`). ``sources``: it
    starts inside a block of references, whose items state nothing (:func:`sources_after_sentences`), after
    the whitespace ``before`` (None: not known)."""
    return [Sentence(start, end, text[start:end], reason)
            for start, end, reason in gated(text, asked=asked, fenced=fenced, sources=sources, before=before)]


def sources_after_sentences(sentences: Iterable[Sentence], sources: bool = False) -> bool:
    """Whether the text after ``sentences`` (as :func:`gate` gave them) is inside a block of references."""
    return sources_after(((s.text, s.reason) for s in sentences), sources)


def runs_on(sentence: Sentence, gap: str) -> bool:
    """Whether ``sentence``, the last of a streamed part, is prose wrapped before its end that goes on past
    the line break ``gap``: the stream waits, never checking the halves apart (headings, items, code do not)."""
    text = sentence.text.rstrip()
    if "\n" not in gap or "\n\n" in gap.replace("\r", "") or not text or sentence.reason in ("heading", "code"):
        return False
    return (text[-1].isalnum() or text[-1] == ",") and not list_item(text) and not structured(text)


def fenced_after(sentences: Iterable[str], fenced: bool = False) -> bool:
    """Whether the text after ``sentences`` (cut as :func:`gate` cuts them) is inside a fenced code block."""
    for sentence in sentences:
        if FENCE.match(sentence):
            fenced = not fenced
    return fenced


def _item(sentence: Sentence) -> bool:
    """A list item or JSON member, which the extractor reads under the heading or key above it."""
    return sentence.reason != "heading" and (list_item(sentence.text) or json_line(sentence.text)
                                             or punctuation(sentence.text))


def reads_on(pieces: Sequence[Sentence]) -> bool:
    """Whether a sentence after ``pieces`` may be read under a heading among them (followed by list items only,
    or nothing): a little wider than the extractor's reach, which only makes ``hold`` wait for one more."""
    reach = False
    for sentence in pieces:
        reach = sentence.reason == "heading" or (reach and _item(sentence))
    return reach


def ends_reach(pieces: Sequence[Sentence]) -> bool:
    """Whether ``pieces``, right after a heading's reach (:func:`reads_on`), end it: one is no list item."""
    return any(not _item(sentence) for sentence in pieces)
