"""llm/http1.py, the checker's small HTTP/1.1 client, against real servers on loopback (asyncio's, speaking
bytes the test writes, and one over TLS): bodies framed each way, connections reused, a server closing one,
a call cancelled or timed out closing its connection, answers that are not HTTP."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from factdebate.llm.http1 import BrokenReply, ConnectTimeout, Pool, sendable
from tests.server.stubborn_upstreams import NeverAccepts

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


class Server:
    """A loopback server answering each request with what ``handler`` writes; it counts connections and
    requests, and notes when a connection's client went away."""

    def __init__(self, handler: Handler) -> None:
        self.handler, self.connections, self.requests = handler, 0, 0
        self.bodies: list[bytes] = []
        self.client_gone = asyncio.Event()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                self.bodies.append(await reader.readexactly(length))
                self.requests += 1
                await self.handler(reader, writer, self.requests)
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            self.client_gone.set()
        finally:
            writer.close()


Serve = Callable[..., Awaitable[tuple[Server, str]]]


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    servers: list[asyncio.Server] = []

    async def start(handler: Handler, context: ssl.SSLContext | None = None) -> tuple[Server, str]:
        server = Server(handler)
        listening = await asyncio.start_server(server.serve, "127.0.0.1", 0, ssl=context)
        servers.append(listening)
        port = listening.sockets[0].getsockname()[1]
        return server, f"{'https' if context else 'http'}://127.0.0.1:{port}/v1"

    yield start
    for listening in servers:
        listening.close()


def answer(body: bytes, *extra: str) -> bytes:
    head = "".join(f"{line}\r\n" for line in ("HTTP/1.1 200 OK", "Content-Type: application/json",
                                               f"Content-Length: {len(body)}", *extra))
    return head.encode() + b"\r\n" + body


