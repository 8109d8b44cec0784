"""What the chat guard's plain and streamed replies share: the request prepared and charged, the pooled client of
the operator's upstream, OpenAI-shaped errors, the reviser for ``rewrite``, and the kept check. Apart from the
routes (server/guard_routes.py) and the stream's relay (server/guard_stream.py), which both read it, so neither
imports the other."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.datastructures import State

from factdebate.core.errors import ConfigError, FactDebateError, InputError
from factdebate.guard import GuardOptions, GuardResult, ResolvedGuardOptions, resolve_options
from factdebate.guard.messages import person_question
from factdebate.guard.options import with_conversation
from factdebate.guard.policy import no_text_result
from factdebate.guard.types import GuardClaim
from factdebate.server.guard_check_id import GUARD_CHECK_ID_HEADER as GUARD_CHECK_ID_HEADER  # the routes read it here
from factdebate.server.guard_check_id import check_id_of
from factdebate.server.guard_request import ChatRequest, check_messages, read_chat_request
from factdebate.server.guard_upstream import Upstream, UpstreamError, error_body
from factdebate.server.kept_calls import CallKeeper
from factdebate.server.response_routes import ClaimCharge, _charged_slot
from factdebate.server.routes import _RunSlot
from factdebate.server.service import Service, caller
from factdebate.settings.model import Settings
from factdebate.util.redact import hide_endpoints

log = logging.getLogger("factdebate.server")
# The conversation's id where the body's `factdebate` object cannot carry it (a client that drops the body's
# unknown fields): the same value `factdebate.conversation_id` takes, checked alike.
CONVERSATION_HEADER = "X-Factdebate-Conversation-Id"
NO_UPSTREAM = ("the chat guard is off on this server: its operator enables it by naming an OpenAI-compatible "
               "model to check, with `factdebate serve --guard-upstream URL` (a base URL ending in /v1) or "
               "guard.upstream in the --config file")
# The fields of a result a reply carries; the texts before and after the policy stay in the kept check.
REPLY_EXCLUDE = {"original_text", "text"}


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


def upstream_error(exc: UpstreamError) -> JSONResponse:
    """The upstream's error as it came, with the headers it keeps for the caller (its ``Retry-After``)."""
    return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers or None)


def upstream_for(state: State, settings: Settings) -> Upstream | None:
    """The pooled client of the operator's upstream (None when the guard is off). The key is read from its
    variable on each request, so the operator can rotate it; a new key gets a new client."""
    guard = settings.guard
    if not guard.upstream:
        return None
    import os

    key = os.environ.get(guard.upstream_key_env) or None
    pool: dict[tuple[str, str | None, float], Upstream] = state.__dict__.setdefault("guard_upstreams", {})
    wanted = (guard.upstream, key, guard.upstream_timeout_s)
    if wanted not in pool:
        pool[wanted] = Upstream(guard.upstream, key, guard.upstream_timeout_s)
    return pool[wanted]


async def close_upstreams(state: State) -> None:
    for upstream in state.__dict__.pop("guard_upstreams", {}).values():
        await upstream.aclose()


def chosen_method(options: GuardOptions, base: Settings) -> dict[str, Any]:
    """The request's choice that counts against the spending caps: a tiers' method other than the operator's
    ``guard.method`` (whose own bounds are the operator's to set), checked as a chosen ``method`` is on
    ``/v1/check-response``. The operator's is not resolved again: a request's settings cost milliseconds."""
    return {"method": options.method} if options.method and options.method != base.guard.method else {}


@dataclass
class Prepared:
    """A request that passed every check, and what its check needs."""

    body: ChatRequest
    settings: Settings
    options: GuardOptions
    resolved: ResolvedGuardOptions
    upstream: Upstream
    question: str | None
    slot: _RunSlot
    charge: ClaimCharge
    check_id: str | None = None  # the request's (server/guard_check_id.py): its first kept check's id

    @property
    def conversation_id(self) -> str | None:
        return self.options.conversation_id


