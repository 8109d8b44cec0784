"""Request body limit as plain ASGI middleware, so it also catches chunked uploads that declare no length
and rejects oversized ones before the framework buffers them."""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(HTTPException):
    """An HTTPException so FastAPI's body parsing passes it through as a 413 instead of a 400."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, _message(limit))


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope.get("path", ""))
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _reject(send, limit)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        # `send` is passed through untouched: streams write many chunks, and every routed body is read
        # before its response starts, so an overflow can only surface while nothing has been sent.
        try:
            await self.app(scope, counting_receive, send)
        except BodyTooLarge:
            await _reject(send, limit)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _reject(send: Send, limit: int) -> None:
    # This API's detail and OpenAI's error object, so the guard's OpenAI clients read it too (as strict_json.py's 422)
    message = _message(limit)
    body = json.dumps({"detail": message, "error": {"message": message, "type": "invalid_request_error",
                                                    "param": None, "code": "request_too_large"}}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def _message(limit: int) -> str:
    return f"request body too large: the limit is {limit} bytes"