async def test_content_length_answers_reuse_one_kept_alive_connection(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(answer(b'{"n": %d}' % number))

    server, url = await serve(handler)
    pool = Pool(url, {"Authorization": "Bearer k"}, timeout=5)
    bodies = [await (await pool.post("/chat/completions", b'{"q": %d}' % n)).read() for n in range(3)]
    await pool.aclose()
    assert bodies == [b'{"n": 1}', b'{"n": 2}', b'{"n": 3}']
    assert server.connections == 1 and server.bodies == [b'{"q": 0}', b'{"q": 1}', b'{"q": 2}']


async def test_a_chunked_stream_is_read_line_by_line_and_its_connection_reused(serve: Serve) -> None:
    events = [b"data: {\"w\": %d}\n\n" % n for n in range(3)] + [b"data: [DONE]\n\n"]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        for event in events:  # one event a chunk, a line split over two chunks in the middle
            for piece in (event[:5], event[5:]):
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()
                await asyncio.sleep(0.005)
        writer.write(b"0\r\nX-Trailer: t\r\n\r\n")

    server, url = await serve(handler)
    pool = Pool(url, {}, timeout=5)
    for _ in range(2):
        reply = await pool.post("/chat/completions", b"{}")
        lines = [line async for line in reply.lines()]
        reply.close()
        assert [line for line in lines if line] == ['data: {"w": 0}', 'data: {"w": 1}', 'data: {"w": 2}',
                                                    "data: [DONE]"]
    await pool.aclose()
    assert server.connections == 1 and server.requests == 2


async def test_a_connection_the_server_closed_is_not_reused_and_the_request_goes_through(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(answer(b"{}"))  # kept alive as far as the client knows, then closed once idle
        await writer.drain()
        writer.close()

    server, url = await serve(handler)
    pool = Pool(url, {}, timeout=5)
    first = await (await pool.post("/x", b"{}")).read()
    await asyncio.sleep(0.1)  # the close arrives while the connection waits in the pool
    second = await (await pool.post("/x", b"{}")).read()
    await pool.aclose()
    assert first == second == b"{}" and server.connections == 2


async def test_connection_close_and_http_1_0_answers_are_read_to_their_end_and_not_kept(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        if number == 1:
            writer.write(answer(b"one", "Connection: close"))
        else:  # HTTP/1.0, no length: the body runs to the connection's end
            writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\ntwo")
        await writer.drain()
        writer.close()

    server, url = await serve(handler)
    pool = Pool(url, {}, timeout=5)
    bodies = [await (await pool.post("/x", b"{}")).read() for _ in range(2)]
    await pool.aclose()
    assert bodies == [b"one", b"two"] and server.connections == 2


async def test_a_cancelled_stream_closes_its_connection_so_the_server_stops(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        while True:  # an endless answer, until the client goes away
            writer.write(b"8\r\ndata: 1\n\r\n")
            await writer.drain()
            await asyncio.sleep(0.01)

    server, url = await serve(handler)
    pool = Pool(url, {}, timeout=5)

    async def read_all() -> None:
        reply = await pool.post("/x", b"{}")
        try:
            async for _ in reply.lines():
                pass
        finally:
            reply.close()

    task = asyncio.create_task(read_all())
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(server.client_gone.wait(), 5)  # the server's next write failed: it stopped


async def test_a_call_cancelled_before_its_answer_closes_the_connection(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        await reader.read(1)  # never answers: waits for the client to go (an empty read)

    server, url = await serve(handler)
    pool = Pool(url, {}, timeout=60)
    task = asyncio.create_task(pool.post("/x", b"{}"))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(server.client_gone.wait(), 5)


async def test_a_silent_server_times_out(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        await asyncio.sleep(30)

    _, url = await serve(handler)
    pool = Pool(url, {}, timeout=0.3)
    with pytest.raises(TimeoutError) as caught:
        await pool.post("/x", b"{}")
    assert not isinstance(caught.value, ConnectTimeout)  # connected: it is the answer that did not come


async def test_a_server_that_never_accepts_is_a_connect_timeout_within_the_connect_bound() -> None:
    """A dropped handshake fails within ``connect_timeout`` (not the call's 30 s), and is told apart from an
    answer that did not come: the guard names it as httpx did, ConnectTimeout (server/guard/upstream.py)."""
    never = NeverAccepts()
    try:
        async with asyncio.timeout(10):  # a bound far above the 0.3 s asked, far below the call's 30
            with pytest.raises(ConnectTimeout):
                await Pool(never.url, {}, timeout=30, connect_timeout=0.3).post("/x", b"{}")
            with pytest.raises(ConnectTimeout):  # the call's own timeout, ending while it connects
                await Pool(never.url, {}, timeout=0.3).post("/x", b"{}")
    finally:
        never.close()


async def test_an_answer_that_is_not_http_or_ends_early_is_a_broken_reply(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        if number == 1:
            writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")
        else:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")
        await writer.drain()
        writer.close()

    _, url = await serve(handler)
    pool = Pool(url, {}, timeout=5)
    with pytest.raises(BrokenReply, match=r"not an HTTP/1\.x answer"):
        await pool.post("/x", b"{}")
    with pytest.raises(BrokenReply, match="5 bytes before the body's end"):
        await (await pool.post("/x", b"{}")).read()


async def test_a_refused_connection_is_a_connection_error() -> None:
    pool = Pool("http://127.0.0.1:9/v1", {}, timeout=5)  # the discard port: nobody listens on loopback
    with pytest.raises(ConnectionError):
        await pool.post("/x", b"{}")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
async def test_https_verifies_the_servers_certificate(serve: Serve, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", str(key),
                    "-out", str(cert), "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(answer(b'{"tls": true}'))

    _, url = await serve(handler, context)
    with pytest.raises(ssl.SSLCertVerificationError):  # certifi's bundle does not know the certificate
        await Pool(url, {}, timeout=5).post("/x", b"{}")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    pool = Pool(url, {}, timeout=5)
    assert await (await pool.post("/x", b"{}")).read() == b'{"tls": true}'
    await pool.aclose()


async def test_a_checker_behind_an_environment_proxy_is_reached_through_that_proxy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The small client speaks no proxy: an endpoint the environment routes through one goes through httpx, as
    before it; NO_PROXY sends it straight."""
    from factdebate.llm.base import GenParams, TransientLLMError
    from factdebate.llm.openai_compat import OpenAIBackend
    from tests.fake_openai import FakeOpenAI

    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")  # a proxy nobody runs
    asked = ([{"role": "user", "content": "Is Paris in France?"}], GenParams(max_tokens=5))
    with FakeOpenAI(reply="SUPPORTS") as server:
        proxied = OpenAIBackend("m", base_url=server.base_url, api_key="k", stream=False)
        with pytest.raises(TransientLLMError, match="APIConnectionError"):
            await proxied.complete(*asked)
        await proxied.aclose()
        monkeypatch.setenv("no_proxy", "127.0.0.1")
        direct = OpenAIBackend("m", base_url=server.base_url, api_key="k", stream=False)
        completion = await direct.complete(*asked)
        await direct.aclose()
    assert completion.text == "SUPPORTS" and len(server.requests) == 1


async def test_a_header_with_a_line_break_is_never_written(serve: Serve) -> None:
    """A key read with its file's newline ('Bearer k\\n') ended the request's head early: the rest went out as
    its body, garbage to the server. The pool refuses such a header, naming it, not its value; a checker whose
    key holds one goes through httpx, which refuses to send it (LocalProtocolError), as before llm/http1.py."""
    from factdebate.llm.base import GenParams, TransientLLMError
    from factdebate.llm.openai_compat import OpenAIBackend

    assert sendable({"Authorization": "Bearer k"}) and not sendable({"Authorization": "Bearer k\n"})
    assert not sendable({"X\r\nY": "v"}) and not sendable({"Authorization": "Bearer k\x00"})
    with pytest.raises(ValueError, match="Authorization") as caught:
        Pool("http://127.0.0.1:9/v1", {"Authorization": "Bearer secret-k\r\nX-Other: 1"}, timeout=5)
    assert "secret-k" not in str(caught.value)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(answer(b'{"choices": [{"index": 0, "message": {"content": "SUPPORTS"}}]}'))

    server, url = await serve(handler)
    checker = OpenAIBackend("m", base_url=url, api_key="k\n", stream=False)
    try:
        with pytest.raises(TransientLLMError, match="APIConnectionError"):
            await checker.complete([{"role": "user", "content": "Is Paris in France?"}], GenParams(max_tokens=5))
    finally:
        await checker.aclose()
    assert server.requests == 0 and not server.bodies  # (httpx opens a connection, then refuses to write on it)
