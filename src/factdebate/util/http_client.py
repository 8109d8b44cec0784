"""The package's HTTP client: aiohttp, one ``ClientSession`` per event loop, shared by the guard's upstream
calls, the model calls of the checker and of every paper method (llm/openai_http.py) and the downloads of
pinned GitHub files (hub/github.py), and closed when its last user closes (the service's shutdown closes the
rest).

aiohttp was chosen for its CPU per call: a profile of the guard at 10-50 streams found a third of its CPU in
httpx and httpcore making the checker's calls, and the OpenAI SDK costs more again
(benchmarks/http_clients.py measures each against one loopback server).

What the client holds an answer to, whatever the server sends (a broken or hostile one can send a body with
no end, claim a length it never sends, trickle a byte at a time or send a gzip bomb although ``identity`` is
asked):

- its size after decoding (util/bounded_body.py's :class:`Decoder`: the session leaves bodies encoded, so
  that a gzip bomb stops at the limit, not after it inflated); a ``Content-Length`` over the limit is refused
  before a byte of the body is read; each line of a streamed answer to a size of its own;
- a deadline for the whole answer from the moment its request is sent, besides the timeout on each read
  and a bound on opening the connection;
- connections kept alive per origin for less time than common servers keep them (uvicorn and llama.cpp's
  server: 5 s); an answer not read to its end closes its connection, so a server streaming it stops. A
  request is sent once: a kept connection that closes before any byte of its answer came may have carried
  it to the server, which may have spent on it, so trying again is the caller's retry policy's to decide or
  the operator's to allow (``resend_unanswered``);
- proxies as the environment names them (``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``), for every call, by
  aiohttp's own rule (:func:`proxy_for`); TLS through the platform's checks (``SSL_CERT_FILE``/``SSL_CERT_DIR``,
  else certifi's bundle where installed).

Failures are Python's, whichever aiohttp error caused them: ``TimeoutError`` (:class:`ConnectTimeout` while
connecting, ``AnswerTooSlow`` past the deadline), ``ConnectionError`` (:class:`CannotConnect` for a server
never reached, :class:`BrokenReply` for an answer that is not HTTP or ends early, :class:`UnsendableHeader`),
``AnswerTooLarge``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
import ssl
import time
import weakref
from base64 import b64encode
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import aiohttp
from yarl import URL

from factdebate.util.bounded_body import MIB, AnswerTooLarge, AnswerTooSlow, Deadline, Decoder, lines_async
from factdebate.util.scrub.held import remember_endpoints, remember_secrets

MAX_BODY_BYTES = 16 * MIB  # an answer's default size limit: a long chat completion is well under 1 MiB
MAX_LINE_BYTES = 4 * MIB  # one line of a streamed answer (a chunk event is a few hundred bytes)
KEEP_ALIVE_S = 4.0  # under the 5 s that uvicorn and llama.cpp's server keep an idle connection open
READ_BUFFER = 1 << 16  # aiohttp's per-connection buffer: reading pauses past twice this, so a flood waits
READ_BYTES = 1 << 16  # the most one read hands on: a limit is checked on pieces no larger than this
COMPRESSED = ("gzip", "x-gzip", "deflate")


class BrokenReply(ConnectionError):
    """The server's answer is not HTTP/1.x, or its connection ended before the answer did."""


class CannotConnect(ConnectionError):
    """No connection could be opened: refused, no such host, a proxy that refused it."""


class ConnectTimeout(TimeoutError):
    """No connection opened in time (``connect_timeout``, or the call's ``timeout`` ending first): a server that
    was never reached, told apart from one that did not answer (the guard names the two as httpx did)."""


class UnsendableHeader(ConnectionError):
    """A header holds a line break or NUL (a key read with its file's newline): nothing is sent. Named, never
    shown: a value is often a key."""


def sendable(headers: Mapping[str, str]) -> bool:
    """Whether ``headers`` can be written as they are: no CR, LF or NUL in a name or value (a key read with its
    file's newline would end the request's head early and send the rest as its body)."""
    return not any(char in text for name, value in headers.items() for text in (name, value)
                   for char in "\r\n\0")


def tls_context() -> ssl.SSLContext:
    """The default verifying context; the CA bundle from ``SSL_CERT_FILE``/``SSL_CERT_DIR``, else certifi's
    (as httpx verifies), else the system's. Made once for each value of those variables: loading a bundle
    takes tens of milliseconds."""
    return _tls_context(os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None)


