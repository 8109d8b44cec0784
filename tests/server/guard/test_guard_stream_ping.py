"""The chat guard's stream under a policy that holds the answer back (``block``, ``hold``) while the upstream keeps
writing: the client gets a keep-alive comment every ``stream_ping_seconds`` whatever is held,
where it got 0 bytes for as long as the upstream streamed (35-90 s measured; a proxy's idle timeout cuts such
an answer). The upstream writes words without a sentence end, a piece every 10 ms, until the client has seen
a keep-alive comment; then it ends the answer. Without the comment the client would wait for ever (its read
timeout fails the test)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import scripted_checker_app
from tests.server.stubborn_upstreams import Trickle

FAST = {"tier": "fast", "method": "single"}
PING_S = 0.2


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Trickle]]:
    writing = Trickle()
    upstream = LiveServer(writing.app()).__enter__()
    mp = pytest.MonkeyPatch()
    mp.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
    folder: Path = tmp_path_factory.mktemp("ping")
    server = LiveServer(scripted_checker_app(folder, [KEY], stream_ping_seconds=PING_S)).__enter__()
    yield server, writing
    server.__exit__()
    upstream.__exit__()
    mp.undo()


@pytest.mark.parametrize("policy", ["block", "hold"])
def test_a_held_stream_sends_keep_alives_while_the_upstream_writes(served: tuple[LiveServer, Trickle],
                                                                   policy: str) -> None:
    server, writing = served
    writing.release.clear()
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Tell me about Paris."}],
            "factdebate": {**FAST, "policy": policy}}
    lines: list[str] = []
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", json=body, headers=AUTH,
                      timeout=httpx.Timeout(60, read=30)) as reply:
        assert reply.status_code == 200
        for line in reply.iter_lines():
            if line:
                lines.append(line)
            if line.startswith(":"):
                writing.release.set()  # the comment came while the upstream was still writing
    pings = [n for n, line in enumerate(lines) if line.startswith(": checking")]
    data = [line for line in lines if line.startswith("data: {")]
    assert pings and lines[pings[0]] == ": checking"
    assert lines[-1] == "data: [DONE]" and json.loads(data[-1][6:])["factdebate"]["policy"] == policy
    # nothing of the held answer went out before the comment: only what the policy shows, after it
    assert all(not line.startswith("data: ") for line in lines[:pings[0]])
