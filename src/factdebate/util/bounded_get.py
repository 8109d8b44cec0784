"""Requests read whole within a size and a deadline on the package's one HTTP client (util/http_client.py): the
search tools', tested against recorded answers served on loopback.

:func:`fetch` follows a redirect where asked, within the same deadline, as a browser does (a ``303``, or a
``301``/``302`` to a ``POST``, becomes a ``GET`` without its body; an ``Authorization`` header goes to no other
origin), and hands back a :class:`Fetched` in memory. The failures are http_client's: ``TimeoutError``
(:class:`~factdebate.util.http_client.ConnectTimeout` while connecting, :class:`AnswerTooSlow` once the deadline
passed), ``ConnectionError``, :class:`AnswerTooLarge`; and :class:`TooManyRedirects`, ``ValueError`` for a URL
that is not http(s)."""

from __future__ import annotations

import json as json_module
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from typing import Any
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from factdebate.util.bounded_body import AnswerTooSlow, Deadline
from factdebate.util.http_client import Client, ConnectTimeout, Reply

MAX_REDIRECTS = 20  # as many as httpx and requests follow
REDIRECTS = (301, 302, 303, 307, 308)
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"  # what a path keeps as written: its escapes included


class TooManyRedirects(Exception):
    """More redirects than :data:`MAX_REDIRECTS` in a row: a loop, most likely."""


@dataclass(frozen=True)
class Fetched:
    """An answer read whole: its status, headers, decoded body and the URL that gave it (after redirects)."""

    status_code: int
    headers: Mapping[str, str]
    content: bytes
    url: str

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


class Clients:
    """The clients of one piece of work (a search): one :class:`Client` per origin and set of headers, made on
    first use and let go together, so that its requests share kept connections of the loop's one session.
    ``timeout`` bounds opening a connection and each read."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._made: dict[tuple[str, str, tuple[tuple[str, str], ...]], Client] = {}

    def client(self, origin: str, headers: Mapping[str, str], what: str) -> Client:
        key = (origin, what, tuple(sorted(headers.items())))
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = Client(origin, headers, self.timeout, what=what)
        return made

    async def aclose(self) -> None:
        made, self._made = list(self._made.values()), {}
        for client in made:
            await client.aclose()


def _split(url: str) -> tuple[str, str]:
    """``url`` as its origin (credentials kept: the client sends them as Basic auth) and the path and query it
    asks for; ``ValueError`` naming no URL for one that is not http(s)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("not an http or https URL")
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    return urlunsplit((parts.scheme, parts.netloc, "", "", "")), path + (f"?{parts.query}" if parts.query else "")


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme, parts.hostname or "", parts.port


def _keeps_authorization(old: str, new: str) -> bool:
    """Whether a redirect from ``old`` to ``new`` may carry the ``Authorization`` header: the same origin, or
    the same host moved from http to https on the default ports (httpx's rule)."""
    before, after = _origin(old), _origin(new)
    return before == after or (before[:2] == ("http", after[1]) and after[0] == "https"
                               and before[2] in (None, 80) and after[2] in (None, 443))


async def _ask(clients: Clients, method: str, url: str, body: bytes | None, headers: Mapping[str, str],
               limit: int, deadline: Deadline) -> Reply:
    origin, path = _split(url)
    client = clients.client(origin, headers, deadline.what)
    if method == "GET":
        return await client.get(path, max_bytes=limit, total=deadline.left())
    if method == "POST":
        return await client.post(path, body or b"", max_bytes=limit, total=deadline.left())
    raise ValueError(f"only GET and POST are sent, not {method[:20]!r}")


async def _followed(clients: Clients, method: str, url: str, body: bytes | None, headers: Mapping[str, str],
                    limit: int, deadline: Deadline, follow: bool) -> Fetched:
    for _ in range(MAX_REDIRECTS + 1):
        reply = await _ask(clients, method, url, body, headers, limit, deadline)
        location = reply.headers.get("Location") if follow and reply.status in REDIRECTS else None
        if not location:
            return Fetched(reply.status, reply.headers, await reply.read(), url)
        reply.close()  # a redirect's own body is not wanted: its connection goes, not its bytes
        target = urljoin(url, location.strip())
        if reply.status == 303 or (reply.status in (301, 302) and method == "POST"):
            method, body = "GET", None
        if not _keeps_authorization(url, target):
            headers = {name: value for name, value in headers.items() if name.lower() != "authorization"}
        url = target
    raise TooManyRedirects(f"more than {MAX_REDIRECTS} redirects in a row")


async def fetch(clients: Clients, method: str, url: str, *, body: bytes | None = None,
                headers: Mapping[str, str] | None = None, limit: int, seconds: float, what: str,
                follow_redirects: bool = False) -> Fetched:
    """``method url`` (``GET`` or ``POST`` of ``body``, sent as JSON) read whole within ``limit`` decoded bytes
    and ``seconds`` from now, redirects included, else :class:`AnswerTooLarge` / :class:`AnswerTooSlow` naming
    ``what``; the client's other failures pass as they are."""
    deadline = Deadline(seconds, what)
    try:
        return await _followed(clients, method, url, body, headers or {}, limit, deadline, follow_redirects)
    except ConnectTimeout:
        raise
    except TimeoutError as exc:
        # Each hop had what was left of the deadline: whichever timer ended it, the answer did not end in time
        # (a head that trickled, a server that never answered), said in the whole answer's words.
        if isinstance(exc, AnswerTooSlow) or time.monotonic() >= deadline.at:
            raise AnswerTooSlow(what, seconds) from exc
        raise
