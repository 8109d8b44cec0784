"""Web addresses in a text: their words never count as a name or a fact, in the gate, grounding or placing."""

from __future__ import annotations

import re

URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+|<[a-z]+://[^>]*>", re.I)


def without_urls(text: str) -> str:
    """``text`` with each web address replaced by a space."""
    return URL.sub(" ", text)
