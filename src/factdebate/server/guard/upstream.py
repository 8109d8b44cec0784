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
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from factdebate.server.guard.revision import Revise, revision_request
from factdebate.util.bounded_body import AnswerPastLimit, AnswerTooLarge, size_words
from factdebate.util.errors import FactDebateError
from factdebate.util.http_client import Client, Reply
from factdebate.util.observe import Watcher
from factdebate.util.scrub import hide_endpoints, redact_value

MIB = 1024 * 1024
MAX_EVENT_BYTES = 4 * MIB  # one event of the upstream's stream (a chunk is a few hundred bytes)
WHAT = "the upstream model's answer"  # how the limits' failures name it to the caller
MAX_ERROR_CHARS = 2000  # of each text in an upstream's error: enough to say what failed
ERROR_HEAD_BYTES = 64 * 1024  # of an error's body in a streamed answer: read before it is passed on
OFF_LOOP_MESSAGES = 200  # a conversation longer than this is written (as JSON) off the event loop
# A streamed request answered neither as a stream nor as one JSON completion: said without a byte of the answer.
NOT_SSE = ("the upstream model did not answer with Server-Sent Events (nor with one JSON completion); "
           "the operator's upstream model may be broken")
log = logging.getLogger("factdebate.server")


class UpstreamError(FactDebateError):
    """The upstream's error (``status`` and an OpenAI-shaped ``body``), or ours about reaching it. A
    :class:`FactDebateError`, so that a reviser that fails this way leaves ``rewrite``'s answer flagged with why
    (guard_engine/policy.py) rather than failing the request."""

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(body.get("error", {}).get("message", "upstream error"))
        self.status = status
        self.body = body
        self.headers = headers or {}  # what of the upstream's headers the caller gets too (Retry-After)


