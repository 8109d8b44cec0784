"""The guard's way to its upstream model as users get it (util/http_client.py's shared aiohttp session), each test
against a real upstream on a loopback socket that writes the HTTP/1.1 bytes the test chooses, and the guard as
``serve`` runs it; what each asserts is what the guard's client reads (status, body, stream) and what the
upstream saw (its connections, its requests, a client that hung up):

- two streamed replies read to ``[DONE]`` in a row go over one upstream connection, and a kept connection the
  upstream drops as it is reused costs the caller nothing;
- an upstream that refuses the connection, never accepts it or never answers is a 502 in httpx's words
  (docs/guard.md), naming no address; so is a key that cannot be sent;
- the upstream's JSON errors come back with their status and Retry-After, without its address or key;
- an upstream that closes its connection mid-answer ends the stream with an error chunk, no verdicts;
- a client that leaves mid-stream has the guard close its upstream connection, so the model stops writing;
- an upstream URL with a user and password still answers."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.conftest import AUTH, KEY, LiveServer, closed_port
from tests.server.guard_support import ANSWER, scripted_checker_app, tokens
from tests.server.stubborn_upstreams import NeverAccepts, Silent

UPSTREAM_KEY = "sk-operator-upstream-0123456789abcdef"
# annotate: the upstream's words pass as they came (no footnote of the default flag), which these tests compare
FAST = {"tier": "fast", "method": "single", "policy": "annotate"}
CHAT = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}], "factdebate": FAST}
STREAM_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
UNREACHABLE = "the operator's upstream model could not be reached ({})"


@dataclass
class Seen:
    """One request as the upstream read it: the connection it came on (numbered from 1), its head, its body."""

    connection: int
    head: str
    body: dict[str, Any]


Answer = Callable[[socket.socket, Seen], bool]  # writes the answer; False: the connection is closed after it


class SocketModel:
    """A chat model on a loopback socket, with no HTTP library: ``answer`` writes the bytes of each answer. It
    numbers the connections it accepts and keeps each request with its connection's number."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.accepted = 0
        self.seen: list[Seen] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            self.accepted += 1
            threading.Thread(target=self._serve, args=(connection, self.accepted), daemon=True).start()

    def _serve(self, connection: socket.socket, number: int) -> None:
        with connection, connection.makefile("rb") as incoming:
            try:
                while head := _head(incoming):
                    length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n")
                                   if line.lower().startswith("content-length:")), 0)
                    seen = Seen(number, head, json.loads(incoming.read(length)))
                    self.seen.append(seen)
                    if not self.answer(connection, seen):
                        return
            except (OSError, ValueError):  # the client went away, or sent what is not a request
                return

    def close(self) -> None:
        self.listener.close()


def _head(incoming: Any) -> str:
    """A request's head (request line and headers); empty when the client closed the connection."""
    lines: list[bytes] = []
    while (line := incoming.readline()) not in (b"\r\n", b""):
        lines.append(line)
    return b"".join(lines).decode("latin-1").strip()


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    data = {"id": "chatcmpl-socket", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(data)}\n\n".encode()


def answer_events(text: str) -> list[bytes]:
    return [event({"role": "assistant", "content": ""}), *(event({"content": token}) for token in tokens(text)),
            event({}, "stop")]


def json_answer(status: int, body: dict[str, Any], *extra: str) -> bytes:
    data = json.dumps(body).encode()
    head = [f"HTTP/1.1 {status} X", "Content-Type: application/json", f"Content-Length: {len(data)}", *extra]
    return "".join(f"{line}\r\n" for line in head).encode() + b"\r\n" + data