@functools.lru_cache(maxsize=4)
def _tls_context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    if cafile is None and capath is None:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:  # pragma: no cover - a dependency: only a broken install lacks it
            pass
    return ssl.create_default_context(cafile=cafile, capath=capath)


async def _connected(_: aiohttp.ClientSession, context: Any, __: Any) -> None:
    """aiohttp's trace hook once a request has its connection (new or kept): noted on the request's own flag
    (``trace_request_ctx``), so that a timeout while still connecting is told from one waiting for the answer."""
    context.trace_request_ctx[0] = True


def _connection_trace() -> aiohttp.TraceConfig:
    trace = aiohttp.TraceConfig()
    trace.on_connection_create_end.append(_connected)
    trace.on_connection_reuseconn.append(_connected)
    trace.freeze()
    return trace


class _Shared:
    __slots__ = ("closer", "session", "users")

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self.session, self.users = session, 0
        self.closer = _close_at_loop_end(session)
        # Started here, without awaiting: the first step registers it with the running loop's async
        # generators and stops at its ``yield`` (no await before it, so the step ends at once).
        with suppress(StopIteration):
            self.closer.__anext__().send(None)


async def _close_at_loop_end(session: aiohttp.ClientSession) -> AsyncGenerator[None, None]:
    """Closes ``session`` when its loop shuts down its async generators (``asyncio.run`` does, as its last
    step), so that a model client its caller never closed leaves no open connection and no "Unclosed client
    session" warning at exit, as the OpenAI SDK's clients leave none."""
    try:
        yield
    finally:
        if not session.closed:
            await session.close()


# One session per event loop (a session and its connections belong to the loop that made them).
_SESSIONS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Shared] = weakref.WeakKeyDictionary()


def proxy_for(url: URL) -> tuple[URL | None, aiohttp.BasicAuth | None]:
    """The proxy the environment names for ``url`` and its credentials, by the rule aiohttp's ``trust_env``
    follows (``HTTPS_PROXY``/``HTTP_PROXY`` by scheme, ``NO_PROXY`` honoured, a proxy's password from its URL
    or ``~/.netrc``); (None, None) for none. Asked once a client, not at each call as ``trust_env`` asks it:
    that costs two thread hand-offs and a read of the environment and of ``~/.netrc`` a call, more CPU than
    the rest of the call (benchmarks/http_clients.py), and a ``~/.netrc`` entry for the model's host would
    clash with its key's ``Authorization`` (aiohttp refuses the request)."""
    from aiohttp.helpers import get_env_proxy_for_url

    try:
        return get_env_proxy_for_url(url)
    except LookupError:  # none named, or NO_PROXY names the host
        return None, None


def _new_session() -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=KEEP_ALIVE_S, ssl=tls_context(), ttl_dns_cache=10)
    # The environment's proxy comes with each request (proxy_for), so the session reads none itself.
    # auto_decompress off: a body is decoded here, within its limit. No cookies kept: a model server's would
    # travel between callers.
    return aiohttp.ClientSession(connector=connector, trust_env=False, auto_decompress=False,
                                 cookie_jar=aiohttp.DummyCookieJar(), read_bufsize=READ_BUFFER,
                                 skip_auto_headers=("User-Agent",), trace_configs=[_connection_trace()])


def acquire() -> aiohttp.ClientSession:
    """The running loop's session, counted as one more user (:func:`release` when done)."""
    loop = asyncio.get_running_loop()
    shared = _SESSIONS.get(loop)
    if shared is None or shared.session.closed:
        shared = _SESSIONS[loop] = _Shared(_new_session())
    shared.users += 1
    return shared.session


async def release(session: aiohttp.ClientSession) -> None:
    """One user fewer of ``session``; closed with its connections when it was the last (on its own loop)."""
    loop = asyncio.get_running_loop()
    shared = _SESSIONS.get(loop)
    if shared is None or shared.session is not session:
        return  # another loop's, or already closed
    shared.users -= 1
    if shared.users <= 0:
        del _SESSIONS[loop]
        await shared.closer.aclose()  # closes the session


async def close_session() -> None:
    """The running loop's session closed, whoever still holds it (a server's shutdown): a user that calls again
    opens a fresh one."""
    shared = _SESSIONS.pop(asyncio.get_running_loop(), None)
    if shared is not None:
        await shared.closer.aclose()  # closes the session


