"""The guard in front of an upstream chat model that answers badly on purpose (tests/hostile_server.py): a body
without end, a length it never sends, a gzip bomb, a trickle under every read's timeout, a negative length.
Each request ends within its deadline with a 502 that says what was wrong, plain and streamed, naming no
address; the upstream's counter shows the guard stopped reading at its limit rather than at the flood's end;
the service's health answers meanwhile."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.server.guard.upstream import AnswerLimits
from tests.hostile_server import BUFFERS, UNREADABLE, HostileServer
from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import scripted_checker_app

CHAT = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}],
        "factdebate": {"tier": "fast", "method": "single"}}
LIMITS = AnswerLimits.following(1000, 1, 2.0)  # the settings below


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], LiveServer]]:
    started: list[LiveServer] = []

    def start(upstream_url: str) -> LiveServer:
        settings = {"UPSTREAM": upstream_url, "MAX_MESSAGE_CHARS": "1000", "MAX_CHOICES": "1",
                    "UPSTREAM_TIMEOUT_S": "1.5", "UPSTREAM_STREAM_S": "2"}
        for name, value in settings.items():
            monkeypatch.setenv(f"FACTDEBATE_GUARD__{name}", value)
        monkeypatch.setenv("FACTDEBATE_GUARD_UPSTREAM_KEY", "sk-operator-upstream-0123456789abcdef")
        server = LiveServer(scripted_checker_app(tmp_path, [KEY])).__enter__()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.__exit__()


def post(server: LiveServer, stream: bool) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", json={**CHAT, "stream": stream}, headers=AUTH,
                      timeout=30)


def error_of(reply: httpx.Response) -> dict[str, Any]:
    """The OpenAI error a caller reads: the body of a refused request, or a stream's error chunk."""
    if reply.headers.get("content-type", "").startswith("text/event-stream"):
        for line in reply.text.splitlines():
            if line.startswith("data: {") and '"error"' in line:
                return dict(json.loads(line[6:])["error"])
        raise AssertionError(f"no error in the stream: {reply.text[:500]}")
    assert reply.status_code == 502, reply.text
    return dict(reply.json()["error"])


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", ["flood", "lying_length", "gzip_bomb", "long_line"])
def test_an_answer_without_end_is_cut_at_its_limit_with_a_502_that_says_so(
        guard: Callable[[str], LiveServer], kind: str, stream: bool) -> None:
    with HostileServer(kind) as upstream:
        server = guard(upstream.url)
        started = time.monotonic()
        error = error_of(post(server, stream))
        assert time.monotonic() - started < 10
        message = error["message"]
        assert "larger than" in message or "longer than" in message, message
        assert str(upstream.port) not in message and "127.0.0.1" not in message
        time.sleep(0.2)
        limit = LIMITS.stream_bytes if stream else LIMITS.plain_bytes
        assert upstream.sent <= limit + BUFFERS  # not the flood: it went on until the guard hung up


@pytest.mark.parametrize("stream", [False, True])
def test_an_answer_that_trickles_ends_at_its_deadline_saying_so(
        guard: Callable[[str], LiveServer], stream: bool) -> None:
    with HostileServer("trickle", pause=0.1) as upstream:
        server = guard(upstream.url)
        started = time.monotonic()
        error = error_of(post(server, stream))
        took = time.monotonic() - started
        seconds = 2 if stream else 1.5  # guard.upstream_stream_s, guard.upstream_timeout_s
        assert error["message"].startswith(f"the upstream model's answer did not end within {seconds:g} s")
        assert error["code"] == "upstream_timeout"
        assert took < seconds + 5


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_answer_that_cannot_be_read_is_the_upstreams_502_not_the_callers_422(
        guard: Callable[[str], LiveServer], kind: str) -> None:
    """Bytes gzipped twice, bytes that are not UTF-8, JSON nested past the parser: the upstream's failure."""
    with HostileServer(kind) as upstream:
        server = guard(upstream.url)
        error = error_of(post(server, stream=False))
        assert error["message"] == "the upstream model's answer is not JSON it can read", error


@pytest.mark.parametrize("kind", ["negative_length", "negative_chunk"])
def test_a_negative_length_is_a_502_not_a_traceback(guard: Callable[[str], LiveServer], kind: str) -> None:
    with HostileServer(kind) as upstream:
        server = guard(upstream.url)
        error = error_of(post(server, stream=False))
        assert error["code"] == "upstream_unreachable" and "RemoteProtocolError" in error["message"]


def test_health_answers_while_an_upstream_floods(guard: Callable[[str], LiveServer]) -> None:
    with HostileServer("long_line") as upstream:
        server = guard(upstream.url)
        replies: list[httpx.Response] = []
        flooding = threading.Thread(target=lambda: replies.append(post(server, stream=True)))
        flooding.start()
        while upstream.requests == 0:
            time.sleep(0.01)
        health = [httpx.get(f"{server.url}/v1/health", timeout=10) for _ in range(5)]
        flooding.join()
        assert all(reply.status_code == 200 for reply in health)
        # the event's limit (4 MiB) or the whole answer's (about 4.1 MiB at the defaults), whichever the reads
        # cross first: a loaded machine hands on larger pieces
        message = error_of(replies[0])["message"]
        assert re.search(r"(is longer|is larger) than [\d.]+ MiB", message), message