@dataclass
class CheckSetup:
    """What every guard route's check needs, made one way for all of them (:func:`setup_check`)."""

    settings: Settings
    options: GuardOptions
    resolved: ResolvedGuardOptions
    question: str | None
    slot: _RunSlot
    charge: ClaimCharge
    check_id: str  # the request's (server/guard_check_id.py, already in its header): its first kept check's id


def setup_check(request: Request, service: Service, who: str, options: GuardOptions,
                messages: list[dict[str, Any]], *, chat: ChatRequest | None = None,
                question: str | None = None) -> CheckSetup | JSONResponse:
    """The one setup of a guard route's check (``/v1/chat/completions``, ``/v1/guard/check``, LiteLLM's
    guardrail): the conversation's tool results as evidence (ranked per claim past the limits, never refused),
    the conversation's id from its header, the caller's settings (a chosen method counts against the spending
    caps), the conversation's bounds (``chat``: the request whose messages and ``n`` are checked), the options
    resolved, the person's question (``question`` when the caller named it), and the debate slot and the
    claims' rate-limit tokens taken last (a refused request paid only the request's token). A refusal is
    OpenAI's error (422 for a bad option or message, 503 at the server's limit of checks)."""
    options = with_conversation(options, messages)
    try:
        options = with_conversation_header(options, request.headers.get(CONVERSATION_HEADER))
        settings = service.resolver.resolve(chosen_method(options, service.resolver.base), who)
        if chat is not None:
            check_messages(chat, settings)
        resolved = resolve_options(options, settings)
    except (ConfigError, InputError) as exc:
        return openai_error(422, str(exc))
    try:
        slot, charge = _charged_slot(service, who, settings)  # 503 when the server is at its limit of checks
    except HTTPException as exc:
        return openai_http_error(exc)
    return CheckSetup(settings, options, resolved, question or person_question(messages) or None, slot, charge,
                      check_id_of(request.scope))


def check_failed(exc: FactDebateError) -> JSONResponse:
    """A check that raised (a checker model server down, a fault of its own): OpenAI's error, with the same
    status the service's other routes give it (502 unreachable, 500 otherwise; no endpoint's address)."""
    from factdebate.server.routes import _http_error

    error = _http_error(exc)
    kind = "invalid_request_error" if error.status_code == 422 else "server_error"
    return openai_error(error.status_code, str(error.detail), kind)


def validation_problems(exc: ValidationError) -> str:
    """Pydantic's errors as one line, without the input (a reply never echoes the request back)."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}".removeprefix(": ") for e in exc.errors())


def route_failed(exc: Exception) -> JSONResponse:
    """A fault of a guard route's own: OpenAI's 500, its details in the server's log only."""
    log.error("a guard request failed", exc_info=exc)
    return openai_error(500, "the request failed unexpectedly; see the server log", "server_error")


async def keyed_route(request: Request, service: Service, authorization: str | None,
                      handler: Callable[[Request, Service, str], Awaitable[Response]]) -> Response:
    """A guard route that reads its own body: the service's key check, then the handler, every refusal and
    fault in OpenAI's shape (the chat route's key check runs where it parses, with the same answers)."""
    try:
        who = await caller(service, request, authorization)
    except HTTPException as exc:  # 401 (or 429)
        return openai_http_error(exc)
    try:
        return await handler(request, service, who)
    except RecursionError:
        raise  # JSON nested past Python's reader: the app's 422 (server/app.py)
    except Exception as exc:
        return route_failed(exc)


async def prepare(request: Request, service: Service, who: str) -> Prepared | JSONResponse:
    """Every check of a chat request before the upstream is asked (:func:`setup_check`)."""
    upstream = upstream_for(request.app.state, service.resolver.base)
    if upstream is None:
        return openai_error(404, NO_UPSTREAM, "not_found_error", "guard_disabled")
    try:
        body = await read_chat_request(request)  # off the event loop when it is large
    except InputError as exc:
        return openai_error(422, str(exc))
    setup = setup_check(request, service, who, body.factdebate or GuardOptions(), body.plain_messages(), chat=body)
    if isinstance(setup, JSONResponse):
        return setup
    return Prepared(body, setup.settings, setup.options, setup.resolved, upstream, setup.question, setup.slot,
                    setup.charge, setup.check_id)


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


