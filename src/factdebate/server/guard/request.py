"""The chat guard's request as it comes over HTTP: its body read (off the event loop when it is large) into
the wire module's :class:`~factdebate.server.guard.chat_request.ChatRequest` (the format and its checks are
server/guard/chat_request.py's), and the OpenAPI schema of a route that reads its body itself."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from factdebate.server.guard.chat_request import ChatRequest
from factdebate.server.strict_json import TOO_DEEP
from factdebate.util.errors import InputError

OFF_LOOP_BYTES = 64 * 1024  # a larger body is read and checked in a worker thread, never on the event loop
NOT_AN_OBJECT = "invalid request: the body must be a JSON object (an OpenAI chat request)"

T = TypeVar("T")


def body_schema(model: type[BaseModel], path: str) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` of a route that reads its body itself (to answer its errors in OpenAI's
    shape, after the key check): ``model``'s schema inline, its nested models under its own ``$defs`` and
    referred to there (by JSON pointer from the document's root), so it resolves without the components."""
    pointer = "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/post/requestBody/content/" \
        "application~1json/schema/$defs/{model}"
    return {"requestBody": {"required": True, "content": {"application/json": {
        "schema": model.model_json_schema(ref_template=pointer)}}}}


async def read_chat_request(request: Request) -> ChatRequest:
    """The request's body as a :class:`ChatRequest`, or an ``InputError`` saying what is wrong with it. A large
    body (a conversation of megabytes, a long tools list) is read in a worker thread: reading and checking
    it takes a second or more, which on the event loop would hold every other request (/v1/health too)."""
    body = await request.body()
    if len(body) <= OFF_LOOP_BYTES:
        return parse_chat_request(body)
    return await asyncio.to_thread(parse_chat_request, body)


async def read_body(request: Request, read: Callable[[bytes], T]) -> T:
    """``read(body)`` of the request's body; in a worker thread when the body is large (a long conversation
    takes seconds to read, which on the event loop would hold every other request)."""
    body = await request.body()
    return read(body) if len(body) <= OFF_LOOP_BYTES else await asyncio.to_thread(read, body)


def parse_chat_request(body: bytes) -> ChatRequest:
    try:
        raw = json.loads(body)
    except RecursionError:
        raise InputError(f"invalid request: the body is not strict JSON: {TOO_DEEP}") from None
    except ValueError:
        raise InputError(NOT_AN_OBJECT) from None
    if not isinstance(raw, dict):
        raise InputError(NOT_AN_OBJECT)
    try:
        return ChatRequest.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}".removeprefix(": ")
                             for e in exc.errors())
        raise InputError(f"invalid request: {problems}") from None


