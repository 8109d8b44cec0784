"""A raw HTTP/1.1 client on asyncio streams, for the benchmarks' load clients and as the floor that
benchmarks/http_clients.py measures the package's client (aiohttp, util/http_client.py) against.

It does only what a benchmark's POST needs, with the least CPU: one ``write`` of the request line, headers
and body; the reply's head read in one ``readuntil``; bodies framed by Content-Length, chunked, or the
connection's end (gzip/deflate decoded all the same), read whole or as they come; every answer held to a size
and a deadline; connections kept alive per origin and reused newest first. No proxy, no redirects. It is not
the package's client: the package's calls go through util/http_client.py."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from urllib.parse import urlsplit

from factdebate.util.bounded_body import MIB, AnswerTooLarge, AnswerTooSlow, Deadline, Decoder, lines_async

LIMIT = 1 << 20  # the longest head or chunk-size line read (asyncio's default, 64 KiB, is short for a head)
READ_BYTES = 1 << 16
MAX_BODY_BYTES = 16 * MIB  # an answer's default size limit: a long chat completion is well under 1 MiB
MAX_LINE_BYTES = 4 * MIB  # one line of a streamed answer (a chunk event is a few hundred bytes)
KEEP_ALIVE_S = 4.0  # under the 5 s that uvicorn and llama.cpp's server keep an idle connection open
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,15}")  # no sign, no 0x, nothing int(..., 16) would also take


class BrokenReply(ConnectionError):
    """The server's answer is not HTTP/1.x, or its connection ended before the answer did."""


class ConnectTimeout(TimeoutError):
    """No connection opened in time (``connect_timeout``, or the call's ``timeout`` ending first): a server that
    was never reached, told apart from one that did not answer (the guard names the two as httpx did)."""


def sendable(headers: Mapping[str, str]) -> bool:
    """Whether ``headers`` can be written as they are: no CR, LF or NUL in a name or value (a key read with its
    file's newline would end the request's head early and send the rest as its body). httpx refuses them too."""
    return not any(char in text for name, value in headers.items() for text in (name, value)
                   for char in "\r\n\0")


def tls_context() -> ssl.SSLContext:
    """The default verifying context; the CA bundle from ``SSL_CERT_FILE``/``SSL_CERT_DIR``, else certifi's
    (as httpx verifies), else the system's."""
    cafile, capath = os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None
    if cafile is None and capath is None:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:  # pragma: no cover - httpx brings certifi
            pass
    context = ssl.create_default_context(cafile=cafile, capath=capath)
    context.set_alpn_protocols(["http/1.1"])
    return context


