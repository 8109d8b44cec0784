"""Shared HTTP plumbing for the web search tools: bounded retries, readable errors, trace events.

Every remote tool goes through :func:`request_json` / :func:`request_text` on the package's one HTTP client
(util/http_client.py, by way of util/bounded_get.py), and no error message carries a key."""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json as jsonlib
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from factdebate.core.errors import EndpointUnavailableError
from factdebate.core.events import WebSearch
from factdebate.core.runtime import emit
from factdebate.core.types import Document
from factdebate.util.bounded_body import MIB, AnswerTooLarge, AnswerTooSlow
from factdebate.util.bounded_get import Clients, Fetched, TooManyRedirects, fetch
from factdebate.util.errors import FactDebateError
from factdebate.util.http_client import UnsendableHeader
from factdebate.util.scrub import request_secrets, without

MAX_ANSWER_BYTES = 8 * MIB  # a page of search results, an arXiv or PubMed answer: well under 1 MiB

# Indirection so tests can observe (and skip) the waits without patching asyncio globally.
_sleep = asyncio.sleep

_EXCERPT_CHARS = 200

Params = Mapping[str, str | int | float | bool | None]


def public_url(url: str) -> str:
    """The URL without query string, fragment or credentials: safe to show the user."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _excerpt(response: Fetched, secrets: Sequence[str]) -> str:
    try:
        body = " ".join(response.text.split())
    except Exception:  # undecodable body: the status alone must still be reported
        body = ""
    if len(body) > _EXCERPT_CHARS:
        body = body[:_EXCERPT_CHARS] + "…"
    return without(body, secrets)


def _retry_after(response: Fetched) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date), if present and sane."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _backoff(attempt: int, base_delay: float, max_delay: float) -> float:
    # "Equal jitter": at least half the exponential step, so clients that failed together spread out
    # without any of them retrying immediately.
    step = min(max_delay, base_delay * (2 ** (attempt - 1)))
    return step / 2 + random.uniform(0, step / 2)


class _Again(Exception):
    """A try worth another: what went wrong, and the server's ``Retry-After`` when it gave one."""

    def __init__(self, error: str, retry_after: float | None = None) -> None:
        super().__init__(error)
        self.error = error
        self.retry_after = retry_after


def _retryable_status(status: int) -> bool:
    return status in (408, 429) or status >= 500


def _param(value: str | int | float | bool) -> str:
    """A query value as it is written: ``true``/``false`` for a flag (as httpx and the engines' own
    clients write them), else its text."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def with_params(url: str, params: Params | None) -> str:
    """``url`` with ``params`` added to its query (a ``None`` value left out), form-encoded."""
    pairs = [(name, _param(value)) for name, value in (params or {}).items() if value is not None]
    if not pairs:
        return url
    parts = urlsplit(url)
    query = "&".join(part for part in (parts.query, urlencode(pairs)) if part)
    return urlunsplit(parts._replace(query=query))


def _named(exc: BaseException, secrets: Sequence[str]) -> str:
    return without(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__, secrets)


async def _send(
    client: Clients,
    method: str,
    url: str,
    *,
    params: Params | None,
    json: Any,
    headers: Mapping[str, str] | None,
    attempts: int,
    base_delay: float,
    max_delay: float,
    timeout: float | None,
) -> Fetched:
    shown = public_url(url)
    secrets = request_secrets(params, headers, json if isinstance(json, Mapping) else None)
    attempts = max(1, attempts)
    target = with_params(url, params)
    sent = dict(headers or {})
    # Sent as httpx's ``json=`` sent it: compact UTF-8, no NaN (no JSON reader takes it).
    body = None if json is None else \
        jsonlib.dumps(json, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    # Each try's whole answer, head to last byte, within the request's timeout (a read timeout bounds each
    # read alone).
    seconds = timeout if timeout is not None else client.timeout
    tried = 0

    async def one_try() -> Fetched:
        nonlocal tried
        tried += 1
        try:
            response = await fetch(client, method.upper(), target, body=body, headers=sent, limit=MAX_ANSWER_BYTES,
                                   seconds=seconds, what="its answer", follow_redirects=True)
        except (AnswerTooLarge, AnswerTooSlow) as exc:  # the same again would cost as much: not retried
            raise FactDebateError(f"{method.upper()} {shown}: {exc}, so it was not read") from None
        except TooManyRedirects as exc:
            raise FactDebateError(f"{method.upper()} {shown}: {exc}") from None
        except (ValueError, UnsendableHeader) as exc:
            # A URL that is not http(s), a header no request may carry: retrying cannot help.
            raise EndpointUnavailableError(shown, tried, _named(exc, secrets)) from None
        except OSError as exc:  # timeouts, refused or broken connections, answers that are not HTTP
            raise _Again(_named(exc, secrets)) from None
        status = response.status_code
        if status < 400:
            return response
        if not _retryable_status(status):
            excerpt = _excerpt(response, secrets)
            raise FactDebateError(
                f"{method.upper()} {shown} was rejected with HTTP {status}"
                + (f": {excerpt}" if excerpt else "")
            )
        error = f"HTTP {status}"
        if excerpt := _excerpt(response, secrets):
            error += f": {excerpt}"
        raise _Again(error, _retry_after(response))

    def wait(state: RetryCallState) -> float:
        """The server's ``Retry-After`` when it gives one, capped at ``max_delay``; else jittered backoff."""
        failed = state.outcome.exception() if state.outcome is not None else None
        after = failed.retry_after if isinstance(failed, _Again) else None
        return min(max_delay, after) if after is not None else _backoff(state.attempt_number, base_delay, max_delay)

    # The policy: a connection not opened in time, connection errors, 408, 429 and 5xx are tried again,
    # ``attempts`` tries in all; anything else ends the request at once, an answer past its size or its
    # deadline too. The sleep is looked up per wait (tests make it instant).
    policy = AsyncRetrying(retry=retry_if_exception_type(_Again), stop=stop_after_attempt(attempts), wait=wait,
                           sleep=lambda seconds: _sleep(seconds), reraise=True)
    try:
        return await policy(one_try)
    except _Again as exc:
        raise EndpointUnavailableError(shown, attempts, exc.error) from None


