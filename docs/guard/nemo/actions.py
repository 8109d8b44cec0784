"""A NeMo Guardrails action: factdebate checks the bot's answer in its conversation, reading the chunks NeMo
retrieved for it.

Put this file beside config.yml (NeMo loads actions.py from the config folder). It reads the service's key
from FACTDEBATE_API_KEYS, the variable the service reads its keys from (the first, when it holds several),
and, when the service is elsewhere, FACTDEBATE_URL."""

from __future__ import annotations

import os
from typing import Any

import httpx
from nemoguardrails.actions import action

OPTIONS: dict[str, Any] = {"policy": "flag", "tier": "fast", "deadline_s": 20, "on_unchecked": "pass"}


def conversation(events: list[dict[str, Any]], answer: str) -> list[dict[str, Any]]:
    """The chat before the answer, as OpenAI-style messages, from the events NeMo passes an action: the
    system prompt, each user message (as the input rails left it) and each answer the bot gave. A follow-up
    ("And when was it finished?") is checked with the subject it refers to."""
    messages: list[dict[str, Any]] = []
    heard = False  # the last message came from a user utterance whose UserMessage event has not come yet
    for event in events:
        kind = event.get("type")
        if kind == "UtteranceUserActionFinished":
            messages.append({"role": "user", "content": event.get("final_transcript") or ""})
            heard = True
        elif kind == "UserMessage":
            if heard:
                messages.pop()  # the same message, as the input rails left it
            messages.append({"role": "user", "content": event.get("text") or ""})
            heard = False
        elif kind == "StartUtteranceBotAction":
            messages.append({"role": "assistant", "content": event.get("script") or ""})
            heard = False
        elif kind == "SystemMessage":
            messages.append({"role": "system", "content": event.get("content") or ""})
    if messages and messages[-1]["role"] == "assistant" and messages[-1]["content"] == answer:
        messages.pop()  # the answer itself: it is the text checked
    return [m for m in messages if m["content"]]


@action(name="factdebate_check", is_system_action=True)
async def factdebate_check(context: dict[str, Any] | None = None,
                           events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    context = context or {}
    answer = context.get("bot_message") or ""
    chunks = context.get("relevant_chunks") or ""
    evidence = [{"title": "retrieved for this answer", "text": chunks}] if chunks.strip() else []
    body = {"text": answer, "question": context.get("user_message") or None,
            "messages": conversation(events or [], answer), "factdebate": {**OPTIONS, "evidence": evidence}}
    url = os.environ.get("FACTDEBATE_URL", "http://127.0.0.1:8000").rstrip("/")
    key = os.environ.get("FACTDEBATE_API_KEYS", "").split(",")[0].strip()
    if not key:
        raise RuntimeError("factdebate_check: set FACTDEBATE_API_KEYS to one of the factdebate service's keys")
    async with httpx.AsyncClient(timeout=OPTIONS["deadline_s"] + 30) as client:
        reply = await client.post(f"{url}/v1/guard/check", json=body, headers={"Authorization": f"Bearer {key}"})
    reply.raise_for_status()  # no check, no answer: NeMo stops the flow with the error
    found: dict[str, Any] = reply.json()  # the guard's answer: text, action_taken, claims
    return found
