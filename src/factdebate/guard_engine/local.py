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
    """The guard's options (``GUARD_OPTIONS`` of ``options``) and the caller's host over the rest. A Python
    caller's ``deadline_s`` is the deadline, past ``guard.max_deadline_s`` too: that cap keeps a service's callers
    from holding its checkers, and in its own process the caller is the operator (a 300 s deadline was cut to
    120 s without a word, and the check it asked for time to finish came back unchecked). Past the setting's own
    bound it is an error, as the setting is."""
    chosen = {name: options.pop(name) for name in list(options) if name in GUARD_OPTIONS}
    guard_options = GuardOptions.model_validate(chosen)
    settings = settings_from(options, config_file)
    asked = guard_options.deadline_s
    bound = type(settings.guard).model_fields["max_deadline_s"].metadata
    most = next((float(m.le) for m in bound if getattr(m, "le", None) is not None), None)
    if asked is not None and most is not None and asked > most:
        raise InputError(f"deadline_s must be at most {most:g} seconds, got {asked:g}")
    if asked is not None and asked > settings.guard.max_deadline_s:
        guard = type(settings.guard).model_validate({**settings.guard.model_dump(), "max_deadline_s": asked})
        settings = settings.model_copy(update={"guard": guard})
    return guard_options, LocalHost(settings, lambda s: session(s, backends, on_event, trace), reviser=reviser)
