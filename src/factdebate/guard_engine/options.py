"""A request's guard options with the operator's defaults and caps applied, and a conversation's own evidence.

What a caller sends in ``evidence`` is held to ``guard.max_evidence_items`` and ``guard.max_evidence_chars``
(over them: a 422); the conversation's own tool results are never refused, since refusing a long agent
session broke every later turn: they are ranked per claim and trimmed to what is left (guard_engine/session.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from factdebate.guard_engine.messages import text_of, tool_evidence
from factdebate.guard_engine.types import GuardEvidence, GuardOptions
from factdebate.guard_engine.window import turns_of

__all__ = ["evidence_from_messages", "text_of", "with_conversation"]


def evidence_from_messages(messages: list[dict[str, Any]]) -> list[GuardEvidence]:
    """The conversation's non-empty tool results as given evidence, titled by guard_engine/messages.py."""
    return tool_evidence(messages)


def with_conversation(options: GuardOptions, messages: Sequence[Any]) -> GuardOptions:
    """``options`` with the conversation's tool results as evidence and its turns for the extractor; every
    door that has the conversation passes it here."""
    found = tool_evidence(messages)
    turns = turns_of(messages)
    if not found and not turns:
        return options
    out = options.model_copy()
    out._conversation = [*options._conversation, *found]
    out._dialogue = turns
    return out
