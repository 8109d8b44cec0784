"""The guard as a library call: a chat reply (its text, or the whole conversation) in, a
:class:`~factdebate.guard.types.GuardResult` out. ``factdebate.guard``/``aguard`` (api.py) are these."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from factdebate.core.errors import InputError
from factdebate.core.runtime import EventSink
from factdebate.guard.check import check_text
from factdebate.guard.messages import person_question
from factdebate.guard.options import evidence_from_messages, resolve_options, text_of
from factdebate.guard.policy import no_text_result
from factdebate.guard.types import GuardEvidence, GuardOptions, GuardResult, Reviser
from factdebate.llm.base import Backend
from factdebate.run.claim import session
from factdebate.settings.load import settings_from

GUARD_OPTIONS = frozenset(GuardOptions.model_fields)


def reply_of(messages: list[dict[str, Any]]) -> tuple[str, str | None, list[GuardEvidence], list[str]]:
    """(the last assistant message's text, the user message it answers, the conversation's tool results as
    evidence, what of the reply is not checked: its tool calls and non-text parts)."""
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise InputError("messages must be a list of {role, content} objects")
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
    if last is None:
        raise InputError("the conversation has no assistant message to check")
    reply = messages[last]
    question = person_question(messages[:last])
    passed: list[str] = []
    if reply.get("tool_calls"):
        passed.append(f"{len(reply['tool_calls'])} tool call(s) in the reply (not checked)")
    content = reply.get("content")
    if isinstance(content, list):
        other = sorted({str(p.get("type")) for p in content if isinstance(p, dict) and p.get("type") != "text"})
        if other:
            passed.append(f"non-text content ({', '.join(other)}) in the reply (not checked)")
    return text_of(content), question, evidence_from_messages(messages[:last]), passed


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
    chosen = {name: options.pop(name) for name in list(options) if name in GUARD_OPTIONS}
    passed: list[str] = []
    if isinstance(reply, list):
        text, asked, from_tools, passed = reply_of(reply)
        question = question if question is not None else asked
    else:
        text, from_tools = reply, []
    guard_options = GuardOptions.model_validate(chosen)
    if from_tools:  # the conversation's own: ranked per claim past the evidence limits, never refused
        guard_options = guard_options.model_copy()
        guard_options._conversation = from_tools
    settings = settings_from(options, config_file)
    if isinstance(reply, list) and not text.strip():
        # No text to check: a tool call alone passes; any other reply without text is a degraded check.
        last = next(m for m in reversed(reply) if m.get("role") == "assistant")
        called = bool(last.get("tool_calls") or last.get("function_call"))
        return no_text_result(resolve_options(guard_options, settings), passed, called=called)
    async with session(settings, backends, on_event, trace) as (resources, sinks):
        result = await check_text(text, settings, resources, options=guard_options, question=question, sinks=sinks,
                                  reviser=reviser)
    return result.model_copy(update={"passed_through": [*result.passed_through, *passed]}) if passed else result


def guard(reply: str | list[dict[str, Any]], **options: Any) -> GuardResult:
    """Synchronous :func:`aguard`."""
    return asyncio.run(aguard(reply, **options))
