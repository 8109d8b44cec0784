"""Where text leaves the service: every answer of every route, plain or streamed (JSON, Server-Sent Events,
JSON lines, plain text), passes util/scrub.py's :func:`~factdebate.util.scrub.scrub_json_text` on its way out,
so no face (a verdict's 500, a stream's error event, the guard's ``degraded_reason``, the chat proxy's
``factdebate`` object, a batch's results, a kept check, the LiteLLM route, ``mcp --http``) can hand a caller a
secret the process holds or an operator's address, whichever part of the code wrote it.

A body sent in one piece (every JSON answer) is scrubbed whole and its ``Content-Length`` set again; a stream
(no length: its headers pass at once) is scrubbed frame by frame, as each frame is written whole
(server/streaming.py's ``sse``, the guard's chunks). A frame alone cannot see a key cut across two, so a text
that a stream writes in pieces (a chat answer's deltas, under every policy and on the overloaded relay) is scrubbed
where its frames are made, over a window that spans them (guard_engine/chunk_scrub.py, util/scrub/window.py); each frame
is scrubbed here all the same. Files (the page, its scripts) and binary bodies pass untouched."""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from factdebate.engine import scrub_json_text

_TEXT = (b"application/json", b"text/event-stream", b"application/x-ndjson", b"application/jsonl", b"text/plain")


def scrubbed_body(body: bytes) -> bytes:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:  # not text: nothing written here by the service
        return body
    cleaned = scrub_json_text(text)
    return body if cleaned == text else cleaned.encode("utf-8")


class ScrubResponses:
    def __init__(self, app: ASGIApp | Any) -> None:  # Any: mcp_http's KeyCheck types its scope as a plain dict
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").startswith("/static/"):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        text = False

        async def send_scrubbed(message: Message) -> None:
            nonlocal start, text
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                text = any(k.lower() == b"content-type" and v.lower().startswith(_TEXT) for k, v in headers)
                if text and any(k.lower() == b"content-length" for k, _ in headers):
                    start = message  # a whole body: held until it comes, as its length may change
                else:
                    await send(message)  # a stream's headers go at once (a client may wait on them)
                return
            if message["type"] != "http.response.body" or not text:
                await send(message)
                return
            body = scrubbed_body(message.get("body", b""))
            if start is not None:
                held, start = start, None
                headers = [(k, v) for k, v in held.get("headers", []) if k.lower() != b"content-length"]
                if not message.get("more_body", False):
                    headers.append((b"content-length", str(len(body)).encode()))
                await send({**held, "headers": headers})
            await send({**message, "body": body})

        await self.app(scope, receive, send_scrubbed)
        if start is not None:  # an answer without a body (a HEAD request's)
            await send(start)
