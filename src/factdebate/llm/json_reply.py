"""Reading JSON out of a model's reply: the one reader every parser of model replies uses.

llama.cpp's JSON-schema grammars admit raw control characters inside strings, which the standard library's
strict mode rejects, turning valid constrained replies into re-asks: so they are read with ``strict=False``.
Plain ``json`` only, never ``eval``; what is not JSON is ``None`` (or ``ValueError``) and the caller re-asks."""

from __future__ import annotations

import json
from typing import Any

_DECODER = json.JSONDecoder(strict=False)


def loads(text: str) -> Any:
    """``json.loads`` that accepts control characters inside strings; raises ``json.JSONDecodeError``."""
    return json.loads(text, strict=False)


def first_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``: the reply itself, or one inside markdown fences or prose."""
    start = text.find("{")
    while start >= 0:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def enclosed(text: str, opening: str = "{") -> Any:
    """The JSON value from the first ``opening`` bracket (``"{["``: either) to the last closing one; raises
    ``json.JSONDecodeError``, with a message the re-ask can quote, when there is none or it is malformed."""
    closing = "".join({"{": "}", "[": "]"}[c] for c in opening)
    start = min((i for i in (text.find(c) for c in opening) if i >= 0), default=-1)
    end = max(text.rfind(c) for c in closing)
    if start < 0 or end <= start:
        raise json.JSONDecodeError("no JSON value found", text, 0)
    return loads(text[start:end + 1])
