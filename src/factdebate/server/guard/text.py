"""``POST /v1/guard/check``: the guard for frameworks that already hold the model's reply (a NeMo Guardrails
action, a bot's own code): the reply's text, optionally the user's question and the conversation (whose
``role: "tool"`` messages are given evidence), and the same ``factdebate`` options as the chat route, in; the
whole :class:`~factdebate.guard_engine.types.GuardResult` out, its ``text`` as the policy leaves it. Nothing is
forwarded anywhere: ``rewrite`` asks the operator's ``guard.upstream`` when there is one, and otherwise flags.

Checked by the one call every door makes (guard_engine/call.py, hosted by server/guard/host.py), with its error shape
(OpenAI's ``error`` object, beside ``detail``) for every refusal, a wrong key's 401 included, and the
request's check id in ``X-Factdebate-Check-Id`` (the finished check is kept under it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factdebate.engine import CheckCall, GuardOptions, Reply, Settings
from factdebate.server.guard.chat_request import ChatMessage, ChatRequest, chat_of, lone_surrogate
from factdebate.server.guard.check_id import check_id_of
from factdebate.server.guard.host import ServiceHost, door_error, door_options
from factdebate.server.guard.prepare import (
    GUARD_CHECK_ID_HEADER,
    keyed_route,
    openai_error,
    upstream_for,
    validation_problems,
)
from factdebate.server.guard.request import body_schema, read_body
from factdebate.server.guard.revision import Revise
from factdebate.server.service import Service, ServiceDep

router = APIRouter(prefix="/v1")


class TextCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="The reply to check (bounded by guard.max_message_chars).")
    question: str | None = Field(default=None, description="The user's message it answers (helps extraction).")
    messages: list[ChatMessage] | None = Field(default=None, description="The conversation so far (OpenAI "
                                               "messages); its tool results are given evidence.")
    factdebate: GuardOptions | None = Field(default=None, description="The check's options, as on the chat route.")
    model: str = Field(default="", max_length=256, description="For rewrite: the name the operator's upstream "
                       "knows the model by.")

    @field_validator("text", "question", "model")
    @classmethod
    def _valid_unicode(cls, value: str | None) -> str | None:
        """A lone surrogate cannot go back out in the answer (it was a 500): refused where it comes in."""
        if value is not None and (where := lone_surrogate(value)) is not None:
            raise ValueError(f"text that is not valid Unicode (a lone surrogate {where}); send it as UTF-8")
        return value


@router.post("/guard/check", tags=["guard"], summary="Check a chat reply the caller already has",
             response_model=None,
             openapi_extra=body_schema(TextCheck, "/v1/guard/check"))
async def guard_check(request: Request, service: ServiceDep,
                      authorization: Annotated[str | None, Header(include_in_schema=False)] = None) -> Response:
    return await keyed_route(request, service, authorization, _check)


def _read(body: bytes) -> tuple[TextCheck, ChatRequest | None]:
    text = TextCheck.model_validate_json(body)
    return text, chat_of(text.messages, "-")


async def _check(request: Request, service: Service, who: str) -> Response:
    try:
        body, chat = await read_body(request, _read)
    except ValidationError as exc:
        return openai_error(422, f"invalid request: {validation_problems(exc)}")
    messages = chat.plain_messages() if chat else []

    def revise(settings: Settings) -> Revise | None:
        upstream = upstream_for(request.app.state, settings)
        return upstream.reviser({"model": body.model, "messages": messages}) if upstream else None

    host = ServiceHost(service, who, check_id_of(request.scope), chat=chat, revise=revise, scope=request.scope)
    try:
        call = CheckCall(messages, door_options(body.factdebate, request), body.question)
        [result] = await call.check_replies([Reply(body.text)], host)
    except Exception as exc:
        if (answer := door_error(exc)) is None:
            raise
        return answer
    return Response(result.model_dump_json(), media_type="application/json",
                    headers={GUARD_CHECK_ID_HEADER: result.check_id} if result.check_id else None)
