"""The check-worthiness gate: every sentence of a chat reply, with why it is left out when it states nothing
that could be checked (a question, a greeting, an instruction, an opinion, no content); a question answered
"Yes." or "No." is a statement. The rules are
response_level/worthiness.py's, which a response check reads too."""

from __future__ import annotations

from dataclasses import dataclass

from factdebate.core.types import Span
from factdebate.response_level.worthiness import answers, gated, reason_to_skip

__all__ = ["Sentence", "answers", "gate", "reason_to_skip"]


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str
    reason: str | None  # None: check-worthy; else why it is left out

    @property
    def span(self) -> Span:
        return Span(start=self.start, end=self.end)


def gate(text: str, *, asked: bool = False) -> list[Sentence]:
    """Every sentence of ``text`` with its offsets and whether it is check-worthy (response_level/worthiness.py's
    :func:`gated`, which a response check reads too). A question followed by its yes or no is one statement,
    check-worthy (its extractor reads both together). ``asked``: the reply answers a person's message, so a
    short answer is a statement in its context, never "no content"."""
    return [Sentence(start, end, text[start:end], reason) for start, end, reason in gated(text, asked=asked)]
