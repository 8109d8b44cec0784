"""Chat completions posted through the process's shared aiohttp session (llm/http_client.py), without the
OpenAI SDK's per-call layers. A profile of the guard at 50 streams found 68.6 % of its CPU in the SDK making
the checker's calls (its parameter transform, request options, response models, its client's pool scanning
idle sockets); benchmarks/http_clients.py measures the client CPU per call of the SDK, httpx and aiohttp
against one loopback server, and aiohttp costs a small part of the SDK's. Every paper method's model call
goes this way too, not only the checker's: they are the same calls, and one client means one rule for
proxies, timeouts and answer limits.

What the SDK did that callers read is kept: the same JSON body (the SDK's top-level arguments and its
``extra_body`` merged), the same exceptions (``openai.RateLimitError``, ``BadRequestError`` with its
``param`` and ``code``, ``APIStatusError``, ``APITimeoutError``, ``APIConnectionError``, an ``APIError`` for an
error event inside a stream), made from the SDK's public classes with the message the SDK gives them
(``Error code: 429 - <the error's message>``). A reply is read as attributes
(``reply.choices[0].message.content``), as the SDK's models are."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import httpx

from factdebate.llm.http_client import MAX_BODY_BYTES, Client, Reply
from factdebate.util.bounded_body import AnswerTooLarge

WHAT = "the model's answer"  # how a limit's failure names it


class Fields(dict[str, Any]):
    """A JSON object read as attributes, a field it lacks as None (as the SDK's models read an optional field
    the server left out)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and the like ask for these: not fields
            raise AttributeError(name)
        return self.get(name)


class UnreadableAnswer(json.JSONDecodeError):
    """An answer no try will read: bytes that are not UTF-8 text (an encoding applied twice, a binary body) or
    JSON nested deeper than Python's parser goes."""


def parsed(text: str | bytes) -> Any:
    """A JSON reply whose objects read as attributes. Whatever keeps it from being read (not JSON, bytes that are
    not UTF-8 text, nesting deeper than Python's parser goes) is a ``JSONDecodeError``: an unusable answer, which
    callers treat as the model's failure, never as the caller's bad input or an internal error."""
    try:
        return json.loads(text, object_hook=Fields)
    except UnicodeDecodeError as exc:  # a binary body: an encoding applied twice, or not JSON at all
        raise UnreadableAnswer(f"the answer is not UTF-8 text ({exc.reason})", "", 0) from None
    except RecursionError:  # the service maps a bare RecursionError to the caller's deep JSON: not this one
        raise UnreadableAnswer("the answer nests deeper than the JSON parser goes", "", 0) from None


# The SDK's class for each status (what its client raises for it); others are its APIStatusError.
_STATUS_ERRORS = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError",
                  404: "NotFoundError", 409: "ConflictError", 422: "UnprocessableEntityError",
                  429: "RateLimitError"}


def status_error(openai: Any, status: int, headers: Mapping[str, str], content: bytes,
                 request: httpx.Request) -> Exception:
    """The SDK's exception for an answer with an error ``status``, built from its public classes as its client
    builds it: the message ``Error code: N`` with the error's own message after it, ``body`` the error object
    (``param``, ``code`` and ``type`` read from it), ``response`` the answer (its headers: Retry-After)."""
    text = content.decode("utf-8", "replace").strip()
    message = f"Error code: {status}"
    body: Any = text
    try:
        body = json.loads(text)
    except ValueError:
        pass
    else:
        inner = body.get("error", body) if isinstance(body, dict) else None
        said = inner.get("message") if isinstance(inner, dict) else None
        if isinstance(said, str) and said:
            message += f" - {said}"
    data = body.get("error", body) if isinstance(body, dict) else body
    name = _STATUS_ERRORS.get(status, "InternalServerError" if status >= 500 else "APIStatusError")
    response = httpx.Response(status, headers=_decoded_headers(headers), content=content, request=request)
    made: Exception = getattr(openai, name)(message, response=response, body=data)
    return made


class ChunkStream:
    """A streamed reply's chunks (``data: {...}`` lines up to ``data: [DONE]``), each parsed as attributes;
    leaving ``async with`` closes the connection unless the stream was read to its end, so the server stops
    writing."""

    def __init__(self, lines: AsyncIterator[str], close: Callable[[bool], Awaitable[None]],
                 request: Callable[[], httpx.Request], openai: Any) -> None:
        self._lines, self._close, self._request, self._openai = lines, close, request, openai
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
            if isinstance(chunk, dict) and chunk.get("error"):  # as the SDK's stream raises it
                error = chunk["error"]
                message = error.get("message") if isinstance(error, dict) else None
                raise self._openai.APIError(message=str(message or "An error occurred during streaming"),
                                            request=self._request(), body=error)
            yield chunk


def _decoded_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """An answer's headers for a body already decoded here: without its ``Content-Encoding``, which httpx would
    otherwise undo a second time."""
    return {name: value for name, value in headers.items() if name.lower() != "content-encoding"}


def _json(content_type: str | None) -> bool:
    """A JSON body: a server that answered a stream request with one reply (read as that reply)."""
    return "json" in (content_type or "").lower()


async def _stream_lines(reply: Reply) -> AsyncIterator[str]:
    """A streamed reply's lines; a stream cut mid-way raises httpx's errors, which llm/openai_compat.py reads
    as a broken-off stream (a limit passed is said as such)."""
    try:
        async for line in reply.lines():
            yield line
    except AnswerTooLarge:
        raise  # not a broken connection: the caller says what was too large
    except TimeoutError as exc:
        raise httpx.ReadTimeout(f"no data within the timeout: {exc}") from exc
    except OSError as exc:
        raise httpx.ReadError(f"the streamed answer broke off: {exc}") from exc


class ChatTransport:
    """``POST {endpoint}/chat/completions`` for one backend through the loop's shared session."""

    def __init__(self, endpoint: str, key: str, timeout: float, openai: Any) -> None:
        self.url = f"{endpoint}/chat/completions"
        self._openai = openai
        self.client = Client(endpoint, {"Authorization": f"Bearer {key}", "Accept": "application/json"},
                             timeout, max_bytes=MAX_BODY_BYTES, what=WHAT)

    def request(self) -> httpx.Request:
        """The request as httpx models it: what the SDK's exceptions carry (made only when one is raised)."""
        return httpx.Request("POST", self.url)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def create(self, body: dict[str, Any], streamed: bool) -> Any:
        """The parsed reply, or a :class:`ChunkStream` once a streamed one's status line came (200)."""
        content = json.dumps(body).encode()
        openai = self._openai
        reply: Reply | None = None
        try:
            reply = await self.client.post("/chat/completions", content)
            if reply.status >= 400:
                try:
                    text = await reply.read()
                except OSError:
                    text = b""
                raise status_error(openai, reply.status, reply.headers, text, self.request())
            if streamed and not _json(reply.headers.get("Content-Type")):
                kept = reply

                async def close(ended: bool) -> None:
                    if ended:
                        await kept.drain(1.0)  # the body's last bytes, so that the connection is reused
                    else:
                        kept.close()

                return ChunkStream(_stream_lines(kept), close, self.request, openai)
            return parsed(await reply.read())
        except AnswerTooLarge:
            raise  # not a broken connection: the backend says what was too large
        except TimeoutError as exc:
            raise openai.APITimeoutError(request=self.request()) from exc
        except OSError as exc:  # refused, reset, TLS, an answer that is not HTTP, a header that cannot be sent
            raise openai.APIConnectionError(request=self.request()) from exc
        except BaseException:
            if reply is not None and not streamed:
                reply.close()
            raise