def reviser_for(prepared: Prepared) -> Any:
    """Only ``rewrite`` asks the upstream again; other policies never revise."""
    return prepared.upstream.reviser(prepared.body.upstream_body()) if prepared.resolved.policy == "rewrite" else None


def unchecked_result(resolved: ResolvedGuardOptions, passed: list[str]) -> GuardResult:
    """The result of a reply with no text to check (guard/policy.py's :func:`no_text_result`): a tool call
    alone passes through; anything else without text is a degraded check that ``on_unchecked`` decides."""
    return no_text_result(resolved, passed, called=any(_is_call(item) for item in passed))


def _is_call(passed: str) -> bool:
    """Whether a ``passed_through`` line names the reply's tool or function call (server/guard_request.py's
    and server/guard_stream.py's wording)."""
    return "tool call(s) in the reply" in passed or passed.startswith("a function call in the reply")


def hidden_claim(claim: GuardClaim) -> GuardClaim:
    """A claim as a caller reads it: why its check failed says what failed, not where the operator's model
    server is (its address stays in the server's log)."""
    if not claim.reason or hide_endpoints(claim.reason) == claim.reason:
        return claim
    log.warning("a guard check's claim %d failed: %s", claim.index, claim.reason)
    return claim.model_copy(update={"reason": hide_endpoints(claim.reason)})


def hidden_result(result: GuardResult) -> GuardResult:
    """The result as a caller reads it, in a reply or kept: no endpoint's address in what went wrong (the
    claims' reasons, why the check was degraded, what was passed through); the server's log keeps it. The
    texts and the evidence's own URLs are the answer's and the sources', not the operator's, and stay."""
    reason = result.degraded_reason
    if reason and hide_endpoints(reason) != reason:
        log.warning("a guard check was degraded: %s", reason)
        reason = hide_endpoints(reason)
    return result.model_copy(update={"degraded_reason": reason, "claims": [hidden_claim(c) for c in result.claims],
                                     "passed_through": [hide_endpoints(p) for p in result.passed_through]})


async def keep_guard(service: Service, who: str, result: GuardResult, calls: CallKeeper | None,
                     check_id: str | None = None, conversation_id: str | None = None) -> GuardResult:
    """Keep the finished check (``GET /v1/checks/{id}`` reopens it as kind ``guard``, with its model calls and
    both texts), under ``check_id`` when one was made beforehand (the chat route's, already in its header) and
    filed under ``conversation_id`` when it has one (``GET /v1/checks?conversation_id=``); the result with its
    ``check_id`` (None: the operator keeps none, or storing failed). Every route's result passes here, so it
    is made :func:`hidden_result` here, for the reply and the kept check."""
    result = hidden_result(result)
    try:
        check_id = await asyncio.to_thread(service.checks.save, who, "guard", result.model_dump(mode="json"),
                                           calls=calls.calls if calls else None, calls_cut=calls.cut if calls else 0,
                                           check_id=check_id, conversation=conversation_id)
    except Exception:
        log.warning("could not keep a finished guard check in the state database", exc_info=True)
        return result
    return result.model_copy(update={"check_id": check_id})


def public_result(result: GuardResult) -> dict[str, Any]:
    return result.model_dump(mode="json", exclude=REPLY_EXCLUDE)


def apply_to_message(message: dict[str, Any], choice: dict[str, Any], result: GuardResult,
                     block_finish: str = "content_filter") -> None:
    """The policy's text in the first choice; a blocked reply loses its tool calls too and ends as
    ``block_finish`` (``guard.block_finish_reason``: ``content_filter``, OpenAI's word for an answer withheld
    by a filter, or ``stop``, an ordinary answer)."""
    if result.action_taken in ("flagged", "held", "rewritten", "blocked"):
        message["content"] = result.text
    if result.action_taken == "blocked":
        message.pop("tool_calls", None)
        message.pop("function_call", None)
        choice["finish_reason"] = block_finish
