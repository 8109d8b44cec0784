"""How server/mcp/front.py reads stdin: no further than it has answered (a client that writes and never reads is
held back by the pipe, as with the SDK alone), and what it answered is left out of the SDK's answers once per
answer, so every request gets one answer."""

from __future__ import annotations

import json
import os
import queue
import threading
from typing import Any

import pytest

from factdebate.server.mcp.front import Front

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "a", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "check_answer", "arguments": {"answer": "x" * 1000}}}


class _Lines:
    """A client's stdin: the lines given, then the end; counts what the front has read."""

    def __init__(self, messages: list[dict[str, Any]], at_end: threading.Event) -> None:
        self._lines = [json.dumps(m).encode() + b"\n" for m in messages]
        self.read = 0
        self._at_end = at_end

    def readline(self) -> bytes:
        if self.read == len(self._lines):
            self._at_end.set()
            return b""
        self.read += 1
        return self._lines[self.read - 1]


class _WatchedQueue(queue.Queue[bytes]):
    """The front's queue, telling the test when the front waits for the server to take its lines."""

    def __init__(self, waiting: threading.Event) -> None:
        super().__init__()
        self._waiting = waiting

    def join(self) -> None:
        self._waiting.set()
        super().join()


@pytest.fixture
def answers_pipe() -> Any:
    read_end, write_end = os.pipe()
    yield write_end
    os.close(read_end)
    os.close(write_end)


def test_the_front_reads_no_further_than_it_has_answered(answers_pipe: int) -> None:
    stopped = threading.Event()  # the front waits for the server, or has read the whole input
    stdin = _Lines([INITIALIZE, INITIALIZED, *(_call(i) for i in range(2, 200))], stopped)
    front = Front(stdin, answers_pipe)  # type: ignore[arg-type]
    front._lines = _WatchedQueue(stopped)
    front.start()
    assert stopped.wait(30)
    # The handshake answered and the notification (which has no answer) read past; the first tool call is read
    # and waits for the server. Before, all 200 lines (the whole input) were read at once.
    assert stdin.read == 3
    taken = [front.take_over() for _ in range(3)]
    assert [json.loads(line).get("id") for line in taken] == [1, None, 2]
    rest = iter(front.take_over, b"")
    assert sum(1 for _ in rest) == 197 and stdin.read == 200  # each read only once the one before was taken


def test_an_answered_id_is_not_answered_again(answers_pipe: int) -> None:
    reused = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    stopped = threading.Event()
    front = Front(_Lines([INITIALIZE, INITIALIZED, reused], stopped), answers_pipe)  # type: ignore[arg-type]
    front._lines = _WatchedQueue(stopped)
    front.start()
    assert stopped.wait(30)
    assert [kind for kind, _ in front.answered[1]] == ["initialize"]  # the reused id is left to the SDK
    sdk_initialize = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}}
    sdk_listing = {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}
    assert front.leave_out(sdk_listing)[0] is False  # the SDK's answer to the reused id goes out
    assert front.leave_out(sdk_initialize)[0] is True  # its second answer to the handshake does not
    assert front.leave_out(sdk_initialize)[0] is False  # once per answer the front gave
