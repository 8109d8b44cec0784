"""Request bodies are strict JSON: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's ``json`` reads but no
other JSON reader does, and which no JSON encoder writes back: httpx refuses to send such a guard request on,
and the stream would wait for ever) and text in any encoding but UTF-8 (Python's ``json`` reads UTF-16 and UTF-32
bytes as readily) are refused with a 422 before any route sees them; so is a request with more than one
``Content-Type``.

Plain ASGI middleware, inside the body-size limit: the body is read whole (it is bounded), checked, and
handed on unchanged. Every route is covered, whatever it reads the body with (FastAPI's models, a route's own
``request.json()``, the JSON lines of a batch, one line at a time), and whatever ``Content-Type`` it says (no
route takes a form, and a route that reads the body itself never looks). The check is made on the parsed value
(a parse of its own, in a worker thread for a large body), not by searching the bytes: a byte search was blind
to the same words in UTF-16. A body that is not JSON at all is left to its route, which says what is wrong with
it in its own words, and so is a number too large for a float (``1e400``, read as infinity), which the routes
refuse naming its field. JSON nested too deeply for Python's reader is a 422 too: here when this parse meets
it, otherwise where a route's reading fails (server/app.py), and only then: the middleware keeps the body it
read in the request's scope, so that a ``RecursionError`` met elsewhere (a model's answer nested past the
parser) is never taken for the caller's (:func:`body_nests_deeply`).

An answer whose content may hold what no UTF-8 JSON carries (a lone surrogate a request or an upstream sent, a
NaN) goes out as :class:`SafeJSONResponse`: written as the library writes a record (``dumps_record``: such text
replaced, a NaN or an infinity null), so the answer itself never fails to encode."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from factdebate.util.textsafe import dumps_record

TOO_DEEP = "it nests lists or objects too deeply to be read"
_EXTRA = "several JSON texts"
NOT_UTF8 = "it is not UTF-8 text (JSON is exchanged as UTF-8, without a byte-order mark)"
SEVERAL_TYPES = "it comes with more than one Content-Type header"
OFF_LOOP_BYTES = 256 * 1024  # a larger body is parsed in a worker thread: the loop serves others meanwhile
BODY_SCOPE_KEY = "factdebate.body"  # the body this middleware read, kept in the request's scope
# Levels past anything a route accepts (an input value nests at most 32, a record 64) and well short of the
# thousand or so where Python's reader gives up: a body this deep may be what a route's reading failed on.
DEEP_BODY = 100
# A string, or what is left of an unclosed one: the closing quote is optional, so no match ever backtracks.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")


class SafeJSONResponse(JSONResponse):
    """A JSON answer that always encodes: the bytes :class:`JSONResponse` writes, with text no UTF-8 answer can
    carry replaced and a NaN or an infinity null."""

    def render(self, content: Any) -> bytes:
        return dumps_record(content, separators=(",", ":")).encode("utf-8")


class NotStrictJSON(ValueError):
    """A body that only Python's lenient reading accepts."""


def _refuse(name: str) -> Any:
    raise NotStrictJSON(f"{name} is not a number JSON can hold (send null, or the value as a string)")


def _problem(text: str) -> str | None:
    """Why one JSON text is not strict JSON, or None (also when it is no JSON at all: not ours to say, except
    for several JSON texts in a row, said as ``Extra data``, which the caller checks line by line)."""
    try:
        json.loads(text, parse_constant=_refuse)
    except NotStrictJSON as exc:
        return str(exc)
    except RecursionError:
        return TOO_DEEP
    except json.JSONDecodeError as exc:
        return _EXTRA if exc.msg == "Extra data" else None
    return None


def strict_problem(body: bytes) -> str | None:
    """Why ``body`` is not strict JSON, or None. A body of JSON lines (a batch) is checked line by line."""
    if not body.strip():
        return None
    try:
        # json.detect_encoding is how Python's reader of bytes picks UTF-16/32 (by the NULs) or a BOM
        if json.detect_encoding(body) != "utf-8":
            return NOT_UTF8
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return NOT_UTF8
    problem = _problem(text)
    if problem != _EXTRA:
        return problem
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and (problem := _problem(line)) not in (None, _EXTRA):
            return f"line {number}: {problem}"
    return None


def nests_past(body: bytes, levels: int) -> bool:
    """Whether ``body`` nests lists and objects more than ``levels`` deep, counted over its brackets outside
    strings (no parse: it is asked where a parse failed). Linear in the body, and it stops where it knows."""
    depth = 0
    for byte in _NOT_BRACKET.sub(b"", _STRING.sub(b"", body)):
        depth += 1 if byte in b"[{" else -1
        if depth > levels:
            return True
    return False


def body_nests_deeply(scope: Scope) -> bool:
    """Whether the request's own body nests deeply enough for a ``RecursionError`` to be the caller's: the
    only case the service answers one with a 422. Any other is a fault of the service's own."""
    body = scope.get(BODY_SCOPE_KEY)
    return isinstance(body, bytes) and nests_past(body, DEEP_BODY)


def refusal(problem: str) -> bytes:
    """The 422's body: this API's ``detail`` and OpenAI's ``error`` object, so both kinds of client read it."""
    message = f"invalid request: the body is not strict JSON: {problem}"
    return json.dumps({"detail": message, "error": {"message": message, "type": "invalid_request_error",
                                                    "param": None, "code": "invalid_json"}}).encode()


class StrictJSONMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        if sum(name.lower() == b"content-type" for name, _ in scope.get("headers", [])) > 1:
            await _reject(send, SEVERAL_TYPES)  # which one a reader believes is the reader's guess
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left while sending: nothing to answer
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        problem = strict_problem(body) if len(body) <= OFF_LOOP_BYTES else await asyncio.to_thread(strict_problem,
                                                                                                   body)
        if problem is not None:
            await _reject(send, problem)
            return
        scope[BODY_SCOPE_KEY] = body  # the same bytes the route reads: no copy
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the disconnect a stream listens for

        await self.app(scope, replay, send)


async def _reject(send: Send, problem: str) -> None:
    body = refusal(problem)
    await send({"type": "http.response.start", "status": 422,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
