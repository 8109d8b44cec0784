"""``POST /v1/guard/check``: the guard for frameworks that already hold the model's reply (a NeMo Guardrails
action, a bot's own code): the reply's text, optionally the user's question and the conversation (whose
``role: "tool"`` messages are given evidence), and the same ``factdebate`` options as the chat route, in; the
whole :class:`~factdebate.guard.types.GuardResult` out, its ``text`` as the policy leaves it. Nothing is
forwarded anywhere: ``rewrite`` asks the operator's ``guard.upstream`` when there is one, and otherwise flags.

Set up as the chat route's check is (server/guard_prepare.py's ``setup_check``), with its error shape
(OpenAI's ``error`` object, beside ``detail``) for every refusal, a wrong key's 401 included, and the
request's check id in ``X-Factdebate-Check-Id`` (the finished check is kept under it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factdebate.core.errors import FactDebateError
from factdebate.guard import GuardOptions, GuardResult, check_text
from factdebate.server.check_routes import call_keeper
from factdebate.server.guard_prepare import (
    GUARD_CHECK_ID_HEADER,
    check_failed,
    keep_guard,
    keyed_route,
    openai_error,
    setup_check,
    upstream_for,
    validation_problems,
)
from factdebate.server.guard_request import ChatMessage, ChatRequest, body_schema, lone_surrogate
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


async def _check(request: Request, service: Service, who: str) -> Response:
    try:
        body = TextCheck.model_validate_json(await request.body())
    except ValidationError as exc:
        return openai_error(422, f"invalid request: {validation_problems(exc)}")
    messages = [m.model_dump(exclude_none=True) for m in body.messages or []]
    chat = ChatRequest(model="-", messages=body.messages) if body.messages else None
    setup = setup_check(request, service, who, body.factdebate or GuardOptions(), messages, chat=chat,
                        question=body.question)
    if isinstance(setup, JSONResponse):
        return setup
    upstream = upstream_for(request.app.state, setup.settings) if setup.resolved.policy == "rewrite" else None
    reviser = upstream.reviser({"model": body.model, "messages": messages}) if upstream else None
    try:
        calls = call_keeper(service)
        result: GuardResult = await check_text(body.text, setup.settings, service.resources(setup.settings),
                                               options=setup.options, question=setup.question,
                                               sinks=[calls.sink] if calls else None, reviser=reviser, caller=who)
        setup.charge.claims = len(result.claims)
        result = await keep_guard(service, who, result, calls, setup.check_id, setup.options.conversation_id)
    except FactDebateError as exc:
        return check_failed(exc)
    finally:
        setup.slot.release()
    return Response(result.model_dump_json(), media_type="application/json",
                    headers={GUARD_CHECK_ID_HEADER: result.check_id} if result.check_id else None)

