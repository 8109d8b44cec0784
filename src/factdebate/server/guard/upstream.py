"""The guard's way to the operator's chat model: a Chat Completions request passed on to ``guard.upstream``
(with the key from ``guard.upstream_key_env``, never the caller's), its answer read whole or as it streams,
and the reviser ``rewrite`` asks for.

Everything that reaches the upstream is built here from the checked request, so no header of the caller's
(its ``Authorization`` above all) can travel on. An upstream that answers with an error has it passed back
as it came, in OpenAI's error shape, with its ``Retry-After`` (a client waits as long as the upstream asked);
one that cannot be reached is a ``502`` in that shape. Neither tells the caller where the upstream is nor
what it holds: addresses, host names and key-shaped strings in its texts are left out (:func:`scrubbed`);
the server's log keeps them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from factdebate.core.errors import FactDebateError
from factdebate.core.observe import watched
from factdebate.guard.revision import revision_request
from factdebate.guard.types import GuardClaim
from factdebate.util.redact import redact_url
from factdebate.util.scrub import remember_endpoints, remember_secrets, scrub

MAX_EVENT_BYTES = 4 * 1024 * 1024  # one event of the upstream's stream (a chunk is a few hundred bytes)
MAX_ERROR_CHARS = 2000  # of each text in an upstream's error: enough to say what failed
OFF_LOOP_MESSAGES = 200  # a conversation longer than this is written (as JSON) off the event loop
log = logging.getLogger("factdebate.server")


class UpstreamError(FactDebateError):
    """The upstream's error (``status`` and an OpenAI-shaped ``body``), or ours about reaching it. A
    :class:`FactDebateError`, so that a reviser that fails this way leaves ``rewrite``'s answer flagged with why
    (guard/policy.py) rather than failing the request."""

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(body.get("error", {}).get("message", "upstream error"))
        self.status = status
        self.body = body
        self.headers = headers or {}  # what of the upstream's headers the caller gets too (Retry-After)


def error_body(message: str, kind: str = "upstream_error", code: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


# The upstream's headers a caller needs too: how long to wait before asking again.
_KEPT_HEADERS = ("retry-after", "retry-after-ms")
_HEADER_VALUE = re.compile(r"^[A-Za-z0-9 ,:.\-]{1,64}$")


def scrubbed(text: str) -> str:
    """An upstream's error text as the caller reads it: no address (a proxy's error names the server behind
    it), no host name or IP, no secret the process holds, no key-shaped string (an error that quotes the key it
    was sent): util/scrub.py."""
    return scrub(text)


def without_endpoints(value: Any) -> Any:
    """Every text in an upstream's error :func:`scrubbed`, since where the operator's servers are, and the
    keys they hold, are the operator's to know."""
    if isinstance(value, str):
        return scrubbed(value[:MAX_ERROR_CHARS])
    if isinstance(value, dict):
        return {key: without_endpoints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_endpoints(item) for item in value]
    return value


