"""The one cleaning every model-written search query gets before it reaches a tool.

Small models write a query as a list item ("1. ...", "- ..."), in quotes, or as "Query: ...": only that
wrapping is taken off, and the model's text is kept as ``written`` for the trace. Empty once cleaned is no query."""

from __future__ import annotations

import re
from dataclasses import dataclass

# "1." / "1)" / "(1)" / "1:" or a bullet, followed by a space or nothing (so "3.14" and "1984 Olympics" stay).
_NUMBERING = re.compile(r"^(?:\(\d{1,3}\)|\d{1,3}[.):]|[-*•·–—+])(?:\s+|$)|^\(\d{1,3}\)")
# "Query:", "Search query:", "Query 2:", in any case, with markdown bold around the label.
_LABEL = re.compile(r"^\**\s*(?:search\s+)?query(?:\s*\d{1,3})?\s*\**\s*:\s*\**\s*", re.I)
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "`": "`", "«": "»", "„": "“"}


@dataclass(frozen=True)
class CleanQuery:
    """A query as searched (``text``) and, when cleaning changed it, what the model wrote (``written``)."""

    text: str
    written: str | None = None


def clean_query(text: str) -> CleanQuery:
    """``text`` without leading numbering or bullet, enclosing quotes and a "query:" label, in any nesting."""
    current = text.strip()
    while True:
        before = current
        current = _NUMBERING.sub("", current, count=1).strip()
        current = _LABEL.sub("", current, count=1).strip()
        current = _unquoted(current).strip()
        if current == before:
            break
    return CleanQuery(current, None if current == text.strip() else text)


def _unquoted(text: str) -> str:
    """The text inside one pair of quotes that wraps all of it ('"Hamlet" by "Shakespeare"' is not wrapped)."""
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        inner = text[1:-1]
        if text[0] not in inner and text[-1] not in inner:
            return inner
    return text
