"""The text of each model call, for whoever asks to see why a debate went as it did.

Off by default: a trace is a compact record (a claim's prompts run to tens of kilobytes, and a batch trace
holds thousands of claims). Inside :func:`transcribing` (the service's stream with ``"transcript": true``,
``factdebate verify --trace-text``) every ``llm_call`` event also carries ``messages`` (role and content, as
sent) and ``reply`` (the model's text, then any tool calls it asked for). Each text is cut after ``chars``
characters with a marker that says so, so one event stays bounded whatever a prompt quotes. A context
variable, not a setting: it changes what the caller sees, never what is asked, so neither the cache key nor
the golden records depend on it, and each request (each asyncio task tree) has its own.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from factdebate.llm.base import Completion, Message
from factdebate.util.redact import redact_text

# Longest text of one message or reply in a transcript: a long prompt quotes several passages, and the page
# folds each text, so this keeps nearly every prompt whole while bounding a pathological one.
DEFAULT_CHARS = 12_000

_chars: ContextVar[int] = ContextVar("factdebate_transcript_chars", default=0)


@contextlib.contextmanager
def transcribing(chars: int = DEFAULT_CHARS) -> Iterator[None]:
    """The model calls made inside (and by the tasks started inside) carry their text in ``llm_call``."""
    if chars < 1:
        raise ValueError("a transcript keeps at least 1 character of each text")
    token = _chars.set(chars)
    try:
        yield
    finally:
        _chars.reset(token)


def transcript_chars() -> int:
    """The longest text kept per message or reply; 0 when no transcript was asked for."""
    return _chars.get()


def cut_marker(chars: int, total: int) -> str:
    return f"\n[… cut after {chars} of {total} characters]"


def clip(text: str, chars: int) -> str:
    """``text``, or its first ``chars`` characters and a marker saying how long it was."""
    return text if len(text) <= chars else text[:chars] + cut_marker(chars, len(text))


def reply_text(completion: Completion) -> str:
    """What the model answered: its text, then each tool call it asked for, one a line."""
    calls = [f"→ {call.name}({json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)})"
             for call in completion.tool_calls]
    return "\n".join([completion.text, *calls]) if calls else completion.text


def call_text(messages: list[Message], completion: Completion, chars: int) -> dict[str, Any]:
    """The ``messages`` and ``reply`` fields of one ``llm_call``. URLs are redacted as everywhere in a trace
    (a passage may quote a link with a key in it); no API key is ever part of a message."""
    return {"messages": [{"role": m["role"], "content": clip(redact_text(m["content"]), chars)} for m in messages],
            "reply": clip(redact_text(reply_text(completion)), chars)}
