"""The guard as a library call: a chat reply (its text, or the whole conversation) in, a
:class:`~factdebate.guard.types.GuardResult` out; or a reply's deltas in as it streams, what the reader may see
out; or a long answer in, its claims checked with the full method, a ``ResponseVerdict`` out.
``factdebate.aguard``/``guard``/``aguard_stream`` and ``acheck_response`` (api.py) are these: each reads its
input and makes the guard's one call (guard/call.py) with a :class:`~factdebate.guard.call.LocalHost` (the
caller's settings, a session of resources, nothing admitted or kept)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator
from pathlib import Path
from typing import Any

from factdebate.core.errors import InputError
from factdebate.core.runtime import EventSink
from factdebate.core.types import ResponseVerdict
from factdebate.guard.call import CheckCall, LocalHost, Reply, begin, check_replies, check_response, finish
from factdebate.guard.stream_policy import StreamOut, stream_outs
from factdebate.guard.types import GuardOptions, GuardResult, Reviser
from factdebate.llm.base import Backend
from factdebate.run.claim import session
from factdebate.run.response import validate_question, validate_response
from factdebate.settings.load import settings_from

GUARD_OPTIONS = frozenset(GuardOptions.model_fields)


def conversation_of(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Reply]:
    """(the conversation before the last assistant message, that message as the reply to check)."""
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise InputError("messages must be a list of {role, content} objects")
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
    if last is None:
        raise InputError("the conversation has no assistant message to check")
    return messages[:last], Reply.of_message(messages[last])


def _host(options: dict[str, Any], config_file: str | Path | None, trace: str | Path | None,
          on_event: EventSink | None, backends: dict[str, Backend] | None,
          reviser: Reviser | None) -> tuple[GuardOptions, LocalHost]:
    """The guard's options (``GUARD_OPTIONS`` of ``options``) and the caller's host (the rest: settings)."""
    chosen = {name: options.pop(name) for name in list(options) if name in GUARD_OPTIONS}
    guard_options = GuardOptions.model_validate(chosen)
    settings = settings_from(options, config_file)
    return guard_options, LocalHost(settings, lambda s: session(s, backends, on_event, trace), reviser=reviser)


async def aguard(reply: str | list[dict[str, Any]], *, question: str | None = None,
                 config_file: str | Path | None = None, trace: str | Path | None = None,
                 on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
                 reviser: Reviser | None = None, **options: Any) -> GuardResult:
    """Check a chat reply: its text, or the conversation (a list of OpenAI-style messages, whose last
    assistant message is checked, whose ``role: "tool"`` messages are given evidence and whose person's last
    question is the question: guard/messages.py). Guard options (``policy``, ``deadline_s``, ``tier``,
    ``method``, ``evidence``, ``evidence_mode``, ``conversation_id``, ``on_unchecked``) are
    :class:`GuardOptions`; every other keyword
    is a setting as for ``verify`` (``llm=``, ``search=``...). ``reviser`` revises the answer for ``rewrite``.

    Example::

        import factdebate as fd
        result = fd.guard("The Eiffel Tower is in Rome.", tier="fast", deadline_s=10, policy="flag",
                          evidence=[{"title": "Guide", "text": "The Eiffel Tower is in Paris."}])
        for claim in result.claims:
            print(claim.claim, claim.label, claim.status, claim.span, claim.correction)
        print(result.text)  # the reply as the policy leaves it
    """
    messages, one = conversation_of(reply) if isinstance(reply, list) else ([], Reply(reply))
    guard_options, host = _host(options, config_file, trace, on_event, backends, reviser)
    [result] = await check_replies(CheckCall(messages, guard_options, question), [one], host)
    return result


async def aguard_stream(deltas: AsyncIterable[str], *, messages: list[dict[str, Any]] | None = None,
                        question: str | None = None, config_file: str | Path | None = None,
                        trace: str | Path | None = None, on_event: EventSink | None = None,
                        backends: dict[str, Backend] | None = None, reviser: Reviser | None = None,
                        **options: Any) -> AsyncIterator[StreamOut]:
    """Check a reply while it streams (``deltas``: its text as it arrives; ``messages``: the conversation before
    it) and yield what the policy lets the reader see now (``kind == "text"``), each claim's verdict as it is
    decided (``"claim"``) and the result last (``"result"``). The same options and the same one call as
    :func:`aguard`; leaving early (closing the generator) stops the check."""
    guard_options, host = _host(options, config_file, trace, on_event, backends, reviser)
    begun = await begin(CheckCall(messages or [], guard_options, question), host)
    claims = 0
    try:
        async with host.session(begun.settings) as (resources, sinks):
            async for out in stream_outs(begun, deltas, resources, sinks):
                if out.result is not None:
                    claims = len(out.result.claims)
                    out = StreamOut("result", result=await finish(begun, out.result, None, True))
                yield out
    finally:
        begun.admission.charge(claims)
        begun.admission.release()


async def acheck_response(response: str, *, question: str | None = None, config_file: str | Path | None = None,
                          trace: str | Path | None = None, on_event: EventSink | None = None,
                          backends: dict[str, Backend] | None = None, **options: Any) -> ResponseVerdict:
    """A long answer checked claim by claim with the full method (``factdebate.check_response`` without a
    tier): the caller's settings from ``options`` (the CLI's), the answer and question checked before anything
    is built, then the one call (guard/call.py's ``check_response``) in a session of the caller's."""
    settings = settings_from(options, config_file)
    text = validate_response(response, settings)
    asked = validate_question(question, settings)
    host = LocalHost(settings, lambda s: session(s, backends, on_event, trace))
    return await check_response(CheckCall((), GuardOptions(), asked), text, host)


def guard(reply: str | list[dict[str, Any]], **options: Any) -> GuardResult:
    """Synchronous :func:`aguard`."""
    return asyncio.run(aguard(reply, **options))
