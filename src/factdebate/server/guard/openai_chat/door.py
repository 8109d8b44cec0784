"""``POST /v1/chat/completions``: the fact-checking guard as an OpenAI-compatible endpoint. Any OpenAI client
points its base URL here; the request goes on to the operator's model (``guard.upstream``), the assistant's
reply is checked by :mod:`factdebate.guard_engine`, and the answer comes back in OpenAI's shape with a
``factdebate`` object beside ``choices`` (and the kept check's id in ``X-Factdebate-Check-Id``; a whole answer's
action and refuted claims in ``X-Factdebate-Action`` and ``X-Factdebate-Refuted``).

The route is thin: the request's format and checks (server/guard/chat_request.py), the way to the upstream
(server/guard/upstream.py) and the stream's relay (server/guard/openai_chat/stream.py) live apart, and the checking
itself below the faces. The caller's key is this service's (``Authorization: Bearer``, as the OpenAI SDK
sends it); it is never sent on. Errors are OpenAI-shaped (``{"error": {...}}``) with the service's
``detail`` beside, so OpenAI clients and this API's other callers read them alike: a missing or wrong key's
401 too, so the key is checked here rather than by the service's dependency (whose 401 is ``{"detail"}``).
Every reply carries the request's check id (server/guard/check_id.py), errors included."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from factdebate.engine import Begun, GuardResult, Reply
from factdebate.server.guard.chat_request import ChatRequest
from factdebate.server.guard.host import ChatDoor, ServiceHost, door_error, prepare_stream, read_chat
from factdebate.server.guard.openai_chat.answer import answer_headers, answer_replies, apply_to_answer
from factdebate.server.guard.openai_chat.stream import stream_reply
from factdebate.server.guard.prepare import (
    GUARD_CHECK_ID_HEADER,
    answered,
    openai_error,
    openai_http_error,
    route_failed,
)
from factdebate.server.guard.request import body_schema
from factdebate.server.service import Service, ServiceDep, caller
from factdebate.server.strict_json import SafeJSONResponse, body_nests_deeply
from factdebate.util.tasks import gather_all

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
    except RecursionError as exc:
        if body_nests_deeply(request.scope):
            raise  # the caller's JSON nested past Python's reader: the app's 422 (server/app.py)
        return route_failed(exc)  # an answer some server sent, nested past a parser: never the caller's 422
    except Exception as exc:  # a fault of the route's own: OpenAI's shape, and still the check id's header
        return route_failed(exc)


async def _reply(request: Request, service: Service, who: str) -> Response:
    door = await read_chat(request, service, who)
    if isinstance(door, JSONResponse):
        return door
    try:
        if door.body.stream:
            return await stream_reply(await prepare_stream(door), request)
        return await answered(_plain_reply(door), service, request)
    except Exception as exc:
        if (answer := door_error(exc)) is None:
            raise
        return answer


async def _plain_reply(door: ChatDoor) -> Response:
    """The plain answer, in a straight line: the check begun (options, settings, admission: a refused request
    never asks the upstream), the upstream's answer, its replies checked (which choices are checked, n capped by
    guard.max_choices, and what of them passes: server/guard/openai_chat/answer.py) and each finished, then each
    result's policy written into its choice. The upstream's time is not the check's; its failure is raised as
    it came, charged as a check of no claims."""
    begun = await door.host.begin(door.call)
    claims = 0
    try:
        with begun.not_counted():  # the upstream's time is not the check's (a deadline counts the check alone)
            answer = await door.upstream.complete(door.body.upstream_body(begun.settings.guard.max_tokens))
        results = await _checked(door.host, begun, answer_replies(answer, door.body.n or 1))
        claims = sum(len(result.claims) for result in results)
    finally:
        begun.admission.charge(claims)
        begun.admission.release()
    apply_to_answer(answer, results, begun.settings.guard.block_finish_reason)
    headers = answer_headers(results[0]) | ({GUARD_CHECK_ID_HEADER: results[0].check_id}
                                            if results[0].check_id else {})
    try:
        return JSONResponse(answer, headers=headers)
    except ValueError:  # text no UTF-8 reply can carry (a lone surrogate in the upstream's answer): replaced
        return SafeJSONResponse(answer, headers=headers)


async def _checked(host: ServiceHost, begun: Begun, replies: list[Reply]) -> list[GuardResult]:
    """Every reply checked at once within the one admission (a failed one ends the others), each finished:
    hidden, and kept with its model calls, the first under the request's id."""
    async with begun.session(replies) as (resources, session_sinks):

        async def one(reply: Reply, first: bool) -> GuardResult:
            sinks, calls = host.sinks()
            return await begun.finish(await begun.check(reply, resources, [*session_sinks, *sinks]), calls, first)

        return await gather_all(*(one(reply, number == 0) for number, reply in enumerate(replies)))


RESPONSES_API = ("this service's guard speaks OpenAI's Chat Completions (POST /v1/chat/completions), not the "
                 "Responses API: use a Chat Completions client (the Vercel AI SDK's @ai-sdk/openai-compatible "
                 "provider, LangChain's ChatOpenAI without use_responses_api; "
                 "factdebate docs ways/proxy#with-langchain-or-the-vercel-ai-sdk)")


@router.post("/responses", include_in_schema=False)
async def responses() -> JSONResponse:
    """The Responses API, which clients such as the Vercel AI SDK's ``openai()`` call by default: a 404 that
    says which API to call instead, in OpenAI's shape (a bare ``Not Found`` said nothing)."""
    return openai_error(404, RESPONSES_API, "not_found_error", "responses_api_not_served")
