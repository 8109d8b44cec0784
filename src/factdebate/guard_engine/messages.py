"""What the guard reads from a conversation (OpenAI-style messages): the person's question, and the tool
results the bot answered from, each titled by the call that made it.

**The person's question** is the last ``user`` message that is neither a tool result nor context an agent
framework injected: its text outside fenced and XML-style tagged blocks, skipped when nothing is left, when it
opens like an injected block or a tool result (``_INJECTED_OPENING``), or when its parts hold no text.

**Tool evidence** is titled by the tool's name and arguments (``get_weather({"city": "Paris"})``) from the
assistant's matching ``tool_calls``, else the tool message's ``name``, else ``tool result N``; never a call id."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from factdebate.guard_engine.types import MAX_TITLE_CHARS, GuardEvidence

_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)
_TAGGED = re.compile(r"<([A-Za-z][\w.:-]{0,63})(?:\s[^<>]*)?>.*?(?:</\1\s*>|\Z)", re.S)
_INJECTED_OPENING = re.compile(
    r"^\s*(?:system\s*:|\[system|context\s*:|\[context|conversation info|sender \(untrusted metadata\)|"
    r"observation\s*:|tool result|function result|\[tool)", re.I)


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts (others are not text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content
                         if isinstance(part, dict) and part.get("type") == "text" and part.get("text"))
    return ""


def own_words(text: str) -> str:
    """``text`` without its fenced and XML-tagged blocks, stripped: the words of the message's sender."""
    return _TAGGED.sub(" ", _FENCED.sub(" ", text)).strip()


def person_question(messages: Sequence[Any]) -> str | None:
    """The person's last question in ``messages`` (see the module docstring), or None."""
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        text = text_of(message.get("content"))
        if not text.strip() or _INJECTED_OPENING.match(text):
            continue
        if words := own_words(text):
            return words
    return None


def _call_titles(messages: Sequence[Any]) -> dict[str, str]:
    """Each tool call id of the assistant messages -> ``name(arguments)``."""
    titles: dict[str, str] = {}
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            if not isinstance(call, dict) or not isinstance(call.get("id"), str):
                continue
            function = call["function"] if isinstance(call.get("function"), dict) else {}
            if not function.get("name"):
                continue
            name = str(function["name"])
            arguments = function.get("arguments")
            arguments = " ".join(str(arguments).split()) if arguments not in (None, "", "{}") else ""
            titles[call["id"]] = f"{name}({arguments})"
    return titles


def tool_evidence(messages: Sequence[Any]) -> list[GuardEvidence]:
    """The conversation's non-empty tool results as given evidence, in order, titled as above."""
    titles = _call_titles(messages)
    found: list[GuardEvidence] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "tool":
            continue
        text = text_of(message.get("content")).strip()
        if not text:
            continue
        call_id = message.get("tool_call_id")
        title = titles.get(call_id) if isinstance(call_id, str) else None
        title = title or (str(message["name"]) if message.get("name") else f"tool result {len(found) + 1}")
        found.append(GuardEvidence(title=title[:MAX_TITLE_CHARS], text=text))
    return found
