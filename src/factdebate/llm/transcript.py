"""The text of each model call, for whoever asks to see why a debate went as it did.

Off by default: a trace is a compact record. Inside :func:`transcribing` (``verify --trace-text``), or in a run
one of whose sinks asks for it (its ``transcript``: the characters of each text; the service's stream of a request
with ``"transcript": true``), every ``llm_call`` event also carries ``messages`` and ``reply``, each text cut after
``chars`` characters and one call's together after ``call_chars``, with a marker, so one event stays bounded.
Not a setting: it changes what the caller sees, never what is asked, so no cache key depends on it, and each
request has its own."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any

from factdebate.llm.base import Completion, Message
from factdebate.util.context import bound
from factdebate.util.scrub import redact_text

# Longest text of one message or reply: nearly every prompt whole, a pathological one bounded.
DEFAULT_CHARS = 12_000
# Most characters of one call's texts together: a ReAct agent's tenth step resends the nine before it.
DEFAULT_CALL_CHARS = 48_000
# A message cut to fewer characters than this to fit the total is left out instead: a stub says nothing.
_SHORTEST_PART = 200

_bounds: ContextVar[tuple[int, int]] = ContextVar("factdebate_transcript_bounds", default=(0, 0))


def transcribing(chars: int = DEFAULT_CHARS,
                 call_chars: int = DEFAULT_CALL_CHARS) -> AbstractContextManager[tuple[int, int]]:
    """The model calls made inside (and by the tasks started inside) carry their text in ``llm_call``."""
    if chars < 1:
        raise ValueError("a transcript keeps at least 1 character of each text")
    if call_chars < chars:
        raise ValueError("a transcript keeps at least as many characters per call as per text")
    return bound(_bounds, (chars, call_chars))


def transcript_chars() -> int:
    """The longest text kept per message or reply; 0 when no transcript was asked for."""
    return _bounds.get()[0]


def transcript_call_chars() -> int:
    """The most characters kept of one call's texts together; 0 when no transcript was asked for."""
    return _bounds.get()[1]


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


def call_text(messages: list[Message], completion: Completion, chars: int,
              call_chars: int | None = None) -> dict[str, Any]:
    """The ``messages`` and ``reply`` fields of one ``llm_call``, URLs redacted. Over ``call_chars`` the reply is
    kept first, then the first message and the latest ones; those cut (``messages_cut``) sit after the first."""
    reply = clip(redact_text(reply_text(completion)), chars)
    texts = [redact_text(m["content"]) for m in messages]
    kept = [min(len(t), chars) for t in texts]
    budget = max(0, (call_chars or 0) - min(len(reply), chars))
    if call_chars is None or sum(kept) <= budget:
        return {"messages": [{"role": m["role"], "content": clip(t, chars)}
                             for m, t in zip(messages, texts, strict=True)],
                "reply": reply}
    room: dict[int, int] = {}
    for index in [0, *range(len(texts) - 1, 0, -1)]:  # the instructions, then the newest messages back
        share = min(kept[index], budget)
        if share < min(kept[index], _SHORTEST_PART):
            break  # no room for a useful part of this one: it and the older ones are left out
        room[index] = share
        budget -= share
    out = [{"role": m["role"], "content": clip(texts[i], room[i])} for i, m in enumerate(messages) if i in room]
    cut = len(messages) - len(out)
    return {"messages": out, "reply": reply, **({"messages_cut": cut} if cut else {})}
