"""A server on a loopback socket that answers every HTTP request badly, on purpose, the way a broken or hostile
model server, upstream or search engine can: no HTTP library, so it writes exactly the bytes each misbehaviour
needs. It counts what it managed to send before the client hung up, which is how a test tells a client that
stopped reading at its limit from one that read everything.

Misbehaviours (``kind``):

- ``flood``: ``200`` with no length, then bytes without end;
- ``lying_length``: ``Content-Length: 10^12``, then bytes without end;
- ``trickle``: a whole head, then a valid-looking JSON body one byte every ``pause`` seconds, without end;
- ``trickle_head``: the head itself one byte every ``pause`` seconds;
- ``gzip_bomb``: ``Content-Encoding: gzip`` (although ``identity`` was asked), a small body that inflates to
  :data:`BOMB_BYTES`;
- ``negative_length``: ``Content-Length: -5``; ``negative_chunk``: a chunk size of ``-5``;
- ``long_line``: an event stream whose one ``data:`` line never ends;
- ``double_gzip``: a whole chat completion gzipped twice under ``Content-Encoding: gzip, gzip`` (a client that
  undoes one layer is left with binary bytes);
- ``binary``: ``200`` with a JSON content type and bytes that are not UTF-8;
- ``deep``: ``200`` with JSON nested :data:`DEEP` levels, past Python's parser."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
import zlib

BOMB_BYTES = 1 << 28  # what the gzip bomb inflates to: 256 MiB of zeros, a quarter of a MiB on the wire
KINDS = ("flood", "lying_length", "trickle", "trickle_head", "gzip_bomb", "negative_length", "negative_chunk",
         "long_line", "double_gzip", "binary", "deep")
UNREADABLE = ("double_gzip", "binary", "deep")  # a whole answer of the right size that cannot be read as JSON
DEEP = 100_000
COMPLETION = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
              "choices": [{"index": 0, "finish_reason": "stop",
                           "message": {"role": "assistant", "content": "The sky is blue."}}],
              "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}
_PIECE = b"x" * 65536
_SEND_BUFFER = 256 << 10  # the server's send buffer, kept small so that what it counts is what the client took


def _receive_buffer_max() -> int:
    """The most a client's receive buffer may grow to on this machine (Linux autotunes it up to the third
    field of ``tcp_rmem``: 6 MiB by default, 32 MiB on some hosts); 8 MiB where that cannot be read."""
    try:
        with open("/proc/sys/net/ipv4/tcp_rmem", encoding="ascii") as fields:
            return int(fields.read().split()[2])
    except (OSError, IndexError, ValueError):
        return 8 << 20


# What can have been sent past a client's limit before it hung up: its receive buffer, the server's send buffer
# (the kernel doubles what is asked), and one read of up to a mebibyte in flight.
BUFFERS = _receive_buffer_max() + 2 * _SEND_BUFFER + (1 << 20)


def _bomb() -> bytes:
    """A gzip member of :data:`BOMB_BYTES` zeros, made fast: after a full flush deflate starts afresh, so each
    further mebibyte of zeros compresses to the same bytes, written once and repeated."""
    zeros = b"\0" * (1 << 20)
    squeezer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first = squeezer.compress(zeros) + squeezer.flush(zlib.Z_FULL_FLUSH)
    again = squeezer.compress(zeros) + squeezer.flush(zlib.Z_FULL_FLUSH)
    count = BOMB_BYTES // len(zeros)
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = crc.to_bytes(4, "little") + (BOMB_BYTES % (1 << 32)).to_bytes(4, "little")
    return header + first + again * (count - 1) + squeezer.flush() + trailer


_BOMB: bytes | None = None


def bomb() -> bytes:
    """The gzip bomb's bytes, made once per process (about a second)."""
    global _BOMB
    if _BOMB is None:
        _BOMB = _bomb()
    return _BOMB


class HostileServer:
    """One misbehaviour (``kind``) for every request, on ``127.0.0.1``; ``url`` ends in ``/v1``. ``sent``: the
    bytes written to all clients so far; ``requests``: how many requests it read."""

    def __init__(self, kind: str, pause: float = 0.2) -> None:
        if kind not in KINDS:
            raise ValueError(kind)
        self.kind, self.pause = kind, pause
        self.sent = 0
        self.requests = 0
        self._stop = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.root = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.root}/v1"
        if kind == "gzip_bomb":
            bomb()
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self.listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _SEND_BUFFER)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _read_request(self, connection: socket.socket) -> bool:
        data = b""
        while b"\r\n\r\n" not in data:
            piece = connection.recv(65536)
            if not piece:
                return False
            data += piece
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        while len(body) < length:
            piece = connection.recv(65536)
            if not piece:
                return False
            body += piece
        self.requests += 1
        return True

    def _send(self, connection: socket.socket, data: bytes) -> None:
        connection.sendall(data)
        self.sent += len(data)

    def _serve(self, connection: socket.socket) -> None:
        connection.settimeout(30)
        with connection:
            try:
                if self._read_request(connection):
                    getattr(self, f"_{self.kind}")(connection)
            except OSError:  # the client hung up: what it was sent so far is counted
                pass

    def _forever(self, connection: socket.socket, piece: bytes = _PIECE) -> None:
        while not self._stop.is_set():
            self._send(connection, piece)

    def _flood(self, connection: socket.socket) -> None:
        self._send(connection, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
        self._forever(connection)

    def _lying_length(self, connection: socket.socket) -> None:
        self._send(connection, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 1000000000000\r\n\r\n")
        self._forever(connection)

    def _trickle(self, connection: socket.socket) -> None:
        self._send(connection, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
                               b'{"data": [')
        while not self._stop.is_set():
            self._send(connection, b" ")
            time.sleep(self.pause)

    def _trickle_head(self, connection: socket.socket) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nX-Padding: " + b"x" * 100_000:
            if self._stop.is_set():
                return
            self._send(connection, bytes([byte]))
            time.sleep(self.pause)

    def _gzip_bomb(self, connection: socket.socket) -> None:
        body = bomb()
        self._send(connection, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")
        self._send(connection, body)

    def _negative_length(self, connection: socket.socket) -> None:
        self._send(connection, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n"
                               b'{"choices": []}')

    def _negative_chunk(self, connection: socket.socket) -> None:
        self._send(connection, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\n-5\r\n{}\r\n0\r\n\r\n")

    def _long_line(self, connection: socket.socket) -> None:
        self._send(connection, b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                               b'data: {"choices": [{"index": 0, "delta": {"content": "')
        self._forever(connection)

    def _whole(self, connection: socket.socket, body: bytes, extra: bytes = b"") -> None:
        self._send(connection, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra
                   + b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)

    def _double_gzip(self, connection: socket.socket) -> None:
        twice = gzip.compress(gzip.compress(json.dumps(COMPLETION).encode()))
        self._whole(connection, twice, b"Content-Encoding: gzip, gzip\r\n")

    def _binary(self, connection: socket.socket) -> None:
        self._whole(connection, bytes(range(128, 256)) * 8)

    def _deep(self, connection: socket.socket) -> None:
        self._whole(connection, b"[" * DEEP + b"]" * DEEP)
