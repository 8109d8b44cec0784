"""The guard's way to the operator's chat model: a Chat Completions request passed on to ``guard.upstream``
(with the key from ``guard.upstream_key_env``, never the caller's), its answer read whole or as it streams,
and the reviser ``rewrite`` asks for.

Everything that reaches the upstream is built here from the checked request, so no header of the caller's
(its ``Authorization`` above all) can travel on. An upstream that answers with an error has it passed back
as it came, in OpenAI's error shape; one that cannot be reached is a ``502`` in that shape. Neither tells the
caller where the upstream is (``hide_endpoints``): the server's log does."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from factdebate.core.errors import FactDebateError
from factdebate.guard.types import GuardClaim
from factdebate.util.redact import hide_endpoints, redact_url

# A revised answer is about as long as the original; this bounds it whatever the upstream's default.
REVISE_MAX_TOKENS = 1024
log = logging.getLogger("factdebate.server")


class UpstreamError(FactDebateError):
    """The upstream's error (``status`` and an OpenAI-shaped ``body``), or ours about reaching it. A
    :class:`FactDebateError`, so that a reviser that fails this way leaves ``rewrite``'s answer flagged with why
    (guard/policy.py) rather than failing the request."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("error", {}).get("message", "upstream error"))
        self.status = status
        self.body = body


def error_body(message: str, kind: str = "upstream_error", code: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def without_endpoints(value: Any) -> Any:
    """An upstream's error as the caller reads it: every address in its texts left out (a proxy's error names
    the server behind it), since where the operator's servers are is the operator's to know."""
    if isinstance(value, str):
        return hide_endpoints(value)
    if isinstance(value, dict):
        return {key: without_endpoints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_endpoints(item) for item in value]
    return value


def passed_on_error(status: int, body: dict[str, Any]) -> UpstreamError:
    """The upstream's own error (a response's body, a stream's error chunk) as the caller gets it; the server's
    log keeps it as it came when that named an address."""
    shown = without_endpoints(body)
    if shown != body:
        log.warning("the guard's upstream model answered %s: %s", status, json.dumps(body)[:1000])
    return UpstreamError(status, shown)


def _passed_on(response: httpx.Response, body: bytes) -> UpstreamError:
    """The upstream's own error, kept as it sent it when it is already OpenAI-shaped."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return passed_on_error(response.status_code, data)
    text = body.decode("utf-8", "replace").strip()[:500]
    return passed_on_error(response.status_code, error_body(
        f"the upstream model answered {response.status_code}" + (f": {text}" if text else "")))


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


async def sse_events(chunks: AsyncIterator[bytes]) -> AsyncIterator[SSEEvent]:
    """Each event of an SSE byte stream as soon as its blank line has arrived."""
    buffer = b""
    async for chunk in chunks:
        buffer += chunk.replace(b"\r\n", b"\n")
        while (end := buffer.find(b"\n\n")) >= 0:
            raw, buffer = buffer[:end + 2], buffer[end + 2:]
            if raw.strip():
                yield _event(raw)
    if buffer.strip():
        yield _event(buffer + b"\n\n")


class Upstream:
    """One operator upstream: its base URL (ending in ``/v1``), its key (or none) and a pooled client."""

    def __init__(self, base_url: str, key: str | None, timeout: float,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.client = httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
                                        transport=transport, follow_redirects=False, trust_env=False)

    @classmethod
    def from_settings(cls, base_url: str, key_env: str, timeout: float) -> Upstream:
        return cls(base_url, os.environ.get(key_env) or None, timeout)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """The upstream's whole answer to ``body`` (sent with ``stream`` false)."""
        try:
            response = await self.client.post(f"{self.base_url}/chat/completions", json={**body, "stream": False})
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
        request = self.client.build_request("POST", f"{self.base_url}/chat/completions",
                                            json={**body, "stream": True})
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise _unreachable(self.base_url, exc) from exc
        finished = False
        try:
            if response.status_code >= 400:
                raise _passed_on(response, await response.aread())
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
            messages = [*body.get("messages", []), {"role": "assistant", "content": answer},
                        {"role": "user", "content": revise_instruction(refuted)}]
            asked = {key: value for key, value in body.items()
                     if key in ("model", "temperature", "top_p", "seed", "user")}
            data = await self.complete({**asked, "messages": messages, "max_tokens": REVISE_MAX_TOKENS})
            message = (data["choices"][0] or {}).get("message") or {}
            content = message.get("content")
            if not isinstance(content, str) or not content.strip():
                raise UpstreamError(502, error_body("the upstream model gave no revised answer"))
            return content

        return revise


async def _hang_up(response: httpx.Response) -> None:
    """Close the connection of a stream left before its end, so that the upstream stops writing (and
    spending). Closing the response alone left the connection open when a cancelled read had been under way
    (seen with httpx 0.28 inside the service: the model went on writing the whole answer)."""
    stream = response.extensions.get("network_stream")
    if stream is not None:
        with contextlib.suppress(Exception):  # already closed, or closing failed: nothing more to stop
            await stream.aclose()


def revise_instruction(refuted: list[GuardClaim]) -> str:
    """What the model is told when its answer is sent back: each claim a check found false, with the passage
    that says otherwise and the checker's corrected sentence, and the rules of the revision."""
    lines = ["A fact check of your last answer found statements in it that the evidence contradicts:", ""]
    for number, claim in enumerate(refuted, 1):
        lines.append(f"{number}. You wrote: \"{claim.claim}\"")
        for item in claim.evidence[:2]:
            where = f" ({item.url})" if item.url else ""
            lines.append(f"   Evidence from {item.title or 'a source'}{where}: \"{item.quote}\"")
        if claim.correction is not None:
            lines.append(f"   A corrected statement: \"{claim.correction.text}\"")
    lines += ["", "Write your answer again for the same reader. Correct or remove each statement listed above "
              "so that it agrees with the evidence; keep everything else as it was, in the same language, tone "
              "and format. Reply with the revised answer only, without mentioning this check."]
    return "\n".join(lines)
