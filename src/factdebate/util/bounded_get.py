"""httpx requests whose whole answer, head and body, is held to a size and a deadline (util/bounded_body.py).

httpx bounds each read in time but neither the answer's size nor its total time: a server that trickles a
byte every second, or sends a gigabyte, is read to its end. These helpers send with ``stream=True``, read
the raw body through :func:`~factdebate.util.bounded_body.read_async` and hand back an ordinary
``httpx.Response`` with the (decoded) body in memory, so callers read ``.status_code``, ``.text`` and
``.json()`` as before."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

from factdebate.util.bounded_body import AnswerTooSlow, Deadline, declared_too_large, read_async


async def raw_bytes(response: httpx.Response) -> AsyncIterator[bytes]:
    """``response.aiter_raw()``; for an answer already read whole (an ``httpx.MockTransport``'s, made with
    its content), that content, already within the size it was made with."""
    try:
        async for data in response.aiter_raw():
            yield data
    except httpx.StreamConsumed:
        yield response.content


def _kept_headers(headers: httpx.Headers) -> dict[str, str]:
    # The body is decoded here: httpx must not undo its Content-Encoding again.
    return {name: value for name, value in headers.items() if name.lower() != "content-encoding"}


async def fetch(client: httpx.AsyncClient, request: httpx.Request, *, limit: int, seconds: float, what: str,
                follow_redirects: bool = False) -> httpx.Response:
    """``request`` sent through ``client`` and its answer read whole: at most ``limit`` bytes (decoded) and
    ``seconds`` from now to its last byte, else :class:`AnswerTooLarge` / :class:`AnswerTooSlow` (``what``
    names the answer in their words). httpx's own errors pass as they are."""
    deadline = Deadline(seconds, what)
    request.headers["Accept-Encoding"] = "identity"  # decoded here, within the limit, if a server ignores it
    try:
        async with asyncio.timeout(seconds):
            response = await client.send(request, stream=True, follow_redirects=follow_redirects)
            try:
                encoding = response.headers.get("content-encoding", "")
                if not encoding:
                    declared_too_large(response.headers.get("content-length"), limit, what)
                body = await read_async(raw_bytes(response), encoding, limit, deadline)
            finally:
                await response.aclose()
    except AnswerTooSlow:
        raise
    except TimeoutError as exc:  # the head itself trickled past the deadline
        raise AnswerTooSlow(what, seconds) from exc
    return httpx.Response(response.status_code, headers=_kept_headers(response.headers), content=body,
                          request=request)


def fetch_blocking(method: str, url: str, *, headers: Mapping[str, str], limit: int, seconds: float, what: str,
                   json: Any = None) -> httpx.Response:
    """:func:`fetch` for code that cannot await (a command's start-up probe): run on an event loop of its own
    in a worker thread, so that the deadline holds for the head too, which a blocking client cannot cut short,
    and whether or not the caller's thread runs a loop already."""

    async def one() -> httpx.Response:
        async with httpx.AsyncClient(timeout=seconds, headers=dict(headers)) as client:
            return await fetch(client, client.build_request(method, url, json=json), limit=limit,
                               seconds=seconds, what=what)

    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="factdebate-probe") as pool:
        return pool.submit(asyncio.run, one()).result()
