"""What the guard's HTTP doors share when they read a request and write an answer: the pooled client of the
operator's upstream, OpenAI-shaped errors and the conversation's id from its header (what a policy does to an
answer, and the result an answer carries, are server/guard/openai_chat/answer.py's).
The check itself, its admission and its keeping are the one call's (guard_engine/call.py, hosted by
server/guard/host.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.datastructures import State

from factdebate.engine import GuardOptions, Settings
from factdebate.server.guard.check_id import GUARD_CHECK_ID_HEADER as GUARD_CHECK_ID_HEADER  # the routes read it here
from factdebate.server.guard.upstream import AnswerLimits, Upstream, UpstreamError, error_body
from factdebate.server.service import Service, caller
from factdebate.server.strict_json import body_nests_deeply
from factdebate.util.errors import FactDebateError, InputError

log = logging.getLogger("factdebate.server")
# The conversation's id where the body's `factdebate` object cannot carry it (a client that drops the body's
# unknown fields): the same value `factdebate.conversation_id` takes, checked alike.
CONVERSATION_HEADER = "X-Factdebate-Conversation-Id"
NO_UPSTREAM = ("the chat guard is off on this server: its operator enables it by naming an OpenAI-compatible "
               "model to check, with `factdebate serve --guard-upstream URL` (a base URL ending in /v1) or "
               "guard.upstream in the --config file")


def openai_error(status: int, message: str, kind: str = "invalid_request_error", code: str | None = None,
                 headers: dict[str, str] | None = None) -> JSONResponse:
    """An error both kinds of client read: OpenAI's ``error`` object and this API's ``detail``."""
    return JSONResponse({"detail": message, **error_body(message, kind, code)}, status_code=status, headers=headers)


def openai_http_error(exc: HTTPException) -> JSONResponse:
    """A refusal made before the route (the key check's 401, its 429, the 503 of a server at its limit of
    checks) in OpenAI's error shape, with its headers (``WWW-Authenticate``, ``Retry-After``)."""
    kind, code = {401: ("invalid_request_error", "invalid_api_key"), 429: ("rate_limit_error", "rate_limit_exceeded"),
                  503: ("server_error", "overloaded")}.get(exc.status_code, ("invalid_request_error", None))
    return openai_error(exc.status_code, str(exc.detail), kind, code, headers=dict(exc.headers or {}) or None)


UPSTREAM_RETRY_AFTER_S = 1  # an upstream's 503 that named no wait: a second, as the service's own momentary 503s


def upstream_error(exc: UpstreamError) -> JSONResponse:
    """The upstream's error as it came, with the headers it keeps for the caller (its ``Retry-After``); a 503
    always with one, so that every 503 this service sends says when to try again."""
    headers = dict(exc.headers)
    if exc.status == 503 and not any(name.lower() == "retry-after" for name in headers):
        headers["Retry-After"] = str(UPSTREAM_RETRY_AFTER_S)
    return JSONResponse(exc.body, status_code=exc.status, headers=headers or None)


def upstream_for(state: State, settings: Settings) -> Upstream | None:
    """The pooled client of the operator's upstream (None when the guard is off). The key is read from its
    variable on each request, so the operator can rotate it; a new key gets a new client."""
    guard = settings.guard
    if not guard.upstream:
        return None
    import os

    key = os.environ.get(guard.upstream_key_env) or None
    pool: dict[tuple[str, str | None, float, AnswerLimits, bool], Upstream]
    pool = state.__dict__.setdefault("guard_upstreams", {})
    limits = AnswerLimits.following(guard.max_message_chars, guard.max_choices, guard.upstream_stream_s)
    wanted = (guard.upstream, key, guard.upstream_timeout_s, limits, guard.upstream_resend)
    if wanted not in pool:
        pool[wanted] = Upstream(guard.upstream, key, guard.upstream_timeout_s, limits=limits,
                                resend=guard.upstream_resend)
    return pool[wanted]


