"""``POST /beta/litellm_basic_guardrail_api``: the guard as LiteLLM's generic guardrail (``guardrail:
generic_guardrail_api`` with ``api_base`` set to this service; LiteLLM appends the path). As a ``post_call``
guardrail LiteLLM sends the reply's texts; each is checked, and the answer is LiteLLM's: ``NONE`` (unchanged;
the verdicts travel beside it in ``factdebate``), ``GUARDRAIL_INTERVENED`` with the texts the policy left
(``flag``, ``rewrite``), or ``BLOCKED`` with the refusal as the reason. Requests (``pre_call``) pass unchecked:
the guard checks answers.

LiteLLM authenticates with ``x-api-key`` (its ``api_key`` setting); a service key there, or in
``Authorization: Bearer``, is accepted alike. Options are the guardrail's
``additional_provider_specific_params`` (the same names as the chat route's ``factdebate`` object), checked
the same way. LiteLLM sends a reply check its texts only (not the conversation), so a bot's own passages
reach the guard through those options' ``evidence`` or not at all: docs/guard.md says what to do instead."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from factdebate.core.errors import ConfigError, FactDebateError, InputError
from factdebate.guard import GuardOptions, GuardResult, check_text, resolve_options
from factdebate.guard.messages import person_question
from factdebate.guard.options import with_conversation
from factdebate.server.check_routes import call_keeper
from factdebate.server.guard_prepare import (
    GUARD_CHECK_ID_HEADER,
    chosen_method,
    keep_guard,
    openai_error,
    public_result,
    upstream_for,
)
from factdebate.server.guard_request import MAX_CHOICES, ChatMessage, ChatRequest, check_messages
from factdebate.server.response_routes import _charged_slot
from factdebate.server.service import ServiceDep, caller
from factdebate.util.redact import hide_endpoints

router = APIRouter()
log = logging.getLogger("factdebate.server")
PATH = "/beta/litellm_basic_guardrail_api"


async def litellm_caller(service: ServiceDep, request: Request,
                         authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
                         x_api_key: Annotated[str | None, Header(include_in_schema=False)] = None) -> str:
    """The service's own key check, reading LiteLLM's ``x-api-key`` where no bearer key is sent."""
    return await caller(service, request, authorization or (f"Bearer {x_api_key}" if x_api_key else None))


class GuardrailRequest(BaseModel):
    """LiteLLM's request (``GenericGuardrailAPIRequest``); the fields the guard does not read are ignored."""

    model_config = ConfigDict(extra="ignore")

    input_type: Literal["request", "response"]
    texts: list[str] | None = Field(default=None, max_length=MAX_CHOICES * 4)
    structured_messages: list[ChatMessage] | None = None
    additional_provider_specific_params: dict[str, Any] | None = None
    model: str | None = Field(default=None, max_length=256)


@router.post(PATH, tags=["guard"], summary="The guard as LiteLLM's generic guardrail (post_call)", response_model=None)
async def litellm_guardrail(request: Request, service: ServiceDep,
                            who: Annotated[str, Depends(litellm_caller)]) -> JSONResponse:
    try:
        body = GuardrailRequest.model_validate(await request.json())
        options = GuardOptions.model_validate(body.additional_provider_specific_params or {})
    except (ValidationError, ValueError) as exc:
        return openai_error(422, f"invalid guardrail request: {exc}")
    texts = body.texts or []
    if body.input_type == "request" or not any(t.strip() for t in texts):
        return JSONResponse({"action": "NONE"})
    settings = service.resolver.base
    messages = [m.model_dump(exclude_none=True) for m in body.structured_messages or []]
    options = with_conversation(options, messages)  # tool results: ranked per claim past the limits, not refused
    try:
        settings = service.resolver.resolve(chosen_method(options, service.resolver.base), who)
        if body.structured_messages:
            check_messages(ChatRequest(model=body.model or "-", messages=body.structured_messages), settings)
        for number, text in enumerate(texts, 1):
            if len(text) > settings.guard.max_message_chars:
                raise InputError(f"text {number} holds {len(text)} characters; the limit is "
                                 f"{settings.guard.max_message_chars} (guard.max_message_chars)")
        resolved = resolve_options(options, settings)
    except (ConfigError, InputError) as exc:
        return openai_error(422, str(exc))
    question = person_question(messages)
    upstream = upstream_for(request.app.state, settings) if resolved.policy == "rewrite" else None
    reviser = upstream.reviser({"model": body.model or "", "messages": messages}) if upstream else None
    slot, charge = _charged_slot(service, who, settings)
    try:
        async def one(text: str) -> GuardResult:
            calls = call_keeper(service)
            result = await check_text(text, settings, service.resources(settings), options=options,
                                      question=question or None, sinks=[calls.sink] if calls else None,
                                      reviser=reviser, caller=who)
            return await keep_guard(service, who, result, calls)

        try:
            results = await asyncio.gather(*(one(t) for t in texts))
        except FactDebateError as exc:
            log.warning("a LiteLLM guardrail check failed: %s", exc)  # with the address the caller is not shown
            return openai_error(500, f"the fact check failed: {hide_endpoints(str(exc))}", "server_error")
        charge.claims = sum(len(r.claims) for r in results)
    finally:
        slot.release()
    return JSONResponse(_answer(results), headers={GUARD_CHECK_ID_HEADER: results[0].check_id}
                        if results[0].check_id else None)


def _answer(results: list[GuardResult]) -> dict[str, Any]:
    checked = [public_result(r) for r in results]
    blocked = next((r for r in results if r.action_taken == "blocked"), None)
    if blocked is not None:
        return {"action": "BLOCKED", "blocked_reason": blocked.text, "factdebate": checked}
    if any(r.action_taken in ("flagged", "held", "rewritten") for r in results):
        return {"action": "GUARDRAIL_INTERVENED", "texts": [r.text for r in results], "factdebate": checked}
    return {"action": "NONE", "factdebate": checked}
