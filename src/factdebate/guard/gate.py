"""The check-worthiness gate: every sentence of a chat reply, with why it is left out when it states nothing
that could be checked (a question, a greeting, an instruction, an opinion, no content); a question answered
"Yes." or "No." is a statement. The rules are
response_level/worthiness.py's, which a response check reads too."""

from __future__ import annotations

import re
from dataclasses import dataclass

from factdebate.core.types import Span
from factdebate.response_level.spans import sentences
from factdebate.response_level.worthiness import reason_to_skip

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


# An answer to the question before it: "Is the Eiffel Tower in Berlin? Yes." states that it is.
_ANSWER = re.compile(r"^\W*(?:yes|no|yep|nope|correct|right|exactly|indeed|absolutely|definitely|of course|"
                     r"that'?s (?:right|correct))\b", re.I)


def answers(question: str, reply: str) -> bool:
    """Whether ``reply`` answers the question ``question`` (yes or no, possibly said more)."""
    return question.rstrip().endswith("?") and bool(_ANSWER.match(reply))


def gate(text: str) -> list[Sentence]:
    """Every sentence of ``text`` with its offsets and whether it is check-worthy. A question followed by its
    yes or no is one statement, check-worthy (its extractor reads both together)."""
    out: list[Sentence] = []
    for start, end in sentences(text):
        if out and out[-1].reason == "question" and answers(out[-1].text, text[start:end]):
            first = out.pop()
            out.append(Sentence(first.start, end, text[first.start:end], None))
            continue
        out.append(Sentence(start, end, text[start:end], reason_to_skip(text[start:end])))
    return out
