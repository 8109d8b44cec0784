"""util/http_client.py, the HTTP client of every chat completion (aiohttp, one session per event loop), against
real servers on loopback (asyncio's, speaking bytes the test writes, and one over TLS): bodies framed each way,
connections reused, a server closing one, a call cancelled or timed out closing its connection, answers that
are not HTTP, a proxy named by the environment."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from factdebate.util.http_client import BrokenReply, CannotConnect, Client, ConnectTimeout, UnsendableHeader, sendable
from tests.server.stubborn_upstreams import NeverAccepts

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


class Server:
    """A loopback server answering each request with what ``handler`` writes; it counts connections and
    requests, and notes when a connection's client went away."""

    def __init__(self, handler: Handler) -> None:
        self.handler, self.connections, self.requests = handler, 0, 0
        self.bodies: list[bytes] = []
        self.heads: list[bytes] = []
        self.client_gone = asyncio.Event()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.heads.append(head)
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
    client = Client(url, {"Authorization": "Bearer k"}, timeout=5)
    bodies = [await (await client.post("/chat/completions", b'{"q": %d}' % n)).read() for n in range(3)]
    await client.aclose()
    assert bodies == [b'{"n": 1}', b'{"n": 2}', b'{"n": 3}']
    assert server.connections == 1 and server.bodies == [b'{"q": 0}', b'{"q": 1}', b'{"q": 2}']
    head = server.heads[0].decode("latin-1").lower()
    assert head.startswith("post /v1/chat/completions http/1.1")
    assert "authorization: bearer k\r\n" in head and "accept-encoding: identity\r\n" in head


async def test_two_clients_on_one_loop_share_its_session_and_connections(serve: Serve) -> None:
    """The guard's upstream and its checkers each hold a client; on one event loop they share one session, so a
    connection one of them kept serves the other; the session closes with its last user."""
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(answer(b'{"n": %d}' % number))

    server, url = await serve(handler)
    first, second = Client(url, {}, timeout=5), Client(url, {}, timeout=5)
    assert await (await first.post("/x", b"{}")).read() == b'{"n": 1}'
    assert await (await second.post("/x", b"{}")).read() == b'{"n": 2}'
    assert server.connections == 1
    await first.aclose()
    assert await (await second.post("/x", b"{}")).read() == b'{"n": 3}'  # still open for the other
    await second.aclose()
    third = Client(url, {}, timeout=5)  # a fresh session: the last one closed with its connection
    assert await (await third.post("/x", b"{}")).read() == b'{"n": 4}'
    await third.aclose()
    assert server.connections == 2


async def test_a_url_with_credentials_and_a_query_sends_basic_auth_and_keeps_the_query(serve: Serve) -> None:
    """A user and password in the URL go as Basic auth (in place of a key's Bearer, as httpx sent them), never
    in the request line; a query string (an API version) stays on every path."""
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(answer(b"{}"))

    server, url = await serve(handler)
    client = Client(url.replace("http://", "http://user:p%40ss@") + "?api-version=2", {"Authorization": "Bearer k"},
                    timeout=5)
    assert await (await client.post("/chat/completions", b"{}")).read() == b"{}"
    await client.aclose()
    head = server.heads[0].decode("latin-1")
    assert head.startswith("POST /v1/chat/completions?api-version=2 HTTP/1.1\r\n")
    assert "Authorization: Basic dXNlcjpwQHNz\r\n" in head and "Bearer" not in head  # user:p@ss


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
    client = Client(url, {}, timeout=5)
    for _ in range(2):
        reply = await client.post("/chat/completions", b"{}")
        lines = [line async for line in reply.lines()]
        reply.close()
        assert [line for line in lines if line] == ['data: {"w": 0}', 'data: {"w": 1}', 'data: {"w": 2}',
                                                    "data: [DONE]"]
    await client.aclose()
    assert server.connections == 1 and server.requests == 2


