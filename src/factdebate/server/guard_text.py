"""``POST /v1/guard/check``: the guard for frameworks that already hold the model's reply (a NeMo Guardrails
action, a bot's own code): the reply's text, optionally the user's question and the conversation (whose
``role: "tool"`` messages are given evidence), and the same ``factdebate`` options as the chat route, in; the
whole :class:`~factdebate.guard.types.GuardResult` out, its ``text`` as the policy leaves it. Nothing is
forwarded anywhere: ``rewrite`` asks the operator's ``guard.upstream`` when there is one, and otherwise flags."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from factdebate.core.errors import ConfigError, FactDebateError, InputError
from factdebate.guard import GuardOptions, GuardResult, check_text, resolve_options
from factdebate.guard.options import with_conversation
from factdebate.server.check_routes import call_keeper
from factdebate.server.guard_prepare import GUARD_CHECK_ID_HEADER, chosen_method, keep_guard, upstream_for
from factdebate.server.guard_request import ChatMessage, ChatRequest, check_messages, lone_surrogate
from factdebate.server.response_routes import _charged_slot
from factdebate.server.routes import _http_error
from factdebate.server.service import CallerDep, ServiceDep

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
             response_model=None)
async def guard_check(body: TextCheck, request: Request, service: ServiceDep, who: CallerDep) -> Response:
    options = body.factdebate or GuardOptions()
    messages = [m.model_dump(exclude_none=True) for m in body.messages or []]
    options = with_conversation(options, messages)  # tool results: ranked per claim past the limits, not refused
    try:
        settings = service.resolver.resolve(chosen_method(options, service.resolver.base), who)
        if body.messages:
            check_messages(ChatRequest(model="-", messages=body.messages), settings)
        resolved = resolve_options(options, settings)
    except (ConfigError, InputError) as exc:
        raise HTTPException(422, str(exc)) from exc
    upstream = upstream_for(request.app.state, settings) if resolved.policy == "rewrite" else None
    reviser = upstream.reviser({"model": body.model, "messages": messages}) if upstream else None
    slot, charge = _charged_slot(service, who, settings)
    try:
        calls = call_keeper(service)
        result: GuardResult = await check_text(body.text, settings, service.resources(settings), options=options,
                                               question=body.question, sinks=[calls.sink] if calls else None,
                                               reviser=reviser, caller=who)
        charge.claims = len(result.claims)
        result = await keep_guard(service, who, result, calls)
    except FactDebateError as exc:
        raise _http_error(exc) from exc
    finally:
        slot.release()
    return Response(result.model_dump_json(), media_type="application/json",
                    headers={GUARD_CHECK_ID_HEADER: result.check_id} if result.check_id else None)
