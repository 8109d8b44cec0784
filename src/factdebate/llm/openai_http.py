"""Chat completions posted through one long-lived pooled ``httpx.AsyncClient``, without the OpenAI SDK's
per-call layers (issue 59 item 4). A profile of the guard at 50 streams found 68.6 % of its CPU in the SDK
making the checker's calls (its parameter transform, request options, response models, its client's pool
scanning idle sockets); benchmarks/decisions/checker_client.py measured 2.82 ms of CPU per call through the SDK and
1.29 ms through one pooled httpx client posting the JSON.

What the SDK did that callers read is kept: the same JSON body (the SDK's top-level arguments and its
``extra_body`` merged), the same exceptions (``openai.RateLimitError``, ``BadRequestError`` with its
``param`` and ``code``, ``APIStatusError``, ``APITimeoutError``, ``APIConnectionError``, an ``APIError`` for an
error event inside a stream), made by the SDK's own status-error factory so that their messages are its own.
A reply is read as attributes (``reply.choices[0].message.content``), as the SDK's models are."""

from __future__ import annotations

import json
from typing import Any

import httpx

KEEP_ALIVE_S = 30.0  # an idle connection kept this long, then closed


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


class ChunkStream:
    """A streamed reply's chunks (``data: {...}`` lines up to ``data: [DONE]``), each parsed as attributes;
    leaving ``async with`` closes the connection, so the server stops writing."""

    def __init__(self, response: httpx.Response, openai: Any) -> None:
        self.response, self._openai = response, openai

    async def __aenter__(self) -> ChunkStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.response.aclose()

    async def __aiter__(self) -> Any:
        async for line in self.response.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data.startswith("[DONE]"):
                break
            chunk = json.loads(data)
            if isinstance(chunk, dict) and chunk.get("error"):  # as the SDK's stream raises it
                error = chunk["error"]
                message = error.get("message") if isinstance(error, dict) else None
                raise self._openai.APIError(message=str(message or "An error occurred during streaming"),
                                            request=self.response.request, body=error)
            yield parsed(data)


class ChatTransport:
    """``POST {endpoint}/chat/completions`` for one backend: one client, its pool sized for the backend's
    calls in flight (a pool of hundreds was scanned whole for expired sockets on every request)."""

    def __init__(self, endpoint: str, key: str, timeout: float, max_parallel: int, openai: Any,
                 status_errors: Any) -> None:
        self.url = f"{endpoint}/chat/completions"
        self._openai = openai
        self._status_errors = status_errors  # the SDK client, whose factory makes its status errors
        room = max(4, max_parallel)
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=room * 4, max_keepalive_connections=room,
                                keepalive_expiry=KEEP_ALIVE_S),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                     "Accept": "application/json"})

    async def aclose(self) -> None:
        await self.client.aclose()

    async def create(self, body: dict[str, Any], streamed: bool) -> Any:
        """The parsed reply, or a :class:`ChunkStream` once a streamed one's status line came (200)."""
        openai = self._openai
        request = self.client.build_request("POST", self.url, content=json.dumps(body).encode())
        try:
            response = await self.client.send(request, stream=streamed)
        except httpx.TimeoutException as exc:
            raise openai.APITimeoutError(request=request) from exc
        except httpx.HTTPError as exc:
            raise openai.APIConnectionError(request=request) from exc
        if response.status_code >= 400:
            try:
                await response.aread()
            except httpx.HTTPError:
                pass
            finally:
                await response.aclose()
            raise self._status_errors._make_status_error_from_response(response)
        if streamed:
            return ChunkStream(response, openai)
        return parsed(response.content)