async def close_upstreams(state: State) -> None:
    for upstream in state.__dict__.pop("guard_upstreams", {}).values():
        await upstream.aclose()


def check_failed(exc: FactDebateError) -> JSONResponse:
    """A check that raised (a checker model server down, a fault of its own): OpenAI's error, with the same
    status the service's other routes give it (502 unreachable, 503 with ``Retry-After`` for the state database
    down, 500 otherwise; no endpoint's address)."""
    from factdebate.server.routes.verify import http_error

    error = http_error(exc)
    kind = "invalid_request_error" if error.status_code == 422 else "server_error"
    return openai_error(error.status_code, str(error.detail), kind, headers=dict(error.headers or {}) or None)


def validation_problems(exc: ValidationError) -> str:
    """Pydantic's errors as one line, without the input (a reply never echoes the request back)."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}".removeprefix(": ") for e in exc.errors())


def route_failed(exc: Exception) -> JSONResponse:
    """A fault of a guard route's own: OpenAI's 500, its details in the server's log only."""
    log.error("a guard request failed", exc_info=exc)
    return openai_error(500, "the request failed unexpectedly; see the server log", "server_error")


async def keyed_route(request: Request, service: Service, authorization: str | None,
                      handler: Callable[[Request, Service, str], Coroutine[Any, Any, Response]]) -> Response:
    """A guard route that reads its own body: the service's key check, then the handler, every refusal and
    fault in OpenAI's shape (the chat route's key check runs where it parses, with the same answers)."""
    try:
        who = await caller(service, request, authorization)
    except HTTPException as exc:  # 401 (or 429)
        return openai_http_error(exc)
    try:
        return await answered(handler(request, service, who), service, None)
    except RecursionError as exc:
        if body_nests_deeply(request.scope):
            raise  # the caller's JSON nested past Python's reader: the app's 422 (server/app.py)
        return route_failed(exc)  # an answer some server sent, nested past a parser: never the caller's 422
    except Exception as exc:
        return route_failed(exc)


STOPPING = ("the server is shutting down and stopped this request before it was answered; send it again "
            "(to this server once it is back, or another)")


async def disconnected(request: Request) -> None:
    """Returns when the caller has gone (its body was read whole before, so only a disconnect can come)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def answered(work: Coroutine[Any, Any, Response], service: Service, request: Request | None) -> Response:
    """``work``'s response; or, when the caller leaves first (``request``: its body already read), nothing (a
    caller gone stops the upstream's request and the check at once, as it does a stream's); or, when the
    server is stopping (shutdown.py's ``Stopping``, near the end of its grace period), OpenAI's 503 rather
    than the plain-text 500 of a request cancelled by the server's shutdown."""
    task = asyncio.ensure_future(work)
    waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(service.stopping.wait())]
    if request is not None:
        waits.append(asyncio.ensure_future(disconnected(request)))
    try:
        await asyncio.wait([task, *waits], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    if not task.cancelled():
        return task.result()
    if service.stopping.event.is_set():
        return openai_error(503, STOPPING, "server_error", "server_shutting_down", headers={"Retry-After": "1"})
    return Response(status_code=499)


def with_conversation_header(options: GuardOptions, value: str | None) -> GuardOptions:
    """``options`` with the conversation id of the :data:`CONVERSATION_HEADER` (checked as the option is);
    the header and the option naming two conversations is refused rather than one of them guessed."""
    if value is None:
        return options
    try:
        named = GuardOptions.model_validate({"conversation_id": value}).conversation_id
    except ValidationError as exc:
        raise InputError(f"{CONVERSATION_HEADER}: {exc.errors()[0]['msg']}") from exc
    if options.conversation_id not in (None, named):
        raise InputError(f"{CONVERSATION_HEADER} and factdebate.conversation_id name two conversations: "
                         "send one of them, or the same id in both")
    return options.model_copy(update={"conversation_id": named})
