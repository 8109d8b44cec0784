"""A stand-in upstream: an OpenAI-compatible chat model that answers every request with the text it was given,
whole or streamed a word a chunk (``POST /v1/chat/completions``), and lists one model (``GET /v1/models``).

``factdebate stand-in-upstream`` serves it so that the chat proxy can be tried with no model and no key (the
offline quick start of docs/ways/proxy.md); the guard's tests and benchmarks serve it with their own knobs (a
latency, a failure, tool calls, a revision) and read what it was sent."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

MODEL = "stand-in"  # the one model GET /v1/models lists; a request's own "model" is echoed back as sent


@dataclass
class StandIn:
    """What the stand-in answers and what it saw."""

    answer: str
    latency: float = 0.0  # seconds before the first token (or the whole answer)
    token_delay: float = 0.0  # seconds between streamed tokens
    tool_calls: list[dict[str, Any]] | None = None
    fail: tuple[int, dict[str, Any]] | None = None  # (status, body) to answer instead
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    sent: int = 0  # stream chunks written so far
    cut: threading.Event = field(default_factory=threading.Event)  # a stream closed before its end (a hang-up)
    role_chunk: bool = True  # stream a first chunk with the role and no text (False: the first word comes with it)
    chars: int = 0  # stream this many characters a chunk (0: a word a chunk)

    def revision_for(self, messages: list[dict[str, Any]]) -> str | None:
        """Another answer than ``answer`` for this conversation, or None: the stand-in says the same each time
        (a subclass answers a request to revise with a revision)."""
        return None


def tokens(text: str) -> list[str]:
    """The words of ``text``, each with the spaces after it, as a model streams them."""
    return re.findall(r"\S+\s*", text) or [text]


def _error(status: int, message: str) -> JSONResponse:
    """An error in OpenAI's shape, which an OpenAI client reads as such."""
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error", "code": None}},
                        status_code=status)


def stand_in_app(stand_in: StandIn) -> FastAPI:
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "factdebate"}]}

    @app.post("/v1/chat/completions", response_model=None)
    async def complete(request: Request) -> JSONResponse | StreamingResponse:
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "the body is not JSON: send a chat completion request")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return _error(400, "the request has no messages: send a chat completion request")
        stand_in.requests.append(body)
        stand_in.headers.append({k.lower(): v for k, v in request.headers.items()})
        if stand_in.fail is not None:
            return JSONResponse(stand_in.fail[1], status_code=stand_in.fail[0])
        revision = stand_in.revision_for(body["messages"])
        text = stand_in.answer if revision is None else revision
        head = {"id": "chatcmpl-stand-in", "created": int(time.time()), "model": body.get("model", MODEL)}
        calls = None if revision is not None else stand_in.tool_calls  # a revision is text alone
        if stand_in.latency:
            await asyncio.sleep(stand_in.latency)
        if not body.get("stream"):
            return JSONResponse(_completion(head, text, calls, int(body.get("n") or 1)))
        return StreamingResponse(_chunks(stand_in, head, text, calls), media_type="text/event-stream")

    return app


def _completion(head: dict[str, Any], text: str, calls: list[dict[str, Any]] | None, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    # n answers (the same one each time): a guard must check every choice it passes on
    return {**head, "object": "chat.completion", "choices": [{
        "index": index, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        for index in range(n)],
        "usage": {"prompt_tokens": 10, "completion_tokens": len(tokens(text)), "total_tokens": 20}}


async def _chunks(stand_in: StandIn, head: dict[str, Any], text: str,
                  calls: list[dict[str, Any]] | None) -> AsyncIterator[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        stand_in.sent += 1
        data = {**head, "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(data)}\n\n".encode()

    ended = False
    try:
        if stand_in.role_chunk:
            yield chunk({"role": "assistant", "content": ""})
        pieces = [text[at:at + stand_in.chars] for at in range(0, len(text), stand_in.chars)] \
            if stand_in.chars else tokens(text) if text else []
        for number, token in enumerate(pieces):
            if number and stand_in.token_delay:
                await asyncio.sleep(stand_in.token_delay)
            yield chunk({"content": token} if number or stand_in.role_chunk
                        else {"role": "assistant", "content": token})
        for index, call in enumerate(calls or []):
            yield chunk({"tool_calls": [{"index": index, **call}]})
        yield chunk({}, "tool_calls" if calls else "stop")
        yield b"data: [DONE]\n\n"
        ended = True
    finally:
        if not ended:
            stand_in.cut.set()
