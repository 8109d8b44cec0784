"""The service as the host of the guard's one call (guard_engine/call.py): the caller's settings from the service's
resolver (a chosen method counts against the spending caps), a run slot and the claims' rate-limit tokens
as admission, the service's resource pool, the kept check's model calls and the check kept under the
request's id, and the reviser for ``rewrite`` (the operator's upstream). Every HTTP door of the guard makes
the call with one of these; :func:`door_error` is how each writes a refusal or failure (OpenAI's shape)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.types import Scope

from factdebate.engine import (
    Begun,
    CheckCall,
    EventSink,
    GuardOptions,
    GuardResult,
    Host,
    Resources,
    Settings,
)
from factdebate.server.admission import ServiceAdmission, admit_check
from factdebate.server.guard.chat_request import ChatRequest, checked_conversation
from factdebate.server.guard.check_id import check_id_of, mark_kept, mark_not_kept
from factdebate.server.guard.prepare import (
    CONVERSATION_HEADER,
    NO_UPSTREAM,
    check_failed,
    openai_error,
    openai_http_error,
    upstream_error,
    upstream_for,
    with_conversation_header,
)
from factdebate.server.guard.request import read_chat_request
from factdebate.server.guard.revision import Revise
from factdebate.server.guard.upstream import Upstream, UpstreamError
from factdebate.server.routes.checks import call_keeper, not_kept
from factdebate.server.service import Service
from factdebate.util.errors import ConfigError, FactDebateError, InputError

log = logging.getLogger("factdebate.server")


class ServiceHost(Host):
    """One request's host. ``chat``: the request whose messages and ``n`` are held to the caller's bounds;
    ``revise``: the reviser for ``rewrite`` made from the caller's settings (None: a rewrite flags)."""

    def __init__(self, service: Service, who: str, check_id: str | None, *, chat: ChatRequest | None = None,
                 revise: Callable[[Settings], Revise | None] | None = None, scope: Scope | None = None) -> None:
        self.service, self.caller, self.check_id, self.chat, self._revise = service, who, check_id, chat, revise
        self.scope = scope  # the request's, where a check that could not be kept is marked for its headers
        self._settings: Settings | None = None
        self._deadline_s: float | None = None  # the deadline the request asked for (admission reckons with it)
        self._admission: ServiceAdmission | None = None

    async def settings(self, options: GuardOptions) -> Settings:
        self._deadline_s = options.deadline_s
        base = self.service.resolver.base
        chosen = {"method": options.method} if options.method and options.method != base.guard.method else {}
        settings = self.service.resolver.resolve(chosen, self.caller)
        if self.chat is not None:
            await checked_conversation(self.chat, settings)
        self._settings = settings
        return settings

    def admit(self, settings: Settings) -> ServiceAdmission:
        """The service's admission (server/admission.py): shed past its load, a run slot, the claims."""
        assert self.caller is not None
        self._admission = admit_check(self.service, self.caller, settings, self._deadline_s)
        return self._admission

    def session(self, settings: Settings) -> AbstractAsyncContextManager[tuple[Resources, list[EventSink]]]:
        return contextlib.nullcontext((self.service.resources(settings), []))  # the pool holds them

    def sinks(self) -> tuple[list[EventSink], Any]:
        calls = call_keeper(self.service)
        return ([calls] if calls else []), calls

    def author(self) -> Revise | None:
        return None if self._revise is None or self._settings is None else self._revise(self._settings)

    async def keep(self, result: GuardResult, calls: Any, first: bool, conversation_id: str | None) -> GuardResult:
        """Keep the finished check (``GET /v1/checks/{id}`` reopens it as kind ``guard``, with its model calls and
        both texts), the request's first under its id (already in its header), filed under its conversation."""
        assert self.caller is not None
        unchecked = [(c.status, c.reason) for c in result.claims if c.status != "checked"]
        # Admitted is not checked: a check that ran past its deadline lowers what the admission lets in.
        if self._admission is not None:
            self._admission.check_ended(result.deadline_missed)
        checker_down = (result.degraded or bool(unchecked)) and bool(self.service.pool.models_down())
        self.service.metrics.guard_check(result.label, result.action_taken, result.tier, unchecked,
                                         checker_down=checker_down, deadline_missed=result.deadline_missed)
        try:
            verdict = result.model_dump(mode="json")
            if self.service.tracing is not None and (trace_id := self.service.tracing.trace_id()) is not None:
                verdict["trace_id"] = trace_id  # from a check a user reports to its trace (server/ops/tracing.py)
            check_id = await asyncio.to_thread(self.service.checks.save, self.caller, "guard", verdict,
                                               calls=calls.calls if calls else None,
                                               calls_cut=calls.cut if calls else 0,
                                               check_id=self.check_id if first else None, conversation=conversation_id)
        except Exception as exc:
            log.warning("could not keep a finished guard check in the state database", exc_info=True)
            said = not_kept(exc)
            if first and self.scope is not None:
                mark_not_kept(self.scope, said)
            return result.with_caution("check_not_kept", said, check_id=None)
        if first and self.scope is not None:
            mark_kept(self.scope)
        return result.model_copy(update={"check_id": check_id})