async def test_a_connection_the_server_closed_is_not_reused_and_the_request_goes_through(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(answer(b"{}"))  # kept alive as far as the client knows, then closed once idle
        await writer.drain()
        writer.close()

    server, url = await serve(handler)
    client = Client(url, {}, timeout=5)
    first = await (await client.post("/x", b"{}")).read()
    await asyncio.sleep(0.1)  # the close arrives while the connection waits in the pool
    second = await (await client.post("/x", b"{}")).read()
    await client.aclose()
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
    client = Client(url, {}, timeout=5)
    bodies = [await (await client.post("/x", b"{}")).read() for _ in range(2)]
    await client.aclose()
    assert bodies == [b"one", b"two"] and server.connections == 2


async def test_a_cancelled_stream_closes_its_connection_so_the_server_stops(serve: Serve) -> None:
    streaming = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        streaming.set()
        while True:  # an endless answer, until the client goes away
            writer.write(b"8\r\ndata: 1\n\r\n")
            await writer.drain()
            await asyncio.sleep(0.01)

    server, url = await serve(handler)
    client = Client(url, {}, timeout=5)

    async def read_all() -> None:
        reply = await client.post("/x", b"{}")
        try:
            async for _ in reply.lines():
                pass
        finally:
            reply.close()

    task = asyncio.create_task(read_all())
    await asyncio.wait_for(streaming.wait(), 10)
    await asyncio.sleep(0.1)  # some of the stream read
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(server.client_gone.wait(), 5)  # the server's next write failed: it stopped
    await client.aclose()


async def test_a_call_cancelled_before_its_answer_closes_the_connection(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        await reader.read(1)  # never answers: waits for the client to go (an empty read)

    server, url = await serve(handler)
    client = Client(url, {}, timeout=60)
    task = asyncio.create_task(client.post("/x", b"{}"))
    while not server.requests:  # the request came: it waits for its answer
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(server.client_gone.wait(), 5)
    await client.aclose()


async def test_a_silent_server_times_out(serve: Serve) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        await asyncio.sleep(30)

    _, url = await serve(handler)
    client = Client(url, {}, timeout=0.3)
    with pytest.raises(TimeoutError) as caught:
        await client.post("/x", b"{}")
    await client.aclose()
    assert not isinstance(caught.value, ConnectTimeout)  # connected: it is the answer that did not come


async def test_a_server_that_never_accepts_is_a_connect_timeout_within_the_connect_bound() -> None:
    """A dropped handshake fails within ``connect_timeout`` (not the call's 30 s), and is told apart from an
    answer that did not come: the guard names it as httpx did, ConnectTimeout (server/guard/upstream.py)."""
    never = NeverAccepts()
    try:
        async with asyncio.timeout(10):  # a bound far above the 0.3 s asked, far below the call's 30
            for client in (Client(never.url, {}, timeout=30, connect_timeout=0.3),
                           Client(never.url, {}, timeout=0.3)):  # the call's own timeout, ending while it connects
                with pytest.raises(ConnectTimeout):
                    await client.post("/x", b"{}")
                await client.aclose()
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
    client = Client(url, {}, timeout=5)
    with pytest.raises(BrokenReply, match=r"not an HTTP/1\.x answer"):
        await client.post("/x", b"{}")
    with pytest.raises(BrokenReply, match="the connection ended inside the body"):
        await (await client.post("/x", b"{}")).read()
    await client.aclose()


async def test_a_refused_connection_is_a_connection_error_naming_no_address() -> None:
    client = Client("http://127.0.0.1:9/v1", {}, timeout=5)  # the discard port: nobody listens on loopback
    with pytest.raises(CannotConnect) as caught:
        await client.post("/x", b"{}")
    await client.aclose()
    assert "127.0.0.1" not in str(caught.value)


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
    client = Client(url, {}, timeout=5)
    with pytest.raises(ConnectionError, match=r"TLS: .*certificate verify failed"):  # certifi does not know it
        await client.post("/x", b"{}")
    await client.aclose()  # the session closes with its last user: the next one reads SSL_CERT_FILE
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    client = Client(url, {}, timeout=5)
    assert await (await client.post("/x", b"{}")).read() == b'{"tls": true}'
    await client.aclose()


async def test_a_checker_behind_an_environment_proxy_is_reached_through_that_proxy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call follows the environment's proxy (one rule, aiohttp's): an endpoint it routes through a proxy
    nobody runs is not reached; NO_PROXY sends it straight."""
    from factdebate.llm.base import GenParams, TransientLLMError
    from factdebate.llm.openai_compat import OpenAIBackend
    from tests.fake_openai import FakeOpenAI

    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")  # a proxy nobody runs
    asked = ([{"role": "user", "content": "Is Paris in France?"}], GenParams(max_tokens=5))
    with FakeOpenAI(reply="SUPPORTS") as server:
        proxied = OpenAIBackend("m", base_url=server.base_url, api_key="k", stream=False)
        with pytest.raises(TransientLLMError, match="connection error"):
            await proxied.complete(*asked)
        await proxied.aclose()
        monkeypatch.setenv("no_proxy", "127.0.0.1")
        direct = OpenAIBackend("m", base_url=server.base_url, api_key="k", stream=False)
        completion = await direct.complete(*asked)
        await direct.aclose()
    assert completion.text == "SUPPORTS" and len(server.requests) == 1


async def test_a_header_with_a_line_break_is_never_written(serve: Serve) -> None:
    """A key read with its file's newline ('Bearer k\\n') would end the request's head early: the rest would
    go out as its body, garbage to the server. The client refuses such a header before connecting, naming it,
    not its value; a checker whose key holds one fails as a connection error, and the server sees nothing."""
    from factdebate.llm.base import GenParams, TransientLLMError
    from factdebate.llm.openai_compat import OpenAIBackend

    assert sendable({"Authorization": "Bearer k"}) and not sendable({"Authorization": "Bearer k\n"})
    assert not sendable({"X\r\nY": "v"}) and not sendable({"Authorization": "Bearer k\x00"})
    client = Client("http://127.0.0.1:9/v1", {"Authorization": "Bearer secret-k\r\nX-Other: 1"}, timeout=5)
    with pytest.raises(UnsendableHeader, match="Authorization") as caught:
        await client.post("/x", b"{}")
    assert "secret-k" not in str(caught.value)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        writer.write(answer(b'{"choices": [{"index": 0, "message": {"content": "SUPPORTS"}}]}'))

    server, url = await serve(handler)
    checker = OpenAIBackend("m", base_url=url, api_key="k\n", stream=False)
    try:
        with pytest.raises(TransientLLMError, match="connection error"):
            await checker.complete([{"role": "user", "content": "Is Paris in France?"}], GenParams(max_tokens=5))
    finally:
        await checker.aclose()
    assert server.connections == 0 and not server.bodies


_NEVER_CLOSED = '''
import asyncio, gc
from factdebate.util.http_client import Client

async def answer(reader, writer):
    await reader.readuntil(b"\\r\\n\\r\\n")
    await reader.readexactly(2)
    writer.write(b"HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\n\\r\\nok")
    await writer.drain()

async def main():
    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = Client(f"http://127.0.0.1:{port}", {}, timeout=5)  # never closed, as a careless caller leaves it
    reply = await client.post("/v1/chat/completions", b"{}")
    print((await reply.read()).decode())
    server.close()

asyncio.run(main())
gc.collect()
'''


def test_a_client_never_closed_leaves_no_open_session_when_its_loop_ends() -> None:
    # What a library user sees at exit after asyncio.run with a model client they did not close: nothing.
    import sys

    done = subprocess.run([sys.executable, "-c", _NEVER_CLOSED], capture_output=True, text=True, timeout=60,
                          check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr
    assert "Unclosed" not in done.stderr, done.stderr
