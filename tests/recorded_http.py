"""Recorded HTTP answers served on a loopback socket, for the search tools' tests: a test points an engine's
base URL at :attr:`RecordedServer.url`, says what each route answers, and reads what each request carried. The
tools' real client (aiohttp, util/http_client.py) makes every request, so the tests see the bytes it sends.

A route answers with an :class:`Answer` (:func:`answer` makes one from JSON or text), each of a list in turn,
or what a function of the :class:`Call` returns; :data:`DROP` closes the connection without a byte of answer
and :data:`STALL` holds it open unanswered until the server stops. A request no route matches gets a ``404``
and is kept in :attr:`RecordedServer.unmatched`."""

from __future__ import annotations

import json as json_module
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from email.message import Message
from enum import Enum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

STALL_CAP_S = 60.0  # the longest a stalled answer holds its thread when the server is never stopped


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()


class Misbehaviour(Enum):
    DROP = "drop"
    STALL = "stall"


DROP = Misbehaviour.DROP
STALL = Misbehaviour.STALL

Reaction = Answer | Misbehaviour


def answer(status: int = 200, *, json: Any = None, text: str | None = None,
           headers: dict[str, str] | None = None) -> Answer:
    """An answer whose body is ``json`` (``application/json``) or ``text`` (``text/plain``, UTF-8), or empty."""
    kind: dict[str, str] = {}
    body = b""
    if json is not None:
        body, kind = json_module.dumps(json).encode(), {"Content-Type": "application/json"}
    elif text is not None:
        body, kind = text.encode(), {"Content-Type": "text/plain; charset=utf-8"}
    return Answer(status, body, tuple({**kind, **(headers or {})}.items()))


@dataclass(frozen=True)
class Call:
    """One request as the server read it: ``path`` as sent (its escapes kept), ``params`` the query's first
    value of each name, ``headers`` looked up in any case."""

    method: str
    path: str
    params: dict[str, str]
    headers: Message
    body: bytes

    def json(self) -> Any:
        return json_module.loads(self.body)


Answers = Reaction | Sequence[Reaction] | Callable[[Call], Reaction] | None


@dataclass
class Route:
    method: str
    path: str
    prefix: bool
    answers: Answers = None
    calls: list[Call] = field(default_factory=list)
    _next: int = 0

    @property
    def call_count(self) -> int:
        return len(self.calls)

    @property
    def called(self) -> bool:
        return bool(self.calls)

    @property
    def last(self) -> Call:
        return self.calls[-1]

    def matches(self, method: str, path: str) -> bool:
        return method == self.method and (path.startswith(self.path) if self.prefix else path == self.path)

    def react(self, call: Call) -> Reaction:
        self.calls.append(call)
        answers = self.answers
        if answers is None:
            return Answer()
        if isinstance(answers, Answer | Misbehaviour):
            return answers
        if callable(answers):
            return answers(call)
        if self._next >= len(answers):
            return answer(501, text="no recorded answer left")
        self._next += 1
        return answers[self._next - 1]


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up mid-answer is not a failure of the server


class RecordedServer:
    def __init__(self) -> None:
        self.routes: list[Route] = []
        self.unmatched: list[Call] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = _Quiet(("127.0.0.1", 0), self._handler())
        # A short poll: stopping waits for the loop's next look, once for each test.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def route(self, method: str, path: str, answers: Answers = None, *, prefix: bool = False) -> Route:
        """The route for ``method`` on ``path`` (every path that starts so with ``prefix``); the first route
        added that matches a request answers it."""
        made = Route(method, path, prefix, answers)
        self.routes.append(made)
        return made

    def get(self, path: str, answers: Answers = None, *, prefix: bool = False) -> Route:
        return self.route("GET", path, answers, prefix=prefix)

    def post(self, path: str, answers: Answers = None) -> Route:
        return self.route("POST", path, answers)

    def __enter__(self) -> RecordedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def _react(self, call: Call) -> Reaction:
        with self._lock:  # requests of one search come in parallel: each route's list is taken in turn
            for route in self.routes:
                if route.matches(call.method, call.path):
                    return route.react(call)
            self.unmatched.append(call)
        return answer(404, text="no recorded route")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # kept connections, as the engines' servers keep them

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                call = Call(self.command, parts.path, dict(reversed(parse_qsl(parts.query, keep_blank_values=True))),
                            self.headers, body)
                reaction = owner._react(call)
                if reaction is DROP:
                    self.close_connection = True
                    return
                if reaction is STALL:
                    owner.stopping.wait(STALL_CAP_S)
                    self.close_connection = True
                    return
                assert isinstance(reaction, Answer)
                self.send_response(reaction.status)
                for name, value in reaction.headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reaction.body)))
                self.end_headers()
                self.wfile.write(reaction.body)

            do_GET = do_POST = _serve

        return Handler


@pytest.fixture
def recorded() -> Iterator[RecordedServer]:
    """A :class:`RecordedServer`, stopped when the test ends."""
    with RecordedServer() as server:
        yield server
