"""Reading JSON out of a model's reply: the one reader every parser of model replies uses.

llama.cpp's JSON-schema grammars admit raw control characters inside strings, which the standard library's
strict mode rejects, turning valid constrained replies into re-asks: so they are read with ``strict=False``.
Plain ``json`` only, never ``eval``; what is not JSON is ``None`` (or ``ValueError``) and the caller re-asks.

A reply nested past :data:`MAX_REPLY_NESTING` levels is unreadable like any malformed one: Python's reader
raises ``RecursionError`` about a thousand levels down (sooner the deeper the stack it is called from), and a
value read just short of that fails in whatever walks it next (a copy, a trace, ``str``). That error is the
model's, never the caller's request nested too deeply, so it never leaves this module."""

from __future__ import annotations

import json
from typing import Any

from factdebate.util.textsafe import nesting_depth

_DECODER = json.JSONDecoder(strict=False)
# Levels of lists and objects a reply may nest: every schema a model is asked for nests a handful.
MAX_REPLY_NESTING = 64
TOO_DEEP = f"the answer nests lists or objects more than {MAX_REPLY_NESTING} levels deep"


class ReplyTooDeep(json.JSONDecodeError):
    """A reply nested too deeply to be read: a ``JSONDecodeError`` (so a ``ValueError``) like any other."""


def _bounded(value: Any, text: str) -> Any:
    if nesting_depth(value, MAX_REPLY_NESTING + 1) > MAX_REPLY_NESTING:
        raise ReplyTooDeep(TOO_DEEP, text, 0)
    return value


def loads(text: str) -> Any:
    """``json.loads`` that accepts control characters inside strings; raises ``json.JSONDecodeError``, also
    (:class:`ReplyTooDeep`) for a reply nested past :data:`MAX_REPLY_NESTING` levels."""
    try:
        value = json.loads(text, strict=False)
    except RecursionError:
        raise ReplyTooDeep(TOO_DEEP, text, 0) from None
    return _bounded(value, text)


def first_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``: the reply itself, or one inside markdown fences or prose; ``None``
    also when the first object nests too deeply to be read (an object inside it is no answer either)."""
    start = text.find("{")
    while start >= 0:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except RecursionError:
            return None
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return None if nesting_depth(value, MAX_REPLY_NESTING + 1) > MAX_REPLY_NESTING else value
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
