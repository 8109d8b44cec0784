"""Web addresses in a text: what a reader follows, not what the text states. Their words never count as a
name or a fact ("https://en.wikipedia.org/wiki/Eiffel_Tower" names no tower), in the gate,
the grounding rules and the placing of claims alike."""

from __future__ import annotations

import re

URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+|<[a-z]+://[^>]*>", re.I)


def without_urls(text: str) -> str:
    """``text`` with each web address replaced by a space."""
    return URL.sub(" ", text)
