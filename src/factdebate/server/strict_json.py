"""Request bodies are strict JSON: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's ``json`` reads but no
other JSON reader does, and which no JSON encoder writes back: httpx refused to send such a guard request on,
and the stream waited for ever) are refused with a 422 before any route sees them.

Plain ASGI middleware, inside the body-size limit: the body is read whole (it is bounded), checked, and
handed on unchanged. Every route is covered, whatever it reads the body with (FastAPI's models, a route's own
``request.json()``, the JSON lines of a batch, one line at a time). The check costs a byte search: only a
body that holds one of the three words anywhere is parsed here (strictly), and a body that is not JSON at
all is left to its route, which says what is wrong with it in its own words. JSON nested too deeply for
Python's reader is a 422 too: here when this parse meets it, otherwise where a route's reading fails
(server/app.py)."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_FORMS = (b"multipart/form-data", b"application/x-www-form-urlencoded")
TOO_DEEP = "it nests lists or objects too deeply to be read"
_EXTRA = "several JSON texts"


class NotStrictJSON(ValueError):
    """A body that only Python's lenient reading accepts."""


def _refuse(name: str) -> Any:
    raise NotStrictJSON(f"{name} is not a number JSON can hold (send null, or the value as a string)")


def _problem(text: bytes) -> str | None:
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
    except ValueError:  # not UTF-8 text: the route says so
        return None
    return None


def strict_problem(body: bytes) -> str | None:
    """Why ``body`` is not strict JSON, or None. A body of JSON lines (a batch) is checked line by line."""
    problem = _problem(body)
    if problem != _EXTRA:
        return problem
    for number, line in enumerate(body.splitlines(), 1):
        if line.strip() and (problem := _problem(line)) not in (None, _EXTRA):
            return f"line {number}: {problem}"
    return None


def refusal(problem: str) -> bytes:
    """The 422's body: this API's ``detail`` and OpenAI's ``error`` object, so both kinds of client read it."""
    message = f"invalid request: the body is not strict JSON: {problem}"
    return json.dumps({"detail": message, "error": {"message": message, "type": "invalid_request_error",
                                                    "param": None, "code": "invalid_json"}}).encode()


class StrictJSONMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("POST", "PUT", "PATCH") or _is_form(scope):
            await self.app(scope, receive, send)
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
        if (b"NaN" in body or b"Infinity" in body) and (problem := strict_problem(body)) is not None:
            await _reject(send, problem)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the disconnect a stream listens for

        await self.app(scope, replay, send)


def _is_form(scope: Scope) -> bool:
    return any(name == b"content-type" and value.lower().startswith(_FORMS) for name, value in scope.get("headers", []))


async def _reject(send: Send, problem: str) -> None:
    body = refusal(problem)
    await send({"type": "http.response.start", "status": 422,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
