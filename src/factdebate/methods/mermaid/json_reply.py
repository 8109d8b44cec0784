"""Reading one JSON object out of a model's reply: the object itself, or the first one inside markdown
fences or prose. Plain ``json`` only (never ``eval``); anything else is ``None`` and the caller re-asks."""

from __future__ import annotations

import json
from typing import Any


def first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start >= 0:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None
