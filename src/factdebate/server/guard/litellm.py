"""``POST /beta/litellm_basic_guardrail_api``: the guard as LiteLLM's generic guardrail (``guardrail:
generic_guardrail_api`` with ``api_base`` set to this service; LiteLLM appends the path). As a ``post_call``
guardrail LiteLLM sends the reply's texts; each is checked, and the answer is LiteLLM's: ``NONE`` (unchanged;
the verdicts travel beside it in ``factdebate``), ``GUARDRAIL_INTERVENED`` with the texts the policy left
(``flag``, ``rewrite``), or ``BLOCKED`` with the refusal as the reason. Requests (``pre_call``) pass unchecked:
the guard checks answers.

LiteLLM authenticates with ``x-api-key`` (its ``api_key`` setting); a service key there, or in
``Authorization: Bearer``, is accepted alike. Options are the guardrail's
``additional_provider_specific_params`` (the same names as the chat route's ``factdebate`` object), checked
the same way. LiteLLM sends a reply check its texts only (not the conversation). Its ``pre_call`` check of the
same request sends the conversation (``structured_messages``) and the same ``litellm_call_id``: with the
guardrail's ``mode: [pre_call, post_call]`` the conversation is kept here from the first (by caller and call
id, a few minutes, within a byte budget, in this process) and the reply read in it, so that a short answer or a
follow-up is checked as the chat route checks it; docs/guard.md says so.

Checked by the one call every door makes (guard_engine/call.py, hosted by server/guard/host.py), with its error shape
for every refusal (a wrong key's 401 included) and the request's check id in ``X-Factdebate-Check-Id`` (the
first text's check is kept under it). A text longer than ``guard.max_message_chars`` is checked as far as
the limit and its rest is unchecked, said (guard_engine/check.py), as on every door."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from factdebate.engine import CheckCall, GuardOptions, GuardResult, Reply, Settings
from factdebate.server.guard.chat_request import MAX_CHOICES, ChatMessage, ChatRequest, chat_of
from factdebate.server.guard.check_id import check_id_of
from factdebate.server.guard.host import ServiceHost, door_error, door_options
from factdebate.server.guard.prepare import (
    GUARD_CHECK_ID_HEADER,
    keyed_route,
    openai_error,
    upstream_for,
    validation_problems,
)
from factdebate.server.guard.request import read_body
from factdebate.server.guard.result_view import CHANGED, result_view
from factdebate.server.guard.revision import Revise
from factdebate.server.service import Service, ServiceDep

router = APIRouter()
log = logging.getLogger("factdebate.server")
PATH = "/beta/litellm_basic_guardrail_api"


class GuardrailRequest(BaseModel):
    """LiteLLM's request (``GenericGuardrailAPIRequest``); the fields the guard does not read are ignored."""

    model_config = ConfigDict(extra="ignore")

    input_type: Literal["request", "response"]
    texts: list[str] | None = Field(default=None, max_length=MAX_CHOICES * 4)
    structured_messages: list[ChatMessage] | None = None
    additional_provider_specific_params: dict[str, Any] | None = None
    model: str | None = Field(default=None, max_length=256)
    litellm_call_id: str | None = Field(default=None, max_length=256)


class Conversations:
    """The conversations LiteLLM's ``pre_call`` checks showed, kept for the ``post_call`` check of the same call's
    reply: by (caller, call id), taken once, for ``ttl_s`` seconds, the oldest dropped past ``max_bytes`` of
    request bodies. A reply whose conversation is not here (another worker process's, expired, no pre_call) is
    read without it, as before."""

    def __init__(self, max_bytes: int = 64 << 20, ttl_s: float = 600.0) -> None:
        self.max_bytes, self.ttl_s = max_bytes, ttl_s
        self.kept: OrderedDict[tuple[str, str], tuple[float, int, ChatRequest]] = OrderedDict()
        self.bytes = 0

    def keep(self, key: tuple[str, str], chat: ChatRequest, size: int) -> None:
        self.take(key)
        if size > self.max_bytes:
            return
        self.kept[key] = (time.monotonic() + self.ttl_s, size, chat)
        self.bytes += size
        now = time.monotonic()
        while self.kept and (self.bytes > self.max_bytes or next(iter(self.kept.values()))[0] < now):
            _, (_, dropped, _) = self.kept.popitem(last=False)
            self.bytes -= dropped

    def take(self, key: tuple[str, str]) -> ChatRequest | None:
        found = self.kept.pop(key, None)
        if found is None:
            return None
        until, size, chat = found
        self.bytes -= size
        return chat if until >= time.monotonic() else None


