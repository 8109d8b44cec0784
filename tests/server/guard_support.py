"""A scripted OpenAI-compatible chat model for the guard's tests and benchmark: a small FastAPI app that
answers ``POST /v1/chat/completions`` with a fixed answer, whole or streamed word by word, after a fixed
latency, and records what it was sent (headers included)."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from factdebate.guard_engine.types import GuardClaim

ANSWER = ("Hi! Great question. Paris is the capital of France. The Eiffel Tower is in Rome. "
          "I think Paris is lovely in spring.")
REVISED = "Paris is the capital of France. The Eiffel Tower is in Paris."
REVISE_MARK = "A fact check of your last answer"


@dataclass
class Upstream:
    """What the scripted model answers and what it saw."""

    answer: str = ANSWER
    latency: float = 0.0  # seconds before the first token (or the whole answer)
    token_delay: float = 0.0  # seconds between streamed tokens
    tool_calls: list[dict[str, Any]] | None = None
    fail: tuple[int, dict[str, Any]] | None = None  # (status, body) to answer instead
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    revise: Callable[[list[dict[str, Any]]], str] = lambda messages: REVISED
    sent: int = 0  # stream chunks written so far
    cut: threading.Event = field(default_factory=threading.Event)  # a stream closed before its end (a hang-up)
    role_chunk: bool = True  # stream a first chunk with the role and no text (False: the first word comes with it)
    chars: int = 0  # stream this many characters a chunk (0: a word a chunk)

    def reply_for(self, body: dict[str, Any]) -> str:
        last = body["messages"][-1]
        if last.get("role") == "user" and REVISE_MARK in str(last.get("content")):
            return self.revise(body["messages"])
        return self.answer


def tokens(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text) or [text]


def upstream_app(upstream: Upstream) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions", response_model=None)
    async def complete(request: Request) -> JSONResponse | StreamingResponse:
        body = await request.json()
        upstream.requests.append(body)
        upstream.headers.append({k.lower(): v for k, v in request.headers.items()})
        if upstream.fail is not None:
            return JSONResponse(upstream.fail[1], status_code=upstream.fail[0])
        text = upstream.reply_for(body)
        revising = text is not upstream.answer
        head = {"id": "chatcmpl-scripted", "created": int(time.time()), "model": body.get("model", "scripted")}
        calls = None if revising else upstream.tool_calls
        if upstream.latency:
            await asyncio.sleep(upstream.latency)
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = calls
            # n answers (the same one each time): a guard must check every choice it passes on
            return JSONResponse({**head, "object": "chat.completion", "choices": [{
                "index": index, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
                for index in range(int(body.get("n") or 1))],
                "usage": {"prompt_tokens": 10, "completion_tokens": len(tokens(text)), "total_tokens": 20}})
        return StreamingResponse(_chunks(upstream, head, text, calls), media_type="text/event-stream")

    return app


async def _chunks(upstream: Upstream, head: dict[str, Any], text: str,
                  calls: list[dict[str, Any]] | None) -> AsyncIterator[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        upstream.sent += 1
        data = {**head, "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(data)}\n\n".encode()

    ended = False
    try:
        if upstream.role_chunk:
            yield chunk({"role": "assistant", "content": ""})
        pieces = [text[at:at + upstream.chars] for at in range(0, len(text), upstream.chars)] \
            if upstream.chars else tokens(text) if text else []
        for number, token in enumerate(pieces):
            if number and upstream.token_delay:
                await asyncio.sleep(upstream.token_delay)
            yield chunk({"content": token} if number or upstream.role_chunk
                        else {"role": "assistant", "content": token})
        for index, call in enumerate(calls or []):
            yield chunk({"tool_calls": [{"index": index, **call}]})
        yield chunk({}, "tool_calls" if calls else "stop")
        yield b"data: [DONE]\n\n"
        ended = True
    finally:
        if not ended:
            upstream.cut.set()


def words_of(claim: GuardClaim | dict[str, Any], answer: str) -> str:
    """The slice of ``answer`` a claim's span names."""
    span = claim.span if isinstance(claim, GuardClaim) else claim["span"]
    assert span is not None, "the claim was not placed (span null)"
    start, end = (span.start, span.end) if not isinstance(span, dict) else (span["start"], span["end"])
    return answer[start:end]


def main() -> None:
    """The scripted model as a server of its own (benchmarks/guard.py --processes)."""
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description="a scripted OpenAI-compatible chat model")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--answer", default=ANSWER)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--token-delay", type=float, default=0.0)
    args = parser.parse_args()
    upstream = Upstream(answer=args.answer, latency=args.latency, token_delay=args.token_delay)
    uvicorn.run(upstream_app(upstream), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()


def scripted_checker_app(tmp_path: Any, keys: list[str], **fields: Any) -> FastAPI:
    """The service with scripted checker models (two claims: Paris, true; the Eiffel Tower in Rome, false), its
    state in ``tmp_path``, no rate limit; ``fields`` override the service config. Imported here, not at the top:
    benchmarks/guard.py runs this module as a server of its own, without the tests' packages."""
    from factdebate.llm.scripted import ScriptedBackend
    from factdebate.server.app import create_app
    from tests.guard.support import script
    from tests.server.conftest import PLAIN, offline_build

    backend = ScriptedBackend(script(claims=["Paris is the capital of France.", "The Eiffel Tower is in Rome."]))
    return create_app(**{"api_keys": keys, "defaults": PLAIN, "db_path": tmp_path / "service.sqlite",
                         "build": lambda settings: offline_build(settings, backend),
                         "rate_limit_per_minute": 0, **fields})
