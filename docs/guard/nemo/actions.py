"""A NeMo Guardrails action: factdebate checks the bot's answer, reading the chunks NeMo retrieved for it.

Put this file beside config.yml (NeMo loads actions.py from the config folder). It needs FACTDEBATE_API_KEY
(one of the service's keys) and, when the service is elsewhere, FACTDEBATE_URL."""

from __future__ import annotations

import os
from typing import Any

import httpx
from nemoguardrails.actions import action

OPTIONS = {"policy": "flag", "tier": "fast", "deadline_s": 20, "on_unchecked": "pass"}


@action(name="factdebate_check", is_system_action=True)
async def factdebate_check(context: dict[str, Any] | None = None) -> dict[str, Any]:
    context = context or {}
    chunks = context.get("relevant_chunks") or ""
    evidence = [{"title": "retrieved for this answer", "text": chunks}] if chunks.strip() else []
    body = {"text": context.get("bot_message") or "", "question": context.get("user_message") or None,
            "factdebate": {**OPTIONS, "evidence": evidence}}
    url = os.environ.get("FACTDEBATE_URL", "http://127.0.0.1:8000").rstrip("/")
    async with httpx.AsyncClient(timeout=OPTIONS["deadline_s"] + 30) as client:
        reply = await client.post(f"{url}/v1/guard/check", json=body,
                                  headers={"Authorization": f"Bearer {os.environ['FACTDEBATE_API_KEY']}"})
    reply.raise_for_status()  # no check, no answer: NeMo stops the flow with the error
    return reply.json()
