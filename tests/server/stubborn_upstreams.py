"""Upstream models that misbehave, for the guard's stream tests, each a real server on loopback: one that writes
an answer that never ends (as fast as its client reads), one that writes it slowly until told to end it, one
that takes the request and never answers, and one that never even accepts the connection."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse


@dataclass
class Endless:
    """What the endless upstream has written: ``sent`` chunks so far."""

    piece: str = "x" * 200  # no sentence ends: the check has nothing to extract while it streams
    sent: int = 0


def endless_app(state: Endless) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request) -> StreamingResponse:
        await request.body()

        async def chunks() -> AsyncIterator[bytes]:
            head = {"id": "chatcmpl-endless", "object": "chat.completion.chunk", "created": 0, "model": "m"}
            while True:
                state.sent += 1
                delta = {"content": state.piece}
                yield f"data: {json.dumps({**head, 'choices': [{'index': 0, 'delta': delta}]})}\n\n".encode()
                await asyncio.sleep(0)

        return StreamingResponse(chunks(), media_type="text/event-stream")

    return app


class Trickle:
    """An upstream that writes its answer a few words every 10 ms, without a sentence end, until ``release`` is
    set (then it ends the answer with one sentence); a request that is not streamed gets the same body, so it
    waits for its end as long. ``requests`` counts the requests that came."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.requests = 0
        self.came = threading.Event()

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def complete(request: Request) -> StreamingResponse:
            await request.body()
            self.requests += 1
            self.came.set()
            head = {"id": "chatcmpl-trickle", "object": "chat.completion.chunk", "created": 0, "model": "m"}

            def chunk(delta: dict[str, str], finish: str | None = None) -> bytes:
                data = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                return f"data: {json.dumps(data)}\n\n".encode()

            async def chunks() -> AsyncIterator[bytes]:
                yield chunk({"role": "assistant", "content": ""})
                while not self.release.is_set():
                    yield chunk({"content": "and so on "})
                    await asyncio.sleep(0.01)
                yield chunk({"content": "Paris is the capital of France."})
                yield chunk({}, "stop")
                yield b"data: [DONE]\n\n"

            return StreamingResponse(chunks(), media_type="text/event-stream")

        return app


class Silent:
    """A TCP server that reads what it is sent and never answers: ``connected`` once a request came,
    ``closed`` once its client hung up."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.connected = threading.Event()
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._hold, args=(connection,), daemon=True).start()

    def _hold(self, connection: socket.socket) -> None:
        with connection:
            try:
                while connection.recv(65536):
                    self.connected.set()
            except OSError:
                pass
        self.closed.set()

    def close(self) -> None:
        self.listener.close()


class NeverAccepts:
    """A listening socket that never accepts, its queue of connections waiting for ``accept()`` already filled by
    its own: a new client's SYN is dropped (Linux), so its connect hangs until the client's own timeout, as
    behind a firewall that drops packets."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.waiting: list[socket.socket] = []
        address = self.listener.getsockname()
        for _ in range(16):
            try:  # a handshake on loopback is the kernel's alone: a quarter second is ample unless it was dropped
                self.waiting.append(socket.create_connection(address, timeout=0.25))
            except TimeoutError:
                return  # the queue is full
        self.close()
        raise RuntimeError("the listening socket's queue never filled")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    def close(self) -> None:
        for sock in (*self.waiting, self.listener):
            sock.close()


def still(value: Callable[[], int], quiet: float = 1.0, timeout: float = 30.0) -> int:
    """``value()`` once it has not changed for ``quiet`` seconds; AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    last, since = value(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = value()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return now
    raise AssertionError(f"still changing after {timeout} s (at {last})")


def raw_request(url: str, path: str, body: dict[str, object], key: str) -> socket.socket:
    """A POST sent on a plain socket whose answer nobody reads (a small receive buffer, so it fills soon)."""
    host, port = url.removeprefix("http://").split(":")
    data = json.dumps(body).encode()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data)
    return sock
