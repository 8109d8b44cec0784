"""Where text leaves the service: every answer of every route, plain or streamed (JSON, Server-Sent Events,
JSON lines, plain text), passes :func:`scrub_json_text` (util/scrub's scrub, for what a caller reads) on its way out,
so no face (a verdict's 500, a stream's error event, the guard's ``degraded_reason``, the chat proxy's
``factdebate`` object, a batch's results, a kept check, the LiteLLM route, ``mcp --http``) can hand a caller a
secret the process holds or an operator's address, whichever part of the code wrote it.

A body sent in one piece (every JSON answer) is scrubbed whole and its ``Content-Length`` set again; a stream
(no length: its headers pass at once) is scrubbed frame by frame, as each frame is written whole
(server/streaming.py's ``sse``, the guard's chunks). A frame alone cannot see a key cut across two, so a text
that a stream writes in pieces (a chat answer's deltas, under every policy and on the overloaded relay) is scrubbed
where its frames are made, over a window that spans them (guard/openai_chat/chunk_scrub.py, util/scrub/window.py);
each frame is scrubbed here all the same, whatever its bytes (one that is not UTF-8 hides no key beside it), and
a half of a held key in a frame is masked when its other half was in an earlier frame of the same stream (the
frames' :class:`~factdebate.util.scrub.SeenHalves`: a frame alone masks a half only beside its other half). Files
(the page, its scripts) and bodies of other types (binary) pass untouched."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from factdebate.util.scrub import SeenHalves, held_halves, hide_endpoints, scrub_known

_TEXT = (b"application/json", b"text/event-stream", b"application/x-ndjson", b"application/jsonl", b"text/plain")


def scrubbed_body(body: bytes, seen: SeenHalves | None = None) -> bytes:
    """``body`` scrubbed whatever its bytes: read losslessly (a byte that is not UTF-8 stands for itself, as
    ``surrogateescape`` keeps it), so one stray byte beside a key hides nothing (the upstream's bytes relayed in
    a stream may be anything), and a body holding nothing of the operator's comes back byte for byte.
    ``seen``: the halves of keys the stream's earlier frames held (``body`` is one of its frames)."""
    text = body.decode("utf-8", "surrogateescape")
    cleaned = scrub_json_text(text)
    if seen is not None:
        halves = held_halves()
        seen.see(text, halves)
        cleaned = seen.mask(cleaned, halves)
    return body if cleaned == text else cleaned.encode("utf-8", "surrogateescape")


def scrub_value(value: Any, *, strong: bool = False) -> Any:
    """A copy of a JSON-like value with every string scrubbed: ``hide_endpoints`` for the fields that say what
    went wrong (:data:`ERROR_FIELDS`) and everything in them, :func:`scrub_json_text` for the others (a text that
    holds serialized JSON, as an MCP tool's answer does, has its error fields scrubbed too)."""
    if isinstance(value, str):
        return hide_endpoints(value) if strong else scrub_json_text(value)
    if isinstance(value, Mapping):
        return {k: scrub_value(v, strong=strong or k in ERROR_FIELDS) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_value(v, strong=strong) for v in value]
    return value


# The JSON fields that say what went wrong, on every face: the API's "detail", OpenAI's "error"/"message", an
# event's "error", the guard's "degraded_reason", a batch line's "error".
ERROR_FIELDS = frozenset({"error", "detail", "message", "degraded_reason", "warnings", "start_error"})
_ERROR_FIELD = re.compile(r'"(?:error|detail|message|degraded_reason|start_error)"\s*:\s*"((?:[^"\\]|\\.)*)"')


def scrub_json_text(text: str) -> str:
    """Serialized JSON (a body, an SSE frame, JSON lines) as it leaves the process: ``scrub_known`` over all of
    it, and ``hide_endpoints`` on the string value of each field that says what went wrong. Works on the text,
    so a body is neither parsed nor rewritten when nothing in it is the operator's."""
    text = scrub_known(text)
    return _ERROR_FIELD.sub(_scrubbed_field, text)


def _scrubbed_field(match: re.Match[str]) -> str:
    inner = match.group(1)
    cleaned = hide_endpoints(inner)
    if cleaned == inner:
        return match.group()
    start, end = match.span(1)
    whole = match.group()
    offset = match.start()
    return whole[:start - offset] + cleaned + whole[end - offset:]


class ScrubResponses:
    def __init__(self, app: ASGIApp | Any) -> None:  # Any: mcp_http's KeyCheck types its scope as a plain dict
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").startswith("/static/"):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        text = False
        seen = SeenHalves()  # the halves of keys this answer's pieces (a stream's frames) held so far

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
            body = scrubbed_body(message.get("body", b""), seen)
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