class Connection:
    __slots__ = ("idle_since", "loop", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.reader, self.writer, self.loop, self.idle_since = reader, writer, loop, 0.0

    def usable(self, loop: asyncio.AbstractEventLoop, now: float, keep_alive_s: float) -> bool:
        """Still worth a request: on this loop, not idle too long, not closed by its server."""
        return (self.loop is loop and now - self.idle_since < keep_alive_s and not self.reader.at_eof()
                and not self.writer.is_closing())

    def abort(self) -> None:
        """Closed at once, unsent bytes dropped (a closed loop's transport is already gone)."""
        with contextlib.suppress(RuntimeError):  # its loop is closed
            self.writer.transport.abort()


class Reply:
    """An answer's status and headers; its body read whole (:meth:`read`) or as it comes (:meth:`chunks`,
    :meth:`lines`). :meth:`close` gives the connection back when the body was read to its end, else closes it."""

    def __init__(self, pool: Pool, connection: Connection, status: int, headers: dict[str, str],
                 reusable: bool, method: str, limit: int, deadline: Deadline) -> None:
        self.status, self.headers = status, headers
        self._pool, self._connection, self._reusable = pool, connection, reusable
        self._done = self._closed = False
        self.limit, self.deadline = limit, deadline
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        length = headers.get("content-length")
        self._left: int | None = None  # Content-Length bytes left to read; None: chunked or to the end
        coding = headers.get("content-encoding", "").lower().strip()
        self._coding = coding if coding in ("gzip", "x-gzip", "deflate") else ""
        if method == "HEAD" or status in (204, 304):
            self._left, chunked = 0, False
        elif not chunked and length is not None:
            if not (length.strip().isascii() and length.strip().isdigit()):  # "-1" would leave the body unread
                raise BrokenReply(f"a Content-Length that is not a whole number: {length[:40]!r}")
            self._left = int(length)
            if self._left > limit and not self._coding:  # said at once: not a byte of it is read
                raise AnswerTooLarge(deadline.what, limit)
        self._chunked = chunked
        if not chunked and self._left is None:
            self._reusable = False  # read to the connection's end
        if self._left == 0:
            self._finished()

    def _finished(self) -> None:
        self._done = True

    def _timeout(self) -> float:
        """The next read's timeout: the pool's per read, or what is left of the whole answer's deadline."""
        return min(self._pool.timeout, self.deadline.left())

    async def _raw(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive (framing removed), each read within the pool's timeout and all of
        them within the answer's deadline."""
        reader = self._connection.reader
        try:
            if self._chunked:
                while True:
                    async with asyncio.timeout(self._timeout()):
                        line = await reader.readuntil(b"\r\n")
                        field = line.split(b";", 1)[0].strip()
                        if not _CHUNK_SIZE.fullmatch(field):
                            raise BrokenReply(f"a chunk size that is not hexadecimal: {line[:40]!r}")
                        size = int(field, 16)
                        if size == 0:
                            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, unread
                                pass
                            self._finished()
                            return
                        data = await reader.readexactly(size + 2)
                    if data[-2:] != b"\r\n":
                        raise BrokenReply("a chunk not followed by CRLF")
                    yield data[:-2]
            elif self._left is not None:
                while self._left > 0:
                    async with asyncio.timeout(self._timeout()):
                        data = await reader.read(min(self._left, READ_BYTES))
                    if not data:
                        raise BrokenReply(f"the connection ended {self._left} bytes before the body's end")
                    self._left -= len(data)
                    yield data
                self._finished()
            else:
                while True:
                    async with asyncio.timeout(self._timeout()):
                        data = await reader.read(READ_BYTES)
                    if not data:
                        self._finished()
                        return
                    yield data
        except asyncio.IncompleteReadError as exc:
            raise BrokenReply("the connection ended inside the body") from exc
        except asyncio.LimitOverrunError as exc:
            raise BrokenReply("a chunk header past the line limit") from exc
        except TimeoutError as exc:
            self._late(exc)

    def _late(self, exc: TimeoutError) -> None:
        """A read's timeout raised again as what it was: the whole answer's deadline passing, or one read."""
        if isinstance(exc, AnswerTooSlow):
            raise exc
        if time.monotonic() >= self.deadline.at:
            raise AnswerTooSlow(self.deadline.what, self.deadline.seconds) from exc
        raise exc

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body as it arrives, decoded where the server compressed it, at most :attr:`limit` bytes."""
        if self._done:
            return
        decoder = Decoder(self._coding, self.limit, self.deadline.what)
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
            if self._left and not self._coding:  # a plain Content-Length body: one read, no generators
                try:
                    async with asyncio.timeout(self._timeout()):
                        data = await self._connection.reader.readexactly(self._left)
                except asyncio.IncompleteReadError as exc:
                    raise BrokenReply(f"the connection ended {self._left - len(exc.partial)} bytes before the "
                                      "body's end") from exc
                except TimeoutError as exc:
                    self._late(exc)
                self._left = 0
                self._finished()
                return data
            return b"".join([data async for data in self.chunks()])
        finally:
            self.close()

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
        """The connection back to the pool if the body was read to its end and the server keeps it; else
        closed (a stream left mid-way: the server sees its client gone and stops)."""
        if self._closed:
            return
        self._closed = True
        if self._done and self._reusable:
            self._pool.give_back(self._connection)
        else:
            self._connection.abort()


class Pool:
    """Connections to one origin (``scheme://host:port``) kept alive, at most ``keep`` idle; ``headers`` go
    with every request. ``connect_timeout`` bounds a new connection's opening apart from ``timeout`` (an
    address that drops the handshake fails within it, as httpx's connect timeout). Each answer is held to
    ``max_bytes`` and, from the moment its request is sent, to ``total`` seconds (default ``timeout``);
    ``what`` names the answer in those failures' words ("the upstream model's answer")."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout: float, keep: int = 16,
                 keep_alive_s: float = KEEP_ALIVE_S, connect_timeout: float | None = None,
                 max_bytes: int = MAX_BODY_BYTES, total: float | None = None,
                 what: str = "the server's answer", resend_unanswered: bool = False) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        if not sendable(headers):  # named, never shown: a value is often a key
            broken = [name for name, value in headers.items() if not sendable({name: value})]
            raise ValueError(f"a header holds a line break or NUL: {', '.join(repr(n) for n in broken)[:200]}")
        self.host = parts.hostname
        self.tls = parts.scheme == "https"
        self.port = parts.port or (443 if self.tls else 80)
        self.prefix = parts.path.rstrip("/")
        default = self.port == (443 if self.tls else 80)
        host = f"[{self.host}]" if ":" in self.host else self.host
        authority = host if default else f"{host}:{self.port}"
        self._fixed = "".join(f"{name}: {value}\r\n" for name, value in
                              {"Host": authority, **headers}.items()).encode("latin-1")
        self.timeout, self.keep, self.keep_alive_s = timeout, keep, keep_alive_s
        self.connect_timeout = connect_timeout
        self.max_bytes, self.total, self.what = max_bytes, timeout if total is None else total, what
        self.resend_unanswered = resend_unanswered
        self._idle: deque[Connection] = deque()
        self._context: ssl.SSLContext | None = None
        self._closed = False

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> Connection:
        if self.tls and self._context is None:
            self._context = tls_context()
        async with asyncio.timeout(self.connect_timeout):
            reader, writer = await asyncio.open_connection(
                self.host, self.port, ssl=self._context if self.tls else None,
                server_hostname=self.host if self.tls else None, limit=LIMIT)
        return Connection(reader, writer, loop)

    def _reused(self, loop: asyncio.AbstractEventLoop) -> Connection | None:
        now, idle = loop.time(), self._idle
        while idle:
            connection = idle.pop()  # the newest: the likeliest still open
            if connection.usable(loop, now, self.keep_alive_s):
                return connection
            connection.abort()
        return None

    def give_back(self, connection: Connection) -> None:
        if self._closed:
            connection.abort()
            return
        connection.idle_since = connection.loop.time()
        self._idle.append(connection)
        while len(self._idle) > self.keep:
            self._idle.popleft().abort()

    async def post(self, path: str, body: bytes, content_type: str = "application/json", *,
                   max_bytes: int | None = None, total: float | None = None) -> Reply:
        """``POST prefix+path`` with ``body``; the reply once its head came (read its body, then close it).
        ``max_bytes`` and ``total`` (seconds from now to the answer's end) for this answer, else the pool's."""
        head = (f"POST {self.prefix}{path} HTTP/1.1\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\n").encode("latin-1")
        request = b"".join((head, self._fixed, b"\r\n", body))
        loop = asyncio.get_running_loop()
        deadline = Deadline(self.total if total is None else total, self.what)
        limit = self.max_bytes if max_bytes is None else max_bytes
        while True:
            connection = self._reused(loop)
            reused = connection is not None
            try:
                async with asyncio.timeout(min(self.timeout, deadline.left())):
                    if connection is None:
                        connection = await self._connect(loop)
                    connection.writer.write(request)
                    await connection.writer.drain()
                    return await self._reply(connection, limit, deadline)
            except (ConnectionError, asyncio.IncompleteReadError) as exc:
                if connection is not None:
                    connection.abort()
                unanswered = not isinstance(exc, asyncio.IncompleteReadError) or not exc.partial
                if reused and unanswered and self.resend_unanswered and not isinstance(exc, BrokenReply):
                    continue  # allowed: once more on a new connection (the next is new, or newer)
                if isinstance(exc, asyncio.IncompleteReadError):
                    raise BrokenReply("the connection ended before the answer's head did") from exc
                raise
            except TimeoutError as exc:
                if connection is None:  # still connecting (a dropped handshake, a TLS one that stalled)
                    raise ConnectTimeout("no connection opened within the timeout") from exc
                connection.abort()
                raise
            except BaseException:  # a cancellation, a TLS failure, a broken answer: the connection is not reused
                if connection is not None:
                    connection.abort()
                raise

    async def _reply(self, connection: Connection, limit: int, deadline: Deadline) -> Reply:
        reader = connection.reader
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.LimitOverrunError as exc:
                raise BrokenReply("an answer's head past 1 MiB") from exc
            lines = head[:-4].split(b"\r\n")
            version, _, rest = lines[0].partition(b" ")
            if not version.startswith(b"HTTP/1."):
                raise BrokenReply(f"not an HTTP/1.x answer: {lines[0][:60]!r}")
            try:
                status = int(rest[:3])
            except ValueError as exc:
                raise BrokenReply(f"a status line without a status: {lines[0][:60]!r}") from exc
            if 100 <= status < 200 and status != 101:
                continue  # 100 Continue and the like: the answer follows
            headers: dict[str, str] = {}
            for line in lines[1:]:
                name, colon, value = line.partition(b":")
                if not colon or name[:1] in (b" ", b"\t"):
                    raise BrokenReply(f"a header line that is not 'name: value': {line[:60]!r}")
                key, text = name.strip().lower().decode("latin-1"), value.strip().decode("latin-1")
                headers[key] = f"{headers[key]}, {text}" if key in headers else text
            keep = headers.get("connection", "").lower()
            reusable = "close" not in keep and (version == b"HTTP/1.1" or "keep-alive" in keep)
            return Reply(self, connection, status, headers, reusable, "POST", limit, deadline)

    async def aclose(self) -> None:
        self._closed = True
        while self._idle:
            self._idle.pop().abort()