def _conversations(state: Any) -> Conversations:
    if not isinstance(getattr(state, "litellm_conversations", None), Conversations):
        state.litellm_conversations = Conversations()
    kept: Conversations = state.litellm_conversations
    return kept


@router.post(PATH, tags=["guard"], summary="The guard as LiteLLM's generic guardrail (post_call)", response_model=None)
async def litellm_guardrail(request: Request, service: ServiceDep,
                            authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
                            x_api_key: Annotated[str | None, Header(include_in_schema=False)] = None) -> Response:
    # The service's own key check, reading LiteLLM's x-api-key where no bearer key is sent.
    key = authorization or (f"Bearer {x_api_key}" if x_api_key else None)
    return await keyed_route(request, service, key, _guardrail)


def _read(body: bytes) -> tuple[GuardrailRequest, ChatRequest | None, int]:
    guardrail = GuardrailRequest.model_validate_json(body)
    return guardrail, chat_of(guardrail.structured_messages, guardrail.model or "-"), len(body)


async def _guardrail(request: Request, service: Service, who: str) -> Response:
    try:
        body, chat, size = await read_body(request, _read)
        options = GuardOptions.model_validate(body.additional_provider_specific_params or {})
    except ValidationError as exc:
        return openai_error(422, f"invalid guardrail request: {validation_problems(exc)}")
    texts = body.texts or []
    conversations = _conversations(request.app.state)
    if body.input_type == "request":  # passes; its conversation is kept for the reply's check
        if chat is not None and body.litellm_call_id:
            conversations.keep((who, body.litellm_call_id), chat, size)
        return JSONResponse({"action": "NONE"})
    if chat is None and body.litellm_call_id:
        chat = conversations.take((who, body.litellm_call_id))
    if not any(t.strip() for t in texts):
        return JSONResponse({"action": "NONE"})
    messages = chat.plain_messages() if chat else []

    def revise(settings: Settings) -> Revise | None:
        upstream = upstream_for(request.app.state, settings)
        return upstream.reviser({"model": body.model or "", "messages": messages}) if upstream else None

    host = ServiceHost(service, who, check_id_of(request.scope), chat=chat, revise=revise, scope=request.scope)
    try:
        # the first text's check is kept under the request's id (its header's); the others get their own
        results = await CheckCall(messages, door_options(options, request)).check_replies(
            [Reply(text) for text in texts], host)
    except Exception as exc:
        if (answer := door_error(exc)) is None:
            raise
        return answer
    return JSONResponse(litellm_answer(results), headers={GUARD_CHECK_ID_HEADER: results[0].check_id}
                        if results[0].check_id else None)


def litellm_answer(results: list[GuardResult]) -> dict[str, Any]:
    """LiteLLM's generic guardrail answer for its texts' results: ``BLOCKED`` with the refusal as the reason,
    ``GUARDRAIL_INTERVENED`` with the texts the policy left, or ``NONE``; the verdicts beside it."""
    checked = [result_view(r) for r in results]
    blocked = next((r for r in results if r.action_taken == "blocked"), None)
    if blocked is not None:
        return {"action": "BLOCKED", "blocked_reason": blocked.text, "factdebate": checked}
    if any(r.action_taken in CHANGED for r in results):
        return {"action": "GUARDRAIL_INTERVENED", "texts": [r.text for r in results], "factdebate": checked}
    return {"action": "NONE", "factdebate": checked}
