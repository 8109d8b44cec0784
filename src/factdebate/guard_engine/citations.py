"""Which of the passages a debate read its verdict cites, so a claim's evidence is called cited only when it is.
A passage is cited when a deciding answer (the final judges', the last round's) names it by its number in that
turn's evidence ("[2]"), quotes twelve characters of it, or repeats six of its words in a row."""

from __future__ import annotations

import re
from collections.abc import Sequence

from factdebate.core.types import Document, Verdict

_NUMBERED = re.compile(r"\[(\d{1,2})\]|\b(?:document|doc|passage|source|evidence)\s*#?\[?(\d{1,2})\]?", re.I)
_QUOTED = re.compile(r"[\"“]([^\"”]{12,300})[\"”]")
_WORD = re.compile(r"\w+")
RUN = 6  # words in a row that a passage and an answer share


def folded(text: str) -> str:
    """``text`` in lower case with its runs of white space as one space: how claims and quotes are compared."""
    return " ".join(text.lower().split())


def _runs(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i:i + RUN]) for i in range(len(words) - RUN + 1)}


def cited_texts(verdict: Verdict, read: Sequence[Document]) -> frozenset[str]:
    """The texts of the passages of ``read`` that the verdict's deciding answers cite."""
    answers: list[tuple[str, list[Document]]] = [(j.response, []) for j in verdict.judges]
    if verdict.rounds:
        answers += [(turn.response or "", list(turn.evidence)) for turn in verdict.rounds[-1].turns]
    cited: set[str] = set()
    for text, own in answers:
        if not text:
            continue
        for match in _NUMBERED.finditer(text):
            number = int(match.group(1) or match.group(2))
            if 1 <= number <= len(own):
                cited.add(own[number - 1].text)
        phrases = [folded(m) for m in _QUOTED.findall(text)]
        runs = _runs(text)
        for doc in read:
            flat = folded(doc.text)
            if any(p in flat for p in phrases) or runs & _runs(doc.text):
                cited.add(doc.text)
    return frozenset(t for t in cited if t.strip())
