"""Chat completions posted through one long-lived pool of kept-alive connections, without the OpenAI SDK's
per-call layers. A profile of the guard at 50 streams found 68.6 % of its CPU in the SDK
making the checker's calls (its parameter transform, request options, response models, its client's pool
scanning idle sockets); benchmarks/decisions/checker_client.py measured 2.82 ms of CPU per call through the SDK and
1.29 ms through one pooled httpx client posting the JSON. A later profile (benchmarks/guard_vs_litellm.py
--py-spy) still found httpx and httpcore at a third of the guard's CPU, so the calls now go through
llm/http1.py's small HTTP/1.1 client; httpx stays for an endpoint reached through a proxy (``HTTPS_PROXY``
and the like), which that client does not speak.

What the SDK did that callers read is kept: the same JSON body (the SDK's top-level arguments and its
``extra_body`` merged), the same exceptions (``openai.RateLimitError``, ``BadRequestError`` with its
``param`` and ``code``, ``APIStatusError``, ``APITimeoutError``, ``APIConnectionError``, an ``APIError`` for an
error event inside a stream), made by the SDK's own status-error factory so that their messages are its own.
A reply is read as attributes (``reply.choices[0].message.content``), as the SDK's models are."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from factdebate.llm.http1 import KEEP_ALIVE_S, MAX_BODY_BYTES, MAX_LINE_BYTES, Pool, Reply, sendable
from factdebate.util.bounded_body import AnswerTooLarge, Deadline, decoded_async, lines_async, read_async
from factdebate.util.bounded_get import raw_bytes

WHAT = "the model's answer"  # how a limit's failure names it


class Fields(dict[str, Any]):
    """A JSON object read as attributes, a field it lacks as None (as the SDK's models read an optional field
    the server left out)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and the like ask for these: not fields
            raise AttributeError(name)
        return self.get(name)


def parsed(text: str | bytes) -> Any:
    """A JSON reply whose objects read as attributes (a JSONDecodeError when it is not JSON)."""
    return json.loads(text, object_hook=Fields)


def through_proxy(url: str) -> bool:
    """Whether httpx would reach ``url`` through a proxy named by the environment (``NO_PROXY`` honoured)."""
    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass(parts.hostname or "")  # NO_PROXY read from the environment


