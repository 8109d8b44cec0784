"""The guard's check id in a header on every reply of its routes (``/v1/chat/completions``, ``/v1/guard/check``,
LiteLLM's guardrail route): plain or streamed,
answer or error, 401 and 413 included. The id is made when the request arrives, before anything is sent, so
a stream's headers carry it too (a stream's check finishes after its headers are gone); the finished check
is kept under it (``GET /v1/checks/{id}``). A client that drops the body's unknown fields (LangChain, the
Vercel AI SDK) still learns which check answered it. A refused request (any status from 400 on) keeps no check:
its reply names the request instead (``X-Request-Id``, for a report to quote) and says why no check is kept
(``X-Check-Not-Kept``), never an id that ``GET /v1/checks/{id}`` would answer 404.

It is an ASGI wrapper rather than the route's own header, because some replies never reach the route: the
body limit's 413, strict JSON's 422 and the key check's 401 are answered before it."""

from __future__ import annotations

import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

GUARD_CHECK_ID_HEADER = "X-Factdebate-Check-Id"
CHAT_PATH = "/v1/chat/completions"
# Every guard route: each reply of each carries the request's id (the one its check is kept under).
GUARD_PATHS = (CHAT_PATH, "/v1/guard/check", "/beta/litellm_basic_guardrail_api")
_SCOPE_KEY = "factdebate_check_id"
_NOT_KEPT_KEY = "factdebate_check_not_kept"
_HEADER = GUARD_CHECK_ID_HEADER.lower().encode("latin-1")
_NOT_KEPT_HEADER = b"x-check-not-kept"
_REQUEST_HEADER = b"x-request-id"
_KEPT_KEY = "factdebate_check_kept"
REFUSED_NOT_KEPT = "the request was refused: no check ran"


def new_check_id() -> str:
    """A check's id: 32 lower-case hex digits, as server/state/check_store.py's ``CHECK_ID`` reads them."""
    return uuid.uuid4().hex


def check_id_of(scope: Scope) -> str:
    """The id :class:`CheckIdHeader` made for this request (a new one where it made none: a test's app)."""
    state = scope.setdefault("state", {})
    check_id: str = state.setdefault(_SCOPE_KEY, new_check_id())
    return check_id


def refused_headers(said: str = REFUSED_NOT_KEPT, request_id: bytes | None = None) -> list[tuple[bytes, bytes]]:
    """A reply that keeps no check: why (``X-Check-Not-Kept``) and the request's id (``X-Request-Id``)."""
    return [(_NOT_KEPT_HEADER, said.encode("latin-1", "replace")),
            (_REQUEST_HEADER, request_id or new_check_id().encode("latin-1"))]


def mark_kept(scope: Scope) -> None:
    """The request's check is kept under its id (``GET /v1/checks/{id}`` answers it)."""
    scope.setdefault("state", {})[_KEPT_KEY] = True


def mark_not_kept(scope: Scope, said: str) -> None:
    """The request's check could not be kept (``said``: why, in a caller's words): a reply whose headers are
    still to go carries ``X-Check-Not-Kept`` instead of an id that ``GET /v1/checks/{id}`` would answer 404."""
    scope.setdefault("state", {})[_NOT_KEPT_KEY] = said


class CheckIdHeader:
    """Makes the request's check id and puts it in its reply's headers (replacing any the route set); a check
    that could not be kept (:func:`mark_not_kept`) before its headers went gets ``X-Check-Not-Kept`` instead.
    A stream's headers go before its check ends: its last chunk then says the check was not kept."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").rstrip("/") not in GUARD_PATHS:
            await self.app(scope, receive, send)
            return
        value = check_id_of(scope).encode("latin-1")

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != _HEADER]
                state = scope.get("state", {})
                said = state.get(_NOT_KEPT_KEY)
                if said is None and message.get("status", 200) >= 400 and not state.get(_KEPT_KEY):
                    said = REFUSED_NOT_KEPT
                added = refused_headers(said, value) if said else [(_HEADER, value)]
                message = {**message, "headers": [*headers, *added]}
            await send(message)

        await self.app(scope, receive, send_with_id)
