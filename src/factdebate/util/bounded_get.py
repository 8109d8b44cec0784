"""httpx requests whose whole answer is held to a size and a deadline (util/bounded_body.py): the search
tools', tested against recorded answers through httpx's transports.

httpx bounds each read in time but neither the answer's size nor its total time. These helpers stream the raw
body through :func:`~factdebate.util.bounded_body.read_async` and hand back a :class:`Fetched` in memory."""

from __future__ import annotations

import asyncio
import json as json_module
from collections.abc import AsyncIterator
from dataclasses import dataclass
from email.message import Message
from typing import Any

import httpx

from factdebate.util.bounded_body import AnswerTooSlow, Deadline, declared_too_large, read_async


async def raw_bytes(response: httpx.Response) -> AsyncIterator[bytes]:
    """``response.aiter_raw()``, or the content of an answer already read whole (``httpx.MockTransport``)."""
    try:
        async for data in response.aiter_raw():
            yield data
    except httpx.StreamConsumed:
        yield response.content


@dataclass(frozen=True)
class Fetched:
    """An answer read whole: its status, headers, decoded body and the request it answers."""

    status_code: int
    headers: httpx.Headers
    content: bytes
    request: httpx.Request

    @property
    def text(self) -> str:
        """The body as text, in the charset its ``Content-Type`` names (UTF-8 if none); bad bytes replaced."""
        header = Message()
        header["content-type"] = self.headers.get("content-type", "")
        charset = header.get_content_charset() or "utf-8"
        try:
            return self.content.decode(charset, "replace")
        except LookupError:  # a charset Python does not know
            return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json_module.loads(self.content)


async def fetch(client: httpx.AsyncClient, request: httpx.Request, *, limit: int, seconds: float, what: str,
                follow_redirects: bool = False) -> Fetched:
    """``request``'s answer read whole within ``limit`` decoded bytes and ``seconds``, else
    :class:`AnswerTooLarge` / :class:`AnswerTooSlow` naming ``what``; httpx's own errors pass as they are."""
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
    return Fetched(response.status_code, response.headers, body, request)