def _endpoint(base_url: str, headers: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """``base_url`` without the user and password it may hold, which go as Basic auth instead of any
    ``Authorization`` given (as httpx sent them: the URL's credentials are the more specific)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {base_url!r}")
    if parts.username is None and parts.password is None:
        return base_url.rstrip("/"), dict(headers)
    host = parts.netloc.rpartition("@")[2]
    user = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    basic = {"Authorization": f"Basic {b64encode(user.encode()).decode('ascii')}"}
    kept = {name: value for name, value in headers.items() if name.lower() != "authorization"}
    return urlunsplit(parts._replace(netloc=host)).rstrip("/"), {**kept, **basic}


class Reply:
    """An answer's status and headers; its body read whole (:meth:`read`) or as it comes (:meth:`chunks`,
    :meth:`lines`). :meth:`close` gives the connection back when the body was read to its end, else closes it."""

    def __init__(self, response: aiohttp.ClientResponse, read_timeout: float, limit: int,
                 deadline: Deadline) -> None:
        self.status, self.headers = response.status, response.headers
        self.response, self.read_timeout, self.limit, self.deadline = response, read_timeout, limit, deadline
        coding = response.headers.get("Content-Encoding", "").lower().strip()
        self.coding = coding if coding in COMPRESSED else ""
        self._done = False
        length = response.content_length
        if length is not None and length > limit and not self.coding:  # said at once: not a byte of it is read
            response.close()
            raise AnswerTooLarge(deadline.what, limit)

    async def _raw(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive, each read within the read timeout (aiohttp's) and all of them
        within the answer's deadline."""
        content = self.response.content
        with _body_errors(self.deadline):
            while True:
                async with asyncio.timeout(self.deadline.left()):
                    data = await content.read(READ_BYTES)
                if not data:
                    self._done = True
                    return
                yield data

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body as it arrives, decoded where the server compressed it, at most :attr:`limit` bytes."""
        decoder = Decoder(self.coding, self.limit, self.deadline.what)
        try:
            async for raw in self._raw():
                for data in decoder.pieces(raw):
                    yield data
            if tail := decoder.flush():
                yield tail
        except ConnectionError as exc:
            if isinstance(exc, BrokenReply):
                raise
            raise BrokenReply(str(exc)) from exc  # a compressed body that does not decode

    async def lines(self, limit: int = MAX_LINE_BYTES) -> AsyncIterator[str]:
        """The body's lines (UTF-8, line ends removed) as they arrive: a server-sent event stream's. Each is
        at most ``limit`` bytes, and splitting them costs time linear in the body."""
        async for line in lines_async(self.chunks(), limit, self.deadline.what):
            yield line

    async def read(self) -> bytes:
        """The whole body; the connection given back."""
        try:
            length = self.response.content_length
            if length is not None and not self.coding:  # already held to the limit: one read, no generators
                return await self._exactly(length)
            return b"".join([data async for data in self.chunks()])
        finally:
            self.close()

    async def _exactly(self, length: int) -> bytes:
        try:
            with _body_errors(self.deadline):
                async with asyncio.timeout(self.deadline.left()):
                    data = await self.response.content.readexactly(length)
        except asyncio.IncompleteReadError as exc:
            raise BrokenReply(f"the connection ended inside the body ({length - len(exc.partial)} bytes "
                              "before its end)") from exc
        self._done = True
        return data

    async def drain(self, seconds: float) -> None:
        """What is left of the body read and dropped, for at most ``seconds`` (the end of a stream after its
        last event), so that the connection can be reused; closed when it does not end by then."""
        try:
            if not self._done:
                async with asyncio.timeout(seconds):
                    async for _ in self._raw():
                        pass
        except (TimeoutError, OSError):
            pass
        finally:
            self.close()

    def close(self) -> None:
        """The connection back to the pool if the body was read to its end; else closed (a stream left
        mid-way: the server sees its client gone and stops)."""
        if self._done:
            self.response.release()
        else:
            self.response.close()


def _reason(exc: BaseException) -> str:
    """What aiohttp said failed, without the URL its messages carry (an address is the operator's to know)."""
    message = getattr(exc, "message", None)
    return str(message) if message else type(exc).__name__


def _os_reason(error: OSError) -> str:
    """The system's words for ``error`` ("Connection refused"), without the address its text may carry."""
    return os.strerror(error.errno) if isinstance(error.errno, int) and error.errno > 0 else type(error).__name__


@contextmanager
def _body_errors(deadline: Deadline) -> Iterator[None]:
    """A body's read failures in the words every reader of a body uses: its deadline or a read's timeout
    passing, the connection ending inside it, any other failure of aiohttp's."""
    try:
        yield
    except TimeoutError as exc:
        raise _late(exc, deadline) from exc
    except aiohttp.ClientPayloadError as exc:
        raise BrokenReply(f"the connection ended inside the body ({_reason(exc)})") from exc
    except aiohttp.ClientError as exc:
        raise BrokenReply(_reason(exc)) from exc


def _late(exc: TimeoutError, deadline: Deadline) -> TimeoutError:
    """A read's timeout as what it was: the whole answer's deadline passing, or one read."""
    if isinstance(exc, AnswerTooSlow):
        return exc
    if time.monotonic() >= deadline.at:
        return AnswerTooSlow(deadline.what, deadline.seconds)
    return TimeoutError("no data within the read timeout")


async def fetch(url: str, headers: Mapping[str, str], *, limit: int, seconds: float, what: str,
                json_body: bytes | None = None) -> tuple[int, bytes]:
    """``GET url`` (``POST`` of ``json_body`` when given) read whole, at most ``limit`` bytes and ``seconds``
    from now to its end: (status, body). A server that does not answer so raises ``OSError``
    (``TimeoutError``, ``ConnectionError``, ``AnswerTooLarge``), whatever aiohttp said."""
    parts = urlsplit(url)
    client = Client(urlunsplit((parts.scheme, parts.netloc, "", "", "")), headers, seconds, max_bytes=limit,
                    what=what)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        reply = await (client.get(path) if json_body is None else client.post(path, json_body))
        return reply.status, await reply.read()
    finally:
        await client.aclose()


def fetch_blocking(url: str, headers: Mapping[str, str], *, limit: int, seconds: float, what: str,
                   json_body: bytes | None = None) -> tuple[int, bytes]:
    """:func:`fetch` for code that cannot await (a command's start-up probe): on an event loop of its own in a
    worker thread, whether or not the caller's thread runs a loop already."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="factdebate-probe") as pool:
        return pool.submit(asyncio.run, fetch(url, headers, limit=limit, seconds=seconds, what=what,
                                              json_body=json_body)).result()


class Client:
    """Requests to one base URL through the running loop's shared session; ``headers`` go with every request.
    ``connect_timeout`` bounds a new connection's opening apart from ``timeout`` (the bound on each read);
    each answer is held to ``max_bytes`` and, from the moment its request is sent, to ``total`` seconds
    (default ``timeout``); ``what`` names the answer in those failures' words ("the upstream model's answer").
    A request goes once more on another connection after its kept one closed unanswered only where
    ``resend_unanswered`` allows it."""

    def __init__(self, base_url: str, headers: Mapping[str, str], timeout: float,
                 connect_timeout: float | None = None, max_bytes: int = MAX_BODY_BYTES,
                 total: float | None = None, what: str = "the server's answer",
                 resend_unanswered: bool = False) -> None:
        url, sent = _endpoint(base_url, headers)
        # Refused when sent (an error the caller reports as it reports failing to reach the server), not here.
        self.unsendable = [name for name, value in sent.items() if not sendable({name: value})]
        self.base = URL(url)
        self.proxy, self.proxy_auth = proxy_for(self.base)
        self.headers = {"Accept-Encoding": "identity", "User-Agent": "factdebate", **sent}
        self._json_headers = {**self.headers, "Content-Type": "application/json"}
        self.timeout, self.what = timeout, what
        self.connect_timeout = min(timeout, connect_timeout) if connect_timeout is not None else timeout
        self.max_bytes, self.total = max_bytes, timeout if total is None else total
        self.resend_unanswered = resend_unanswered
        self._timeouts = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=self.connect_timeout,
                                               sock_read=timeout)
        # An answer due within the read timeout needs no timer of aiohttp's on each read besides its deadline's
        # (a read that waits the read timeout passes the deadline first): one timer fewer each piece read.
        self._deadline_bound = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=self.connect_timeout,
                                                     sock_read=None)
        self._urls: dict[str, URL] = {}
        self._held: tuple[asyncio.AbstractEventLoop, aiohttp.ClientSession] | None = None

    @classmethod
    def operators(cls, base_url: str, key: str | None, timeout: float, headers: Mapping[str, str] | None = None,
                  **options: Any) -> Client:
        """A client of one of the operator's servers (a model's, a search engine's), ``key`` sent as ``Bearer``
        with ``headers``: the server's address and ``key`` are remembered as what no caller may read
        (util/scrub/held.py), whatever text carries them later. ``options`` as :class:`Client` takes them."""
        remember_endpoints([base_url])
        remember_secrets([key] if key else [])
        sent = {"Authorization": f"Bearer {key}"} if key else {}
        return cls(base_url, {**sent, **(headers or {})}, timeout, **options)

    def _session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        held = self._held
        if held is None or held[0] is not loop or held[1].closed:
            self._held = held = (loop, acquire())
        return held[1]

    def url(self, path: str) -> URL:
        """``path`` under the base URL's path, its query kept."""
        url = self._urls.get(path)
        if url is None:
            url = self._urls[path] = self.base.with_path(self.base.path.rstrip("/") + path, encoded=True) \
                .with_query(self.base.query_string or None)
        return url

    async def aclose(self) -> None:
        """This client's hold on its loop's session let go (the session closes with its last user)."""
        held, self._held = self._held, None
        if held is not None and held[0] is asyncio.get_running_loop():
            await release(held[1])

    async def post(self, path: str, body: bytes, content_type: str = "application/json", *,
                   max_bytes: int | None = None, total: float | None = None) -> Reply:
        """``POST base+path`` with ``body``; the reply once its head came (read its body, then close it).
        ``max_bytes`` and ``total`` (seconds from now to the answer's end) for this answer, else the client's."""
        headers = self._json_headers if content_type == "application/json" else \
            {**self.headers, "Content-Type": content_type}
        return await self._send("POST", path, body, headers, max_bytes, total)

    async def get(self, path: str, *, max_bytes: int | None = None, total: float | None = None) -> Reply:
        """``GET base+path``, as :meth:`post` (a redirect is the caller's to follow or refuse)."""
        return await self._send("GET", path, None, self.headers, max_bytes, total)

    async def _send(self, method: str, path: str, body: bytes | None, headers: Mapping[str, str],
                    max_bytes: int | None, total: float | None) -> Reply:
        if self.unsendable:
            raise UnsendableHeader("a header holds a line break or NUL: "
                                   + ", ".join(repr(name) for name in self.unsendable)[:200])
        session = self._session()
        url = self.url(path)
        deadline = Deadline(self.total if total is None else total, self.what)
        timeouts = self._deadline_bound if deadline.seconds <= self.timeout else self._timeouts
        limit = self.max_bytes if max_bytes is None else max_bytes
        resend = self.resend_unanswered
        while True:
            connected = [False]  # set by _connected once the request has its connection
            try:
                async with asyncio.timeout(min(self.timeout, deadline.left())):
                    response = await session.request(method, url, data=body, headers=headers, timeout=timeouts,
                                                     allow_redirects=False, proxy=self.proxy,
                                                     proxy_auth=self.proxy_auth, trace_request_ctx=connected)
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientConnectionResetError) as exc:
                # closed before any byte of the answer came (a kept connection its server had just closed)
                if resend:
                    resend = False
                    continue  # allowed: once more (the next connection is new, or newer)
                if isinstance(exc, aiohttp.ClientConnectionResetError):
                    raise ConnectionResetError(str(exc) or type(exc).__name__) from exc
                raise BrokenReply("the connection ended before the answer's head did") from exc
            except aiohttp.ConnectionTimeoutError as exc:
                raise ConnectTimeout("no connection opened within the timeout") from exc
            except aiohttp.ClientConnectorError as exc:
                if isinstance(exc, aiohttp.ClientSSLError):
                    raise ConnectionError(f"TLS: {exc.os_error}") from exc
                raise CannotConnect(f"no connection opened ({_os_reason(exc.os_error)})") from exc
            except aiohttp.ServerTimeoutError as exc:  # the head's read timed out
                raise TimeoutError("no answer within the read timeout") from exc
            except TimeoutError as exc:
                if not connected[0]:  # still connecting (a dropped handshake, a TLS one that stalled)
                    raise ConnectTimeout("no connection opened within the timeout") from exc
                # no head in time, however slowly it came: the server did not answer (a read timeout)
                raise TimeoutError("no answer within the timeout") from exc
            except aiohttp.ClientResponseError as exc:  # not HTTP, a head that breaks its rules
                raise BrokenReply(f"not an HTTP/1.x answer: {_reason(exc)}") from exc
            except aiohttp.ClientConnectionError as exc:  # reset, broken pipe
                raise ConnectionError(str(exc) or type(exc).__name__) from exc
            except aiohttp.ClientError as exc:
                raise BrokenReply(_reason(exc)) from exc
            return Reply(response, self.timeout, limit, deadline)