def door_options(options: GuardOptions | None, request: Request) -> GuardOptions:
    """The request's options with the conversation's id of its header (server/guard/prepare.py)."""
    return with_conversation_header(options or GuardOptions(), request.headers.get(CONVERSATION_HEADER))


@dataclass
class Prepared:
    """A streamed chat request set up and admitted before the upstream is asked (:func:`prepare`)."""

    body: ChatRequest
    upstream: Upstream
    host: ServiceHost
    begun: Begun

    @property
    def settings(self) -> Settings:
        return self.begun.settings


def chat_host(request: Request, service: Service, who: str, body: ChatRequest, upstream: Upstream) -> ServiceHost:
    """The chat route's host: its conversation held to the caller's bounds, ``rewrite`` asking the upstream
    again with the request's own body."""
    return ServiceHost(service, who, check_id_of(request.scope), chat=body,
                       revise=lambda settings: upstream.reviser(body.upstream_body()), scope=request.scope)


@dataclass
class ChatDoor:
    """A chat request as its door read it: the request, the operator's upstream, the host and the call."""

    body: ChatRequest
    upstream: Upstream
    host: ServiceHost
    call: CheckCall


async def read_chat(request: Request, service: Service, who: str) -> ChatDoor | JSONResponse:
    """A chat request read (off the event loop when it is large) into the one call's input, with the operator's
    upstream and the request's host; a guard that is off is a 404, a request that cannot be read a 422."""
    upstream = upstream_for(request.app.state, service.resolver.base)
    if upstream is None:
        return openai_error(404, NO_UPSTREAM, "not_found_error", "guard_disabled")
    try:
        body = await read_chat_request(request)
        # the answer's format is the request's (response_format), never an option a caller could set apart from it
        options = door_options(body.factdebate, request).with_answer_format(body.answer_format)
    except InputError as exc:
        return openai_error(422, str(exc))
    return ChatDoor(body, upstream, chat_host(request, service, who, body, upstream),
                    CheckCall(body.plain_messages(), options))


async def prepare_stream(door: ChatDoor) -> Prepared:
    """A streamed chat request's check begun (the host's ``begin``: options, settings, admission) before the
    upstream is asked; raises as the one call does (:func:`door_error` writes it)."""
    return Prepared(door.body, door.upstream, door.host, await door.host.begin(door.call))


def door_error(exc: Exception) -> JSONResponse | None:
    """How every HTTP door writes what the one call raised, in OpenAI's shape beside ``detail``: a bad option
    or message 422, the host's refusal as it came (503 at the server's limit of checks, with Retry-After), the
    upstream's error as it came, a failed check 502 (a model server unreachable) or 500 (no address: the call
    hid it). None: not one of these (the route's own fault)."""
    if isinstance(exc, InputError | ConfigError):
        return openai_error(422, str(exc))
    if isinstance(exc, HTTPException):
        return openai_http_error(exc)
    if isinstance(exc, UpstreamError):
        return upstream_error(exc)
    if isinstance(exc, FactDebateError):
        return check_failed(exc)
    return None
