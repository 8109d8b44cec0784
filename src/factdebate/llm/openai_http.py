"""Chat completions posted through the process's shared aiohttp session (util/http_client.py), without the
OpenAI SDK's per-call layers, which took most of the guard's CPU under load (benchmarks/http_clients.py
measures the SDK, httpx and aiohttp per call). Every model call goes this way: one client, one rule for
proxies, timeouts and answer limits.

The body is the one the SDK would send (``extra_body`` merged). A failure is a :class:`ChatError`, which
llm/openai_compat.py maps to the LLM layer's errors: :class:`StatusError`, :class:`Unanswered`,
:class:`StreamBroken` or :class:`StreamErrorEvent`. A reply is read as attributes, as the SDK's models are."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from factdebate.util.bounded_body import AnswerTooLarge
from factdebate.util.http_client import MAX_BODY_BYTES, Client, Reply

WHAT = "the model's answer"  # how a limit's failure names it


class Fields(dict[str, Any]):
    """A JSON object read as attributes, a field it lacks as None."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and the like ask for these: not fields
            raise AttributeError(name)
        return self.get(name)


class UnreadableAnswer(json.JSONDecodeError):
    """An answer no try will read: not UTF-8 text, or JSON nested deeper than Python's parser goes."""


def parsed(text: str | bytes) -> Any:
    """A JSON reply whose objects read as attributes. Whatever keeps it from being read is a
    ``JSONDecodeError``: the model's failure, never the caller's bad input or an internal error."""
    try:
        return json.loads(text, object_hook=Fields)
    except UnicodeDecodeError as exc:  # a binary body: an encoding applied twice, or not JSON at all
        raise UnreadableAnswer(f"the answer is not UTF-8 text ({exc.reason})", "", 0) from None
    except RecursionError:  # the service maps a bare RecursionError to the caller's deep JSON: not this one
        raise UnreadableAnswer("the answer nests deeper than the JSON parser goes", "", 0) from None


class ChatError(Exception):
    """A chat completion that brought no usable answer; ``timed_out``: for want of time."""

    timed_out = False


class StatusError(ChatError):
    """An answer with an error status. ``message``: ``Error code: N`` then the error's own message (``said``),
    as OpenAI's clients say it; ``param``, ``code`` and ``retry_after`` from the answer."""

    def __init__(self, status: int, headers: Mapping[str, str], content: bytes) -> None:
        text = content.decode("utf-8", "replace").strip()
        body: Any = text
        with contextlib.suppress(ValueError):  # a proxy's page, not JSON: the status alone says it
            body = json.loads(text)
        error = body.get("error", body) if isinstance(body, dict) else None
        error = error if isinstance(error, dict) else {}
        said = error.get("message")
        self.status = status
        self.said = said if isinstance(said, str) and said else ""
        self.message = f"Error code: {status}" + (f" - {self.said}" if self.said else "")
        self.param = _text_or_none(error.get("param"))
        self.code = _text_or_none(error.get("code"))
        self.retry_after = _seconds(headers.get("Retry-After"))
        super().__init__(self.message)


class Unanswered(ChatError):
    """No answer came: the connection failed (what caused it is the ``__cause__``) or the time ran out."""

    def __init__(self, timed_out: bool) -> None:
        self.timed_out = timed_out
        super().__init__("timed out" if timed_out else "connection error")


class StreamBroken(ChatError):
    """A streamed answer that broke off after its head came (a reset, a read that timed out)."""

    def __init__(self, message: str, timed_out: bool) -> None:
        self.timed_out = timed_out
        super().__init__(message)


class StreamErrorEvent(ChatError):
    """An error event inside a stream (``data: {"error": {...}}``), as some servers report a failure mid-way."""


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class ChunkStream:
    """A streamed reply's chunks; leaving ``async with`` early closes the connection, so the server stops."""

    def __init__(self, lines: AsyncIterator[str], close: Callable[[bool], Awaitable[None]]) -> None:
        self._lines, self._close = lines, close
        self._ended = False

    async def __aenter__(self) -> ChunkStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._close(self._ended)

    async def __aiter__(self) -> Any:
        async for line in self._lines:
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data.startswith("[DONE]"):
                self._ended = True
                break
            chunk = parsed(data)
            if isinstance(chunk, dict) and chunk.get("error"):
                error = chunk["error"]
                message = error.get("message") if isinstance(error, dict) else None
                raise StreamErrorEvent(str(message or "An error occurred during streaming"))
            yield chunk


def _json(content_type: str | None) -> bool:
    """A JSON body: a server that answered a stream request with one reply (read as that reply)."""
    return "json" in (content_type or "").lower()


async def _stream_lines(reply: Reply) -> AsyncIterator[str]:
    """A streamed reply's lines; a stream cut mid-way is :class:`StreamBroken` (a limit passed is said as such)."""
    try:
        async for line in reply.lines():
            yield line
    except AnswerTooLarge:
        raise  # not a broken connection: the caller says what was too large
    except TimeoutError as exc:
        raise StreamBroken(f"no data within the timeout: {exc}", timed_out=True) from exc
    except OSError as exc:
        raise StreamBroken(f"the streamed answer broke off: {exc}", timed_out=False) from exc


class ChatTransport:
    """``POST {endpoint}/chat/completions`` for one backend through the loop's shared session."""

    def __init__(self, endpoint: str, key: str, timeout: float) -> None:
        self.client = Client(endpoint, {"Authorization": f"Bearer {key}", "Accept": "application/json"},
                             timeout, max_bytes=MAX_BODY_BYTES, what=WHAT)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def create(self, body: dict[str, Any], streamed: bool) -> Any:
        """The parsed reply, or a :class:`ChunkStream` once a streamed one's status line came (200)."""
        content = json.dumps(body).encode()
        reply: Reply | None = None
        try:
            reply = await self.client.post("/chat/completions", content)
            if reply.status >= 400:
                try:
                    text = await reply.read()
                except OSError:
                    text = b""
                raise StatusError(reply.status, reply.headers, text)
            if streamed and not _json(reply.headers.get("Content-Type")):
                kept = reply

                async def close(ended: bool) -> None:
                    if ended:
                        await kept.drain(1.0)  # the body's last bytes, so that the connection is reused
                    else:
                        kept.close()

                return ChunkStream(_stream_lines(kept), close)
            return parsed(await reply.read())
        except AnswerTooLarge:
            raise  # not a broken connection: the backend says what was too large
        except TimeoutError as exc:
            raise Unanswered(timed_out=True) from exc
        except OSError as exc:  # refused, reset, TLS, an answer that is not HTTP, a header that cannot be sent
            raise Unanswered(timed_out=False) from exc
        except BaseException:
            if reply is not None and not streamed:
                reply.close()
            raise
