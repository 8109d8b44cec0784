"""``POST /v1/chat/completions``: the fact-checking guard as an OpenAI-compatible endpoint. Any OpenAI client
points its base URL here; the request goes on to the operator's model (``guard.upstream``), the assistant's
reply is checked by :mod:`factdebate.guard`, and the answer comes back in OpenAI's shape with a
``factdebate`` object beside ``choices`` (and the kept check's id in ``X-Factdebate-Check-Id``).

The route is thin: the request's checks (server/guard_request.py), the way to the upstream
(server/guard_upstream.py) and the stream's relay (server/guard_stream.py) live apart, and the checking
itself below the faces. The caller's key is this service's (``Authorization: Bearer``, as the OpenAI SDK
sends it); it is never sent on. Errors are OpenAI-shaped (``{"error": {...}}``) with the service's
``detail`` beside, so OpenAI clients and this API's other callers read them alike: a missing or wrong key's
401 too, so the key is checked here rather than by the service's dependency (whose 401 is ``{"detail"}``).
Every reply carries the request's check id (server/guard_check_id.py), errors included."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from factdebate.core.errors import FactDebateError
from factdebate.core.textsafe import safe_value
from factdebate.guard import GuardResult, check_text
from factdebate.guard.clock import not_counted
from factdebate.server.guard_prepare import (
    GUARD_CHECK_ID_HEADER,
    Prepared,
    apply_to_message,
    check_failed,
    keep_guard,
    openai_error,
    openai_http_error,
    prepare,
    public_result,
    reviser_for,
    route_failed,
    unchecked_result,
    upstream_error,
)
from factdebate.server.guard_request import ChatRequest, body_schema, reply_text
from factdebate.server.guard_stream import disconnected, stream_reply
from factdebate.server.guard_upstream import UpstreamError
from factdebate.server.service import Service, ServiceDep, caller

router = APIRouter(prefix="/v1")
log = logging.getLogger("factdebate.server")


@router.post("/chat/completions", tags=["guard"], summary="An OpenAI-compatible chat endpoint whose replies are "
             "fact-checked", response_model=None,
             description="An OpenAI Chat Completions request in (any OpenAI client, by its base URL); the "
                         "operator's model answers it, the reply is checked claim by claim within a deadline, "
                         "and the answer comes back in OpenAI's shape with a `factdebate` object beside "
                         "`choices`. Options go in the body's `factdebate` object; `role: \"tool\"` messages "
                         "are given evidence. With `\"stream\": true` the answer streams as it is written and "
                         "the verdicts come in the last chunk before `[DONE]` (`factdebate docs guard#streaming`).",
             openapi_extra=body_schema(ChatRequest, "/v1/chat/completions"))
async def chat_completions(request: Request, service: ServiceDep,
                           authorization: Annotated[str | None, Header(include_in_schema=False)] = None) -> Response:
    try:
        who = await caller(service, request, authorization)
    except HTTPException as exc:  # 401 (or 429): an OpenAI client raises its AuthenticationError on it
        return openai_http_error(exc)
    try:
        return await _reply(request, service, who)
    except RecursionError:
        raise  # JSON nested past Python's reader: the app's 422 (server/app.py)
    except Exception as exc:  # a fault of the route's own: OpenAI's shape, and still the check id's header
        return route_failed(exc)


async def _reply(request: Request, service: Service, who: str) -> Response:
    prepared = await prepare(request, service, who)
    if isinstance(prepared, JSONResponse):
        return prepared
    if prepared.body.stream:
        return await stream_reply(prepared, service, who, request)
    try:
        return await _unless_gone(_plain_reply(prepared, service, who), request)
    finally:
        prepared.slot.release()


async def _unless_gone(reply: Coroutine[Any, Any, Response], request: Request) -> Response:
    """``reply``, or nothing when the caller leaves first: a caller gone stops the upstream's request and the
    check at once, as it does a stream's (the response waits for both, and nobody reads it any more)."""
    work = asyncio.ensure_future(reply)
    gone = asyncio.ensure_future(disconnected(request))
    try:
        await asyncio.wait((work, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not work.done():
            work.cancel()
            await asyncio.gather(work, return_exceptions=True)
    if work.cancelled():
        return Response(status_code=499)
    return work.result()


async def _plain_reply(prepared: Prepared, service: Service, who: str) -> Response:
    try:
        with not_counted():  # the upstream's time is not the check's (guard/clock.py)
            answer = await prepared.upstream.complete(prepared.body.upstream_body(prepared.settings.guard.max_tokens))
    except UpstreamError as exc:
        prepared.charge.claims = 0
        return upstream_error(exc)
    # Every choice is checked (n is capped by guard.max_choices); choices the upstream wrote beyond the n asked
    # for are left out, never passed on unchecked.
    asked = prepared.body.n or 1
    written = answer["choices"]
    answer["choices"] = choices = written[:asked]
    extra = [f"choices {asked + 1} to {len(written)}: the upstream model wrote more answers than asked for "
             f"(n = {asked}); they were left out, unchecked"] if len(written) > asked else []
    from factdebate.server.check_routes import call_keeper

    calls = call_keeper(service)
    checks = [asyncio.ensure_future(_check_choice(prepared, service, who, choice, calls))
              for choice in (choices or [{}])]
    try:
        results = await asyncio.gather(*checks)
    except FactDebateError as exc:
        for task in checks:
            task.cancel()
        await asyncio.gather(*checks, return_exceptions=True)
        return check_failed(exc)
    results[0] = results[0].model_copy(update={"passed_through": [*results[0].passed_through, *extra]})
    prepared.charge.claims = sum(len(result.claims) for result in results)
    for number, result in enumerate(results):
        results[number] = result = await keep_guard(service, who, result, calls,
                                                    prepared.check_id if number == 0 else None,
                                                    prepared.conversation_id)
        if number < len(choices):
            _apply_to_choice(choices, number, result, prepared.settings.guard.block_finish_reason)
    answer["factdebate"] = public_result(results[0])
    headers = {GUARD_CHECK_ID_HEADER: results[0].check_id} if results[0].check_id else None
    try:
        return JSONResponse(answer, headers=headers)
    except ValueError:  # text no UTF-8 reply can carry (a lone surrogate in the upstream's answer): replaced
        return JSONResponse(safe_value(answer), headers=headers)


RESPONSES_API = ("this service's guard speaks OpenAI's Chat Completions (POST /v1/chat/completions), not the "
                 "Responses API: use a Chat Completions client (the Vercel AI SDK's @ai-sdk/openai-compatible "
                 "provider, LangChain's ChatOpenAI without use_responses_api; "
                 "factdebate docs guard#with-langchain-or-the-vercel-ai-sdk)")


@router.post("/responses", include_in_schema=False)
async def responses() -> JSONResponse:
    """The Responses API, which clients such as the Vercel AI SDK's ``openai()`` call by default: a 404 that
    says which API to call instead, in OpenAI's shape (a bare ``Not Found`` said nothing)."""
    return openai_error(404, RESPONSES_API, "not_found_error", "responses_api_not_served")


def _apply_to_choice(choices: list[Any], number: int, result: GuardResult, block_finish: str) -> None:
    """The policy's text in choice ``number``. A choice (or message) that is not an object holds nothing the
    check could read, so nothing of it is passed on: it gets the policy's text alone. With several choices,
    each carries its own ``factdebate`` object (the one beside ``choices`` is the first's)."""
    choice = choices[number]
    if not isinstance(choice, dict):
        choices[number] = choice = {"index": number, "finish_reason": "stop"}
    if not isinstance(choice.get("message"), dict):
        choice["message"] = {"role": "assistant", "content": result.text or None}
    apply_to_message(choice["message"], choice, result, block_finish)
    if len(choices) > 1:
        choice["factdebate"] = public_result(result)


async def _check_choice(prepared: Prepared, service: Service, who: str, choice: Any, calls: Any) -> GuardResult:
    """One choice's check (its own deadline, its own result); a choice with no text to check is the result of
    guard/policy.py's ``no_text_result`` (a tool call passes, anything else is degraded)."""
    first: dict[str, Any] = choice if isinstance(choice, dict) else {}
    message: dict[str, Any] = first["message"] if isinstance(first.get("message"), dict) else {}
    text, passed = reply_text(message)
    if not text.strip():
        return unchecked_result(prepared.resolved, passed)
    result = await check_text(text, prepared.settings, service.resources(prepared.settings),
                              options=prepared.options, question=prepared.question,
                              sinks=[calls.sink] if calls else None, reviser=reviser_for(prepared), caller=who)
    return result.model_copy(update={"passed_through": [*result.passed_through, *passed]})