async def request_json(
    client: Clients,
    method: str,
    url: str,
    *,
    params: Params | None = None,
    json: Any = None,
    headers: Mapping[str, str] | None = None,
    attempts: int = 4,
    base_delay: float = 0.5,
    max_delay: float = 20.0,
    timeout: float | None = None,
) -> Any:
    """Send a request with retries (408/429/5xx, connection errors and timeouts: ``Retry-After`` or jittered
    backoff, capped at ``max_delay``) and decode its JSON body; redirects are followed. Each try's whole answer
    is held to 8 MiB and to ``timeout`` seconds (the scope's when None): past either it is not tried again.
    Raises :class:`EndpointUnavailableError` or :class:`FactDebateError`."""
    response = await _send(client, method, url, params=params, json=json, headers=headers,
                           attempts=attempts, base_delay=base_delay, max_delay=max_delay, timeout=timeout)
    try:
        return response.json()
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, or nested past the parser
        secrets = request_secrets(params, headers, json if isinstance(json, Mapping) else None)
        raise FactDebateError(
            f"{public_url(url)} did not return JSON: {_excerpt(response, secrets) or type(exc).__name__}"
        ) from None


async def request_text(
    client: Clients,
    method: str,
    url: str,
    *,
    params: Params | None = None,
    json: Any = None,
    headers: Mapping[str, str] | None = None,
    attempts: int = 4,
    base_delay: float = 0.5,
    max_delay: float = 20.0,
    timeout: float | None = None,
) -> str:
    """Like :func:`request_json` but returns the body as text (for XML endpoints)."""
    response = await _send(client, method, url, params=params, json=json, headers=headers,
                           attempts=attempts, base_delay=base_delay, max_delay=max_delay, timeout=timeout)
    return response.text


@contextlib.asynccontextmanager
async def client_scope(timeout: float) -> AsyncIterator[Clients]:
    """The clients of one search, ``timeout`` on opening a connection and on each read, let go when it ends
    (util/bounded_get.py): its requests share kept connections."""
    clients = Clients(timeout)
    try:
        yield clients
    finally:
        await clients.aclose()


def emit_tool_call(tool: str, query: str, k: int, started: float, docs: list[Document] | None,
                   error: BaseException | None = None) -> None:
    """Trace one request of the engine as ``web_search``, inside the agent's ``tool_call`` span."""
    emit(WebSearch(tool=tool, query=query, k=k, results=len(docs) if docs is not None else 0,
                   seconds=round(time.perf_counter() - started, 4),
                   error=str(error) if error is not None else None))


async def traced_search(tool: str, query: str, k: int,
                        search: Callable[[], Awaitable[list[Document]]]) -> list[Document]:
    """Run one search and emit its ``web_search`` trace event, failed searches included."""
    started = time.perf_counter()
    try:
        docs = await search()
    except Exception as exc:
        emit_tool_call(tool, query, k, started, None, exc)
        raise
    emit_tool_call(tool, query, k, started, docs)
    return docs


def dumps_compact(value: Any) -> str:
    """Compact JSON for error excerpts of unexpected payloads."""
    text = jsonlib.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _EXCERPT_CHARS else text[:_EXCERPT_CHARS] + "…"