def completion(text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-socket", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}


def answers(connection: socket.socket, seen: Seen) -> bool:
    """ANSWER, whole (Content-Length) or streamed (chunked, to ``[DONE]``), the connection kept open."""
    if not seen.body.get("stream"):
        connection.sendall(json_answer(200, completion(ANSWER)))
        return True
    connection.sendall(STREAM_HEAD)
    for data in answer_events(ANSWER):
        connection.sendall(chunk(data))
    # [DONE] and the body's end in one write: the guard drains the end after [DONE] while it finishes the check,
    # and a connection whose end came later than that is closed, not reused (reuse is not promised, only sought)
    connection.sendall(chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
    return True


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., LiveServer]]:
    """The guard (scripted checker models) in front of ``upstream_url`` with the operator's key; stops with the
    test, before the upstreams the test closes."""
    started: list[LiveServer] = []

    def start(upstream_url: str, key: str = UPSTREAM_KEY, **guard_settings: Any) -> LiveServer:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", upstream_url)
        monkeypatch.setenv("FACTDEBATE_GUARD_UPSTREAM_KEY", key)
        for name, value in guard_settings.items():
            monkeypatch.setenv(f"FACTDEBATE_GUARD__{name.upper()}", str(value))
        server = LiveServer(scripted_checker_app(tmp_path, [KEY])).__enter__()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.__exit__()


def post(server: LiveServer, stream: bool, **headers: str) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", json={**CHAT, "stream": stream},
                      headers={**AUTH, **headers}, timeout=30)


def data_lines(reply: httpx.Response) -> list[str]:
    return [line[6:] for line in reply.text.splitlines() if line.startswith("data: ")]


def streamed_text(lines: list[str]) -> str:
    chunks = [json.loads(line) for line in lines if line.startswith("{")]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices"))


def test_two_streamed_replies_read_to_done_go_over_one_upstream_connection(
        guard: Callable[..., LiveServer]) -> None:
    """The guard reads the end of a stream after its [DONE] and keeps the connection for the next (a TCP
    connect per streamed reply otherwise)."""
    model = SocketModel(answers)
    try:
        server = guard(model.url)
        for _ in range(2):
            reply = post(server, stream=True)
            assert reply.status_code == 200, reply.text
            lines = data_lines(reply)
            assert lines[-1] == "[DONE]" and streamed_text(lines) == ANSWER
            result = json.loads(lines[-2])["factdebate"]
            assert {c["claim"]: c["label"] for c in result["claims"]} == {
                "Paris is the capital of France.": "SUPPORTS", "The Eiffel Tower is in Rome.": "REFUTES"}
        plain = post(server, stream=False)  # a whole answer (Content-Length) after them, on the same one
        assert plain.status_code == 200 and plain.json()["choices"][0]["message"]["content"] == ANSWER
        assert [seen.connection for seen in model.seen] == [1, 1, 1] and model.accepted == 1
        assert [seen.body["stream"] for seen in model.seen] == [True, True, False]
        head = model.seen[0].head.lower()  # the operator's key went out, the caller's did not
        assert head.startswith("post /v1/chat/completions http/1.1")
        assert f"authorization: bearer {UPSTREAM_KEY}".lower() in head and KEY.lower() not in head
    finally:
        model.close()


@pytest.mark.parametrize("resend", [False, True])
@pytest.mark.parametrize("stream", [False, True])
def test_a_kept_connection_the_upstream_drops_as_it_is_reused_is_sent_again_only_when_the_operator_allows(
        guard: Callable[..., LiveServer], stream: bool, resend: bool) -> None:
    """An upstream whose keep-alive ran out closes the kept connection as the next request comes on it, before
    any byte of an answer. It may have read the request (and be paid for it), so by default the caller gets a
    502 saying what broke and the upstream saw the request once; with guard.upstream_resend the request goes
    once more on a new connection and the caller never knows."""
    def dropping(connection: socket.socket, seen: Seen) -> bool:
        if len(model.seen) == 2:  # the second request, on the first connection: closed unanswered
            return False
        return answers(connection, seen)

    model = SocketModel(dropping)
    try:
        server = guard(model.url, upstream_resend=resend)
        replies = [post(server, stream) for _ in range(2)]
        assert replies[0].status_code == 200, replies[0].text
        if resend:
            assert replies[1].status_code == 200, replies[1].text
            if stream:
                assert streamed_text(data_lines(replies[1])) == ANSWER
            else:
                assert replies[1].json()["choices"][0]["message"]["content"] == ANSWER
            assert [seen.connection for seen in model.seen] == [1, 1, 2]
        else:
            assert replies[1].status_code == 502
            assert replies[1].json()["error"]["message"] == UNREACHABLE.format("RemoteProtocolError")
            assert [seen.connection for seen in model.seen] == [1, 1]
    finally:
        model.close()