def passed_on_error(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> UpstreamError:
    """The upstream's own error (a response's body, a stream's error chunk) as the caller gets it; the server's
    log keeps it as it came when something was left out."""
    shown = without_endpoints(body)
    if shown != body:
        log.warning("the guard's upstream model answered %s: %s", status, json.dumps(body)[:1000])
    return UpstreamError(status, shown, headers)


def kept_headers(response: httpx.Response) -> dict[str, str]:
    """The upstream's ``Retry-After`` (and ``retry-after-ms``) when it sent one of a plain, short form."""
    return {name.title() if name == "retry-after" else name: value for name in _KEPT_HEADERS
            if (value := response.headers.get(name, "").strip()) and _HEADER_VALUE.fullmatch(value)}


def _passed_on(response: httpx.Response, body: bytes) -> UpstreamError:
    """The upstream's own error, kept as it sent it when it is already OpenAI-shaped."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = None
    headers = kept_headers(response)
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return passed_on_error(response.status_code, data, headers)
    text = body.decode("utf-8", "replace").strip()[:500]
    return passed_on_error(response.status_code, error_body(
        f"the upstream model answered {response.status_code}" + (f": {text}" if text else "")), headers)


def _unsendable(exc: Exception) -> UpstreamError:
    """A request the upstream cannot be sent (a value JSON cannot hold): the caller's, so a 422."""
    return UpstreamError(422, error_body(f"invalid request: it cannot be sent on as JSON ({type(exc).__name__})",
                                         "invalid_request_error", "invalid_json"))


def _unreachable(base_url: str, exc: Exception) -> UpstreamError:
    """The caller is told what failed; where the upstream is, the server's log."""
    log.warning("the guard's upstream model at %s could not be reached: %s: %s", redact_url(base_url),
                type(exc).__name__, exc)
    return UpstreamError(502, error_body(f"the operator's upstream model could not be reached ({type(exc).__name__})",
                                         code="upstream_unreachable"))


@dataclass
class SSEEvent:
    """One Server-Sent Event of the upstream's stream: its bytes as they came (to pass on untouched) and its
    data (``None`` for comments; ``"[DONE]"`` for the end)."""

    raw: bytes
    data: str | None

    def json(self) -> dict[str, Any] | None:
        if self.data is None or self.data == "[DONE]":
            return None
        try:
            value = json.loads(self.data)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


def _event(raw: bytes) -> SSEEvent:
    lines = raw.decode("utf-8", "replace").splitlines()
    data = [line[5:].removeprefix(" ") for line in lines if line.startswith("data:")]
    return SSEEvent(raw, "\n".join(data) if data else None)


async def sse_events(chunks: AsyncIterator[bytes], limit: int = MAX_EVENT_BYTES) -> AsyncIterator[SSEEvent]:
    """Each event of an SSE byte stream as soon as its blank line has arrived. An event longer than ``limit``
    bytes is an :class:`UpstreamError`: an upstream that never ends its line cannot fill the memory."""
    buffer = b""
    searched = 0  # the buffer before this offset holds no blank line
    async for chunk in chunks:
        buffer += chunk.replace(b"\r\n", b"\n")
        while (end := buffer.find(b"\n\n", searched)) >= 0:
            raw, buffer, searched = buffer[:end + 2], buffer[end + 2:], 0
            if raw.strip():
                yield _event(raw)
        searched = max(0, len(buffer) - 1)
        if len(buffer) > limit:
            raise UpstreamError(502, error_body(f"an event of the upstream model's stream is longer than {limit} "
                                                "bytes", code="upstream_event_too_large"))
    if buffer.strip():
        yield _event(buffer + b"\n\n")


class Upstream:
    """One operator upstream: its base URL (ending in ``/v1``), its key (or none) and a pooled client."""

    def __init__(self, base_url: str, key: str | None, timeout: float,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        remember_endpoints([self.base_url])  # what no caller may read of it (util/scrub.py)
        remember_secrets([key] if key else [])
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.client = httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
                                        transport=transport, follow_redirects=False, trust_env=False)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def _request(self, body: dict[str, Any]) -> httpx.Request:
        """The request to the upstream; a long conversation's JSON is written in a worker thread (50,000
        messages take most of a second, which on the event loop would hold every other request)."""
        try:
            if len(body.get("messages") or ()) <= OFF_LOOP_MESSAGES:
                return self.client.build_request("POST", f"{self.base_url}/chat/completions", json=body)
            return await asyncio.to_thread(self.client.build_request, "POST", f"{self.base_url}/chat/completions",
                                           json=body)
        except (TypeError, ValueError) as exc:
            raise _unsendable(exc) from exc

    async def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """The upstream's whole answer to ``body`` (sent with ``stream`` false)."""
        request = await self._request({**body, "stream": False})
        with watched("model_call", model="upstream", role="upstream"):  # metrics and traces (core/observe.py)
            try:
                response = await self.client.send(request)
            except httpx.HTTPError as exc:
                raise _unreachable(self.base_url, exc) from exc
            if response.status_code >= 400:
                raise _passed_on(response, response.content)
        try:
            data = response.json()
        except ValueError as exc:
            raise UpstreamError(502, error_body("the upstream model's answer is not JSON")) from exc
        if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
            raise UpstreamError(502, error_body("the upstream model's answer has no choices"))
        return data

    async def stream(self, body: dict[str, Any]) -> AsyncGenerator[SSEEvent, None]:
        """The upstream's stream, event by event as they arrive. An error before the first event raises
        :class:`UpstreamError`; the caller has then sent nothing yet."""
        request = await self._request({**body, "stream": True})
        with watched("model_call", model="upstream", role="upstream"):  # to its headers (core/observe.py)
            try:
                response = await self.client.send(request, stream=True)
            except httpx.HTTPError as exc:
                raise _unreachable(self.base_url, exc) from exc
        finished = False
        try:
            if response.status_code >= 400:
                raise _passed_on(response, await _head_of(response))
            async for event in sse_events(response.aiter_bytes()):
                yield event
            finished = True
        except httpx.HTTPError as exc:
            raise _unreachable(self.base_url, exc) from exc
        finally:
            if not finished:
                await _hang_up(response)
            await response.aclose()

    def reviser(self, body: dict[str, Any]) -> Any:
        """The ``rewrite`` policy's reviser for the conversation ``body`` (a :data:`factdebate.guard.Reviser`):
        the same model, asked to correct its answer given what the check found."""

        async def revise(answer: str, refuted: list[GuardClaim]) -> str:
            data = await self.complete(revision_request(body, answer, refuted))  # guard/revision.py's words
            message = (data["choices"][0] or {}).get("message") or {}
            content = message.get("content")
            if not isinstance(content, str) or not content.strip():
                raise UpstreamError(502, error_body("the upstream model gave no revised answer"))
            return content

        return revise


async def _head_of(response: httpx.Response, limit: int = 64 * 1024) -> bytes:
    """The first ``limit`` bytes of an error's body: enough to pass it on, whatever the upstream sends."""
    head = b""
    async for chunk in response.aiter_bytes():
        head += chunk
        if len(head) >= limit:
            break
    return head[:limit]


async def _hang_up(response: httpx.Response) -> None:
    """Close the connection of a stream left before its end, so that the upstream stops writing (and
    spending). Closing the response alone left the connection open when a cancelled read had been under way
    (seen with httpx 0.28 inside the service: the model went on writing the whole answer)."""
    stream = response.extensions.get("network_stream")
    if stream is not None:
        with contextlib.suppress(Exception):  # already closed, or closing failed: nothing more to stop
            await stream.aclose()