def lean_reaches(url: str) -> bool:
    """Whether llm/http1.py's client sends what httpx would to ``url``: not through a proxy, and no user and
    password (httpx's Basic auth) or query string in the endpoint, which that client does not carry."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and not (parts.username or parts.password or parts.query) \
        and not through_proxy(url)


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
            chunk = json.loads(data)
            if isinstance(chunk, dict) and chunk.get("error"):  # as the SDK's stream raises it
                error = chunk["error"]
                message = error.get("message") if isinstance(error, dict) else None
                raise self._openai.APIError(message=str(message or "An error occurred during streaming"),
                                            request=self._request(), body=error)
            yield parsed(data)


def _decoded_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """An answer's headers for a body already decoded here: without its ``Content-Encoding``, which httpx would
    otherwise undo a second time."""
    return {name: value for name, value in headers.items() if name.lower() != "content-encoding"}


def _json(content_type: str | None) -> bool:
    """A JSON body: a server that answered a stream request with one reply (read as that reply)."""
    return "json" in (content_type or "").lower()


async def _lean_lines(reply: Reply) -> AsyncIterator[str]:
    """A lean reply's lines, its failures as httpx's (what a stream cut mid-way raised before)."""
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
    """``POST {endpoint}/chat/completions`` for one backend through one pool of kept-alive connections
    (llm/http1.py; httpx where a proxy is in the way or the endpoint carries credentials or a query), sized for
    the backend's calls in flight."""

    def __init__(self, endpoint: str, key: str, timeout: float, max_parallel: int, openai: Any,
                 status_errors: Any) -> None:
        self.url = f"{endpoint}/chat/completions"
        self._openai = openai
        self._status_errors = status_errors  # the SDK client, whose factory makes its status errors
        room = max(4, max_parallel)
        headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
        self.pool: Pool | None = None
        self.client: httpx.AsyncClient | None = None
        self.timeout = timeout
        if not lean_reaches(self.url) or not sendable(headers):  # httpx refuses a key with a line break
            # The body is read as it came and decoded here (identity asked), within the same limits.
            self.client = httpx.AsyncClient(
                timeout=httpx.Timeout(timeout),
                limits=httpx.Limits(max_connections=room * 4, max_keepalive_connections=room,
                                    keepalive_expiry=KEEP_ALIVE_S),
                headers={**headers, "Content-Type": "application/json", "Accept-Encoding": "identity"})
        else:
            self.pool = Pool(endpoint, {**headers, "Accept-Encoding": "identity", "User-Agent": "factdebate"},
                             timeout, keep=room, keep_alive_s=KEEP_ALIVE_S, what=WHAT)

    def request(self) -> httpx.Request:
        """The request as httpx models it: what the SDK's exceptions carry (made only when one is raised)."""
        return httpx.Request("POST", self.url)

    async def aclose(self) -> None:
        if self.pool is not None:
            await self.pool.aclose()
        if self.client is not None:
            await self.client.aclose()

    async def create(self, body: dict[str, Any], streamed: bool) -> Any:
        """The parsed reply, or a :class:`ChunkStream` once a streamed one's status line came (200)."""
        content = json.dumps(body).encode()
        if self.pool is None:
            return await self._through_httpx(content, streamed)
        openai = self._openai
        reply: Reply | None = None
        try:
            reply = await self.pool.post("/chat/completions", content)
            if reply.status >= 400:
                try:
                    text = await reply.read()
                except OSError:
                    text = b""
                raise self._status_errors._make_status_error_from_response(httpx.Response(
                    reply.status, headers=_decoded_headers(reply.headers), content=text, request=self.request()))
            if streamed and not _json(reply.headers.get("content-type")):
                lean = reply

                async def close(ended: bool) -> None:
                    if ended:
                        await lean.drain(1.0)  # the body's last bytes, so that the connection is reused
                    else:
                        lean.close()

                return ChunkStream(_lean_lines(lean), close, self.request, openai)
            return parsed(await reply.read())
        except AnswerTooLarge:
            raise  # not a broken connection: the backend says what was too large
        except TimeoutError as exc:
            raise openai.APITimeoutError(request=self.request()) from exc
        except OSError as exc:  # refused, reset, TLS, an answer that is not HTTP
            raise openai.APIConnectionError(request=self.request()) from exc
        except BaseException:
            if reply is not None and not streamed:
                reply.close()
            raise

    async def _through_httpx(self, content: bytes, streamed: bool) -> Any:
        assert self.client is not None
        openai = self._openai
        request = self.client.build_request("POST", self.url, content=content)
        deadline = Deadline(self.timeout, WHAT)
        try:
            async with asyncio.timeout(deadline.left()):  # a head trickled under every read's timeout ends too
                response = await self.client.send(request, stream=True)
        except (httpx.TimeoutException, TimeoutError) as exc:
            raise openai.APITimeoutError(request=request) from exc
        except httpx.HTTPError as exc:
            raise openai.APIConnectionError(request=request) from exc
        encoding = response.headers.get("content-encoding", "")
        if not streamed or response.status_code >= 400 or _json(response.headers.get("content-type")):
            try:
                body = await read_async(raw_bytes(response), encoding, MAX_BODY_BYTES, deadline)
            except AnswerTooLarge:
                raise
            except (httpx.TimeoutException, TimeoutError) as exc:
                raise openai.APITimeoutError(request=request) from exc
            except (httpx.HTTPError, OSError) as exc:
                if response.status_code >= 400:
                    body = b""
                else:
                    raise openai.APIConnectionError(request=request) from exc
            finally:
                await response.aclose()
            if response.status_code >= 400:
                raise self._status_errors._make_status_error_from_response(httpx.Response(
                    response.status_code, headers=_decoded_headers(response.headers), content=body,
                    request=request))
            return parsed(body)

        async def close(ended: bool) -> None:
            await response.aclose()

        lines = lines_async(decoded_async(raw_bytes(response), encoding, MAX_BODY_BYTES, WHAT), MAX_LINE_BYTES,
                            WHAT)
        return ChunkStream(lines, close, lambda: request, openai)