@pytest.mark.parametrize(("kind", "name"), [("refused", "ConnectError"), ("never accepted", "ConnectTimeout"),
                                            ("silent", "ReadTimeout")])
def test_an_upstream_that_cannot_be_reached_is_a_502_in_httpxs_words_naming_no_address(
        guard: Callable[..., LiveServer], kind: str, name: str) -> None:
    """docs/guard.md: 'could not be reached (ConnectError)'; a connect that times out is ConnectTimeout (not
    ReadTimeout, as if the upstream had been reached), an upstream that took the request and never answered
    ReadTimeout; within guard.upstream_timeout_s, plain and streamed."""
    never = NeverAccepts() if kind == "never accepted" else None
    silent = Silent() if kind == "silent" else None
    try:
        url = never.url if never else silent.url if silent else f"http://127.0.0.1:{closed_port()}/v1"
        server = guard(url, upstream_timeout_s=0.5)  # the connect bound is min(this, 10 s)
        address = url.removeprefix("http://").removesuffix("/v1")
        for stream in (False, True):
            reply = post(server, stream)
            assert reply.status_code == 502, reply.text
            assert reply.json()["error"] == {"message": UNREACHABLE.format(name), "type": "upstream_error",
                                             "param": None, "code": "upstream_unreachable"}
            shown = reply.text + json.dumps(dict(reply.headers))
            assert address not in shown and f":{address.split(':')[1]}" not in shown
        if silent:
            assert silent.closed.wait(10), "the guard left its silent upstream's connection open"
    finally:
        for held in (never, silent):
            if held:
                held.close()


def test_a_key_with_a_line_break_is_never_sent(guard: Callable[..., LiveServer]) -> None:
    """An operator's key read with its file's newline ended the request's head early (the rest went out as its
    body, a 500 or 400 from the upstream); it is refused before anything is written, in httpx's words for it:
    a 502 naming no key."""
    model = SocketModel(answers)
    try:
        server = guard(model.url, key=f"{UPSTREAM_KEY}\n")
        for stream in (False, True):
            reply = post(server, stream)
            assert reply.status_code == 502, reply.text
            assert reply.json()["error"]["message"] == UNREACHABLE.format("LocalProtocolError")
            assert "0123456789abcdef" not in reply.text
        assert not model.seen and model.accepted == 0
    finally:
        model.close()


def test_the_upstreams_json_errors_come_back_without_its_address_or_key(guard: Callable[..., LiveServer]) -> None:
    """A 429 with Retry-After (plain) and a 500 (streamed), each naming the upstream's own address and echoing
    the key it was sent: the caller gets the status, the message, the Retry-After; no address, no key."""
    def failing(connection: socket.socket, seen: Seen) -> bool:
        sent_key = next(line.split(" ")[-1] for line in seen.head.split("\r\n")
                        if line.lower().startswith("authorization:"))
        status = 500 if seen.body.get("stream") else 429
        message = f"no room for key {sent_key} at http://127.0.0.1:{model.port}/v1 (10.20.30.40)"
        connection.sendall(json_answer(status, {"error": {"message": message, "type": "rate_limit_error",
                                                          "code": "busy"}}, "Retry-After: 7"))
        return True

    model = SocketModel(failing)
    try:
        server = guard(model.url)
        for stream, status in ((False, 429), (True, 500)):
            reply = post(server, stream)
            assert reply.status_code == status and reply.headers["retry-after"] == "7", reply.text
            error = reply.json()["error"]
            assert error["message"].startswith("no room for key ") and error["code"] == "busy"
            for secret in (UPSTREAM_KEY, "0123456789abcdef", "127.0.0.1", f":{model.port}", "10.20.30.40"):
                assert secret not in reply.text, (secret, reply.text)
        assert len(model.seen) == 2
    finally:
        model.close()


