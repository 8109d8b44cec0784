"""A Python caller's check (api.py's ``guard`` and kin): its input read as every door reads one, and its host,
a :class:`~factdebate.guard_engine.call.LocalHost` over the caller's settings and a session of resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factdebate.core.runtime import EventSink
from factdebate.guard_engine.call import LocalHost, Reply
from factdebate.guard_engine.types import GuardOptions, Reviser
from factdebate.llm.base import Backend
from factdebate.run.claim import session
from factdebate.settings.load import settings_from
from factdebate.util.errors import InputError

GUARD_OPTIONS = frozenset(GuardOptions.model_fields)


def conversation_of(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Reply]:
    """(the conversation before the last assistant message, that message as the reply to check)."""
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise InputError("messages must be a list of {role, content} objects")
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
    if last is None:
        raise InputError("the conversation has no assistant message to check")
    return messages[:last], Reply.of_message(messages[last])


def local_host(options: dict[str, Any], config_file: str | Path | None, trace: str | Path | None,
               on_event: EventSink | None, backends: dict[str, Backend] | None,
               reviser: Reviser | None = None) -> tuple[GuardOptions, LocalHost]:
    """The guard's options (``GUARD_OPTIONS`` of ``options``) and the caller's host over the rest."""
    chosen = {name: options.pop(name) for name in list(options) if name in GUARD_OPTIONS}
    guard_options = GuardOptions.model_validate(chosen)
    settings = settings_from(options, config_file)
    return guard_options, LocalHost(settings, lambda s: session(s, backends, on_event, trace), reviser=reviser)