def error_body(message: str, kind: str = "upstream_error", code: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


@dataclass(frozen=True)
class AnswerLimits:
    """How large and how long the upstream's answer may be: ``plain_bytes`` for an answer read whole (within
    the upstream's timeout from the request), ``stream_bytes`` and ``stream_s`` for a streamed one, all of it."""

    plain_bytes: int
    stream_bytes: int
    stream_s: float

    @classmethod
    def following(cls, max_message_chars: int, max_choices: int, stream_s: float) -> AnswerLimits:
        """Limits that follow from what the guard accepts: a message of ``max_message_chars`` characters in each
        of ``max_choices`` answers. A character takes up to 12 bytes in JSON (a ``\\u`` escape of each half of a
        surrogate pair), so a plain answer gets 16 bytes a character; a stream writes one event of about 200
        bytes for each few characters, so it gets 64. A mebibyte or four on top covers the envelope."""
        chars = max_message_chars * max_choices
        return cls(plain_bytes=16 * chars + MIB, stream_bytes=64 * chars + 4 * MIB, stream_s=stream_s)


# The upstream's headers a caller needs too: how long to wait before asking again.
_KEPT_HEADERS = ("retry-after", "retry-after-ms")
_HEADER_VALUE = re.compile(r"^[A-Za-z0-9 ,:.\-]{1,64}$")


def scrubbed(text: str) -> str:
    """An upstream's error text as the caller reads it: no address (a proxy's error names the server behind
    it), no host name or IP, no secret the process holds, no key-shaped string (an error that quotes the key it
    was sent): util/scrub/."""
    return hide_endpoints(text)


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


def kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The upstream's ``Retry-After`` (and ``retry-after-ms``) when it sent one of a plain, short form."""
    return {name.title() if name == "retry-after" else name: value for name in _KEPT_HEADERS
            if (value := headers.get(name, "").strip()) and _HEADER_VALUE.fullmatch(value)}


def _passed_on(status: int, headers: Mapping[str, str], body: bytes) -> UpstreamError:
    """The upstream's own error (its answer's ``status``, ``headers`` and ``body``), kept as it sent it when it
    is already OpenAI-shaped."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = None
    kept = kept_headers(headers)
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return passed_on_error(status, data, kept)
    text = body.decode("utf-8", "replace").strip()[:500]
    return passed_on_error(status, error_body(
        f"the upstream model answered {status}" + (f": {text}" if text else "")), kept)


def _unsendable(exc: Exception) -> UpstreamError:
    """A request the upstream cannot be sent (a value JSON cannot hold): the caller's, so a 422."""
    return UpstreamError(422, error_body(f"invalid request: it cannot be sent on as JSON ({type(exc).__name__})",
                                         "invalid_request_error", "invalid_json"))


def _unreachable(base_url: str, exc: Exception, name: str) -> UpstreamError:
    """The caller is told what failed (``name``); where the upstream is, the server's log."""
    log.warning("the guard's upstream model at %s could not be reached: %s: %s", redact_value(base_url),
                type(exc).__name__, exc)
    return UpstreamError(502, error_body(f"the operator's upstream model could not be reached ({name})",
                                         code="upstream_unreachable"))


def _over_limit(exc: AnswerPastLimit) -> UpstreamError:
    """An answer past its size or time limit: a 502 that says which (never where the upstream is)."""
    log.warning("the guard's upstream model's answer was cut off: %s", exc)
    code = "upstream_timeout" if isinstance(exc, TimeoutError) else "upstream_answer_too_large"
    return UpstreamError(502, error_body(f"{exc}; the operator's upstream model may be broken", code=code))


def _read_failed(base_url: str, exc: Exception) -> UpstreamError:
    """Reading an answer failed: past a limit, or the connection broke (:func:`_unreachable`'s words)."""
    if isinstance(exc, AnswerPastLimit):
        return _over_limit(exc)
    return _unreachable(base_url, exc, _failure_name(exc, sending=False))


def _json_bytes(body: dict[str, Any]) -> bytes:
    """``body`` as a compact JSON request: compact, UTF-8, no NaN (a ValueError, as JSON cannot hold it)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _completion(content: bytes) -> dict[str, Any]:
    """An upstream's whole answer as a chat completion: a 502 when it is not JSON or has no choices."""
    try:
        data = json.loads(content)
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, or nested past the parser
        raise UpstreamError(502, error_body("the upstream model's answer is not JSON it can read")) from exc
    if isinstance(data, dict) and isinstance(data.get("error"), dict) and "choices" not in data:
        raise passed_on_error(502, {"error": data["error"]})  # an error sent with a 200: passed on as one
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise UpstreamError(502, error_body("the upstream model's answer has no choices"))
    return data


def _media_type(headers: Mapping[str, str]) -> str:
    """An answer's media type (``text/event-stream``), without its parameters, in lower case."""
    return headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


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
        except (ValueError, RecursionError):  # an event nested past the parser is as unreadable as one not JSON
            return None
        return value if isinstance(value, dict) else None


def _made(data: dict[str, Any] | str) -> SSEEvent:
    """An event the guard writes itself (ASCII JSON: nothing of it can fail to encode)."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return SSEEvent(f"data: {text}\n\n".encode("ascii"), text)


def _delta(message: Any) -> dict[str, Any]:
    """A whole answer's message as one streamed delta: its role, text, refusal and tool calls (each with the
    ``index`` a streamed tool call carries)."""
    message = message if isinstance(message, dict) else {}
    delta: dict[str, Any] = {"role": "assistant"}
    delta.update({key: message[key] for key in ("content", "refusal", "function_call", "audio")
                  if message.get(key) is not None})
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        delta["tool_calls"] = [{"index": i, **call} if isinstance(call, dict) else call
                               for i, call in enumerate(calls)]
    return delta


def completion_events(data: dict[str, Any]) -> list[SSEEvent]:
    """One chat completion (``object: chat.completion``) as the stream that would have carried it: one chunk
    whose choices each carry their message as ``delta`` with their ``finish_reason``, a chunk with its
    ``usage`` when it has one, then ``[DONE]``."""
    head: dict[str, Any] = {key: data[key] for key in ("id", "created", "model", "system_fingerprint",
                                                      "service_tier") if key in data}
    head["object"] = "chat.completion.chunk"
    choices = [{"index": choice.get("index", n), "delta": _delta(choice.get("message")),
                "finish_reason": choice.get("finish_reason") or "stop"}
               for n, choice in enumerate(data["choices"]) if isinstance(choice, dict)]
    events = [_made({**head, "choices": choices})]
    if isinstance(data.get("usage"), dict):
        events.append(_made({**head, "choices": [], "usage": data["usage"]}))
    return [*events, _made("[DONE]")]


def _event(raw: bytes) -> SSEEvent:
    lines = raw.decode("utf-8", "replace").splitlines()
    data = [line[5:].removeprefix(" ") for line in lines if line.startswith("data:")]
    return SSEEvent(raw, "\n".join(data) if data else None)


async def sse_events(chunks: AsyncIterator[bytes], limit: int = MAX_EVENT_BYTES) -> AsyncIterator[SSEEvent]:
    """Each event of an SSE byte stream as soon as its blank line has arrived. An event longer than ``limit``
    bytes is an :class:`UpstreamError`: an upstream that never ends its line cannot fill the memory."""
    buffer = bytearray()  # grown in place: adding to it costs the piece's length, not the buffer's
    searched = 0  # the buffer before this offset holds no blank line
    async for chunk in chunks:
        buffer += chunk.replace(b"\r\n", b"\n")
        start = 0
        while (end := buffer.find(b"\n\n", max(searched, start))) >= 0:
            raw, start = bytes(buffer[start:end + 2]), end + 2
            if raw.strip():
                yield _event(raw)
        if start:
            del buffer[:start]
        searched = max(0, len(buffer) - 1)
        if len(buffer) > limit:
            raise UpstreamError(502, error_body(f"an event of the upstream model's stream is longer than "
                                                f"{size_words(limit)}", code="upstream_event_too_large"))
    if buffer.strip():
        yield _event(bytes(buffer) + b"\n\n")


# What the caller is told failed, by the names docs/guard.md gives them, for the HTTP client's failures
# (util/http_client.py: each a ConnectionError or TimeoutError of its own class, whatever aiohttp raised).
_FAILURE_NAMES = {
    "UnsendableHeader": "LocalProtocolError",  # nothing was sent: the request could not be written
    "CannotConnect": "ConnectError",
    "ConnectTimeout": "ConnectTimeout",  # never reached (a ReadTimeout would say it was, and went quiet)
    "BrokenReply": "RemoteProtocolError",
}


def _failure_name(exc: Exception, sending: bool) -> str:
    """What the caller is told failed ('could not be reached (ConnectError)'): the same words whatever the
    client library says."""
    for cls in type(exc).__mro__:
        if cls.__name__ in _FAILURE_NAMES:
            return _FAILURE_NAMES[cls.__name__]
    if isinstance(exc, TimeoutError):
        return "ReadTimeout"
    return "ConnectError" if sending else "ReadError"




class Upstream:
    """One operator upstream: its base URL (ending in ``/v1``), its key (or none), reached through the
    process's shared aiohttp session (util/http_client.py: kept-alive connections, the environment's proxies,
    each answer held to its limits)."""

    def __init__(self, base_url: str, key: str | None, timeout: float, limits: AnswerLimits | None = None,
                 resend: bool = False) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.limits = limits or AnswerLimits.following(100_000, 4, 900.0)  # the guard settings' defaults
        # Its address and key reach no caller (Client.operators). A key with a line break is refused when sent:
        # a 502, nothing written.
        self.session = Client.operators(self.base_url, key, timeout, {"Accept": "application/json"},
                                        connect_timeout=min(timeout, 10.0), max_bytes=self.limits.plain_bytes,
                                        what=WHAT, resend_unanswered=resend)

    async def aclose(self) -> None:
        await self.session.aclose()

    async def _content(self, body: dict[str, Any]) -> bytes:
        """The request's JSON; a long conversation's in a worker thread (50,000 messages take
        most of a second, which on the event loop would hold every other request)."""
        try:
            if len(body.get("messages") or ()) <= OFF_LOOP_MESSAGES:
                return _json_bytes(body)
            return await asyncio.to_thread(_json_bytes, body)
        except (TypeError, ValueError) as exc:
            raise _unsendable(exc) from exc

    @contextlib.contextmanager
    def _sending(self) -> Iterator[None]:
        """Around sending a request until its answer's head came: failing to reach the upstream raises
        :func:`_unreachable`'s error."""
        try:
            yield
        except AnswerPastLimit as exc:
            raise _over_limit(exc) from exc
        except OSError as exc:  # refused, reset, timeouts, TLS, an answer that is not HTTP, an unsendable header
            raise _unreachable(self.base_url, exc, _failure_name(exc, sending=True)) from exc

    async def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """The upstream's whole answer to ``body`` (sent with ``stream`` false)."""
        with Watcher.watched("model_call", model="upstream", role="upstream"):  # metrics and traces (util/observe.py)
            request = await self._content({**body, "stream": False})
            with self._sending():
                answer = await self.session.post("/chat/completions", request, max_bytes=self.limits.plain_bytes,
                                                 total=self.timeout)
            try:
                content = await answer.read()
            except OSError as exc:
                raise _read_failed(self.base_url, exc) from exc
            finally:
                answer.close()
            if answer.status >= 400:
                raise _passed_on(answer.status, answer.headers, content)
        return _completion(content)

    async def stream(self, body: dict[str, Any]) -> AsyncGenerator[SSEEvent, None]:
        """The upstream's stream, event by event as they arrive. An error before the first event raises
        :class:`UpstreamError`; the caller has then sent nothing yet. What the answer is follows its
        ``Content-Type``: Server-Sent Events are read as they come; one JSON completion (an upstream that
        ignores ``stream``) is read whole, within the plain answer's limit, and given as the events a stream of
        it would have been (:func:`completion_events`), so that it is checked as any stream is; anything else
        is a ``502`` that says so and holds none of its bytes."""
        with Watcher.watched("model_call", model="upstream", role="upstream"):  # to its headers (util/observe.py)
            request = await self._content({**body, "stream": True})
            with self._sending():
                answer = await self.session.post("/chat/completions", request, max_bytes=self.limits.stream_bytes,
                                                 total=self.limits.stream_s)
        finished = ended = False
        try:
            if answer.status >= 400:
                head = b""  # the first bytes of its error's body: enough to pass it on, whatever the upstream sends
                async with asyncio.timeout(self.timeout):  # an error trickled byte by byte ends too
                    async for chunk in answer.chunks():
                        head += chunk
                        if len(head) >= ERROR_HEAD_BYTES:
                            break
                raise _passed_on(answer.status, answer.headers, head[:ERROR_HEAD_BYTES])
            kind = _media_type(answer.headers)
            if kind == "application/json":
                for event in completion_events(_completion(await self._whole(answer))):
                    yield event
                finished = True
                return
            if kind != "text/event-stream":
                log.warning("the guard's upstream model answered a stream request with Content-Type %r",
                            answer.headers.get("Content-Type", "")[:100])
                raise UpstreamError(502, error_body(NOT_SSE, code="upstream_not_sse"))
            async for event in sse_events(answer.chunks()):
                ended = event.data == "[DONE]"
                yield event
            finished = True
        except OSError as exc:
            raise _read_failed(self.base_url, exc) from exc
        finally:
            # A stream whose [DONE] came has its last bytes read, so that the connection is reused; one left
            # before its end is closed, so that the upstream stops writing (and spending).
            if not finished and ended:
                await answer.drain(1.0)
            answer.close()

    async def _whole(self, answer: Reply) -> bytes:
        """A streamed request's answer read whole (one JSON completion): at most the plain answer's bytes."""
        content = bytearray()
        async for chunk in answer.chunks():
            content += chunk
            if len(content) > self.limits.plain_bytes:
                raise AnswerTooLarge(WHAT, self.limits.plain_bytes)
        return bytes(content)

    def reviser(self, body: dict[str, Any]) -> Revise:
        """What the ``rewrite`` policy asks of the model that answered the conversation ``body`` (the host's
        ``author``): the same model, given what the check found (the messages the library adds), revises its answer."""

        async def revise(added: list[dict[str, str]]) -> str:
            data = await self.complete(revision_request(body, added))  # server/guard/revision.py
            message = (data["choices"][0] or {}).get("message") or {}
            content = message.get("content")
            if not isinstance(content, str) or not content.strip():
                raise UpstreamError(502, error_body("the upstream model gave no revised answer"))
            return content

        return revise