def test_an_upstream_that_closes_mid_answer_ends_the_stream_with_an_error_and_no_verdicts(
        guard: Callable[..., LiveServer]) -> None:
    """The connection ends inside the chunked body: the caller reads the text that came, then an error chunk
    (no result chunk, no [DONE]: nothing is presented as checked); the next reply opens a new connection."""
    def cut(connection: socket.socket, seen: Seen) -> bool:
        if len(model.seen) > 1:
            return answers(connection, seen)
        connection.sendall(STREAM_HEAD)
        for data in answer_events("Paris is the capital of France. The Eiffel")[:-1]:  # no ending
            connection.sendall(chunk(data))
        connection.shutdown(socket.SHUT_RDWR)
        return False

    model = SocketModel(cut)
    try:
        server = guard(model.url)
        reply = post(server, stream=True)
        assert reply.status_code == 200
        lines = data_lines(reply)
        assert streamed_text(lines) == "Paris is the capital of France. The Eiffel"
        assert json.loads(lines[-1])["error"] == {"message": UNREACHABLE.format("RemoteProtocolError"),
                                                  "type": "upstream_error", "param": None,
                                                  "code": "upstream_unreachable"}
        assert "[DONE]" not in lines and not any('"factdebate"' in line for line in lines)
        assert f":{model.port}" not in reply.text
        again = post(server, stream=True)  # the guard goes on: a new connection, a checked reply
        assert data_lines(again)[-1] == "[DONE]" and model.accepted == 2
    finally:
        model.close()


def test_a_client_that_leaves_mid_stream_has_the_guard_close_its_upstream_connection(
        guard: Callable[..., LiveServer]) -> None:
    """The model writes a word every 10 ms until its client is gone; the caller leaves after the first words:
    the guard closes its connection to the model (an unread stream cannot be reused), whose next writes fail."""
    stopped = threading.Event()
    written = [0]

    def endless(connection: socket.socket, seen: Seen) -> bool:
        try:
            connection.sendall(STREAM_HEAD + chunk(event({"role": "assistant", "content": ""})))
            while not stopped.wait(0.01):
                connection.sendall(chunk(event({"content": "and so on "})))
                written[0] += 1
        except OSError:  # reset or broken pipe: the guard hung up
            stopped.set()
        return False

    model = SocketModel(endless)
    try:
        server = guard(model.url)
        with httpx.stream("POST", f"{server.url}/v1/chat/completions", json={**CHAT, "stream": True},
                          headers=AUTH, timeout=30) as reply:
            for line in reply.iter_lines():
                if "and so on" in line:
                    break
        assert stopped.wait(20), f"the model was still writing ({written[0]} chunks)"
        assert model.accepted == 1
    finally:
        stopped.set()
        model.close()


def test_an_upstream_url_with_a_user_and_password_still_answers(guard: Callable[..., LiveServer]) -> None:
    """The URL's user and password go as Basic auth, plain and streamed, and the password reaches no caller."""
    model = SocketModel(answers)
    try:
        server = guard(f"http://user:pw-0123456789@127.0.0.1:{model.port}/v1")
        plain = post(server, stream=False)
        assert plain.status_code == 200 and plain.json()["choices"][0]["message"]["content"] == ANSWER
        streamed = post(server, stream=True)
        lines = data_lines(streamed)
        assert lines[-1] == "[DONE]" and streamed_text(lines) == ANSWER
        for reply in (plain, streamed):
            assert "pw-0123456789" not in reply.text
        assert [seen.head.split("\r\n")[0] for seen in model.seen] == ["POST /v1/chat/completions HTTP/1.1"] * 2
    finally:
        model.close()
