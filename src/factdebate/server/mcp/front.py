"""The MCP handshake answered before the MCP SDK is loaded: ``factdebate mcp`` (stdio) answers ``initialize``
in a fraction of a second where loading the command line and the SDK takes about one.

The console script (cli/launch.py) calls :func:`start` before anything heavy is imported. It takes stdin as the
SDK's stdio transport would (the protocol is read from a private copy; fd 0 points at the null device, so a
child process cannot read the client's messages) and reads it on a thread. A handshake the SDK accepts is
answered at once (``initialize``, the version negotiated as the SDK negotiates it, with the SDK's capabilities,
server info and instructions; or the 2026 protocol's ``server/discover``), a request sent before it is refused at
once, and a ``tools/list`` read before the server is running is answered with the SDK's own list, kept in
mcp_catalog.json (server/mcp/front_answers.py; tests/server/mcp/test_mcp_front.py compares them with the SDK's
answers). The server then reads every line in order, those included (:meth:`Front.replay`): the SDK answers them
itself, so its session state is its own, and those second answers are not sent (server/mcp/server.py). What else
the client sends waits until the server reads it, and so does the front: it reads past a line only when it has
answered it (or it is a notification), so stdin is read no faster than the SDK alone would read it."""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from typing import Any, BinaryIO

from factdebate.server.mcp.front_answers import (
    CAPABILITIES,
    HANDSHAKE_VERSIONS,
    INSTRUCTIONS,
    LATEST_HANDSHAKE_VERSION,
    SERVER_NAME,
    discover_answer,
    initialize_answer,
    initialize_result,
    message_of,
    modern,
    modern_tools_list,
    refusal_before_handshake,
    request_id,
    tools_list,
)

__all__ = ["CAPABILITIES", "HANDSHAKE_VERSIONS", "INSTRUCTIONS", "LATEST_HANDSHAKE_VERSION", "SERVER_NAME", "Front",
           "early_answer", "initialize_result", "start", "started"]
# How far the front reads past lines that need no wait (those it answered, notifications) before the server has
# taken them: a client that writes and never reads is held back by the pipe, as by the SDK alone.
AHEAD_LINES = 64
AHEAD_BYTES = 1024 * 1024


def early_answer(line: bytes) -> dict[str, Any] | None:
    """The answer to ``line`` when it is an ``initialize`` request the SDK accepts, else None (the SDK answers
    it, or refuses it in its own words)."""
    message = message_of(line)
    return None if message is None else initialize_answer(message)


def answer_kind(answer: dict[str, Any]) -> str:
    """Which of the front's answers ``answer`` is, told by its shape: the server's filter matches the SDK's
    second answer to the same request by id and kind, so a reused id never loses or doubles an answer."""
    result = answer.get("result")
    if not isinstance(result, dict):
        return "error"
    if "supportedVersions" in result:
        return "discover"
    return "initialize" if "protocolVersion" in result else "tools"


class Front:
    """stdin read on a thread of its own for the whole session. Until the server reads its first line the front
    answers, as the SDK would: the handshake (``initialize``, or the 2026 protocol's ``server/discover``), a
    request sent before it (refused at once, in a sentence), and after ``initialize`` a ``tools/list`` from the
    kept list (server/mcp/catalog.py). Each id is answered once: a reused one is left to the SDK. Every line is
    then handed to the server (:meth:`replay`) in order, and the front reads no further than it has answered:
    after a line it leaves to the server it waits until the server has taken it (back-pressure)."""

    def __init__(self, reader: BinaryIO, writer_fd: int) -> None:
        self._reader = reader
        self._writer_fd = writer_fd
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._taken_over = False
        self._writing = threading.Lock()  # the front writes only while the server has read nothing
        self._era: str | None = None  # "legacy" once a handshake-era request was read, "modern" after discover
        self._initialized = False
        self._ids: set[int | str] = set()  # every request id read before the server took over
        # id -> (kind, result) of each answer sent, for the server to leave out the SDK's own answer to the same
        self.answered: dict[int | str, list[tuple[str, Any]]] = {}

    def start(self) -> None:
        threading.Thread(target=self._read, name="mcp-handshake", daemon=True).start()

    def _read(self) -> None:
        try:
            ahead = 0
            while True:
                line = self._reader.readline()
                handled = self._handle(line) if line else False
                self._lines.put(line)
                if not line:
                    return
                ahead += len(line)
                if not handled or ahead > AHEAD_BYTES or self._lines.qsize() >= AHEAD_LINES:
                    self._lines.join()  # until the server has taken every line read so far
                    ahead = 0
        except Exception as exc:  # never in the way: the SDK answers what is left
            print(f"factdebate mcp: reading stdin failed ({type(exc).__name__}: {exc})", file=sys.stderr)
            self._lines.put(b"")  # the end of the input, as the server would have met it

    def _handle(self, line: bytes) -> bool:
        """Answer ``line`` if the front may; whether the front may read on without waiting for the server (it
        answered the line, or the line is a notification, which has no answer)."""
        message = message_of(line)
        if message is None or self._taken_over:
            return False
        ident = request_id(message)
        if ident is None:
            return "id" not in message and isinstance(message.get("method"), str)  # a notification
        reused = ident in self._ids
        self._ids.add(ident)
        answer = None if reused else self._answer_for(message)
        if self._era is None and message.get("method") != "server/discover":
            # The SDK decides the era by the first request (a discover the front answered set it already).
            self._era = "modern" if modern(message) else "legacy"
        return answer is not None and self._send(answer)

    def _answer_for(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if not self._initialized and self._era in (None, "legacy"):
            if (answer := initialize_answer(message)) is not None:
                self._initialized = True
                return answer
            if self._era is None and (answer := discover_answer(message)) is not None:
                self._era = "modern"
                return answer
            return refusal_before_handshake(message)
        if self._initialized or self._era == "modern":
            from factdebate.server.mcp.catalog import stored

            if (catalog := stored()) is not None:
                return tools_list(message, catalog) if self._initialized else modern_tools_list(message, catalog)
        return None

    def _send(self, answer: dict[str, Any]) -> bool:
        with self._writing:
            if self._taken_over:
                return False
            data = (json.dumps(answer, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            self.answered.setdefault(answer["id"], []).append(  # before the server reads the line
                (answer_kind(answer), answer.get("result")))
            while data:
                data = data[os.write(self._writer_fd, data):]
        return True

    def leave_out(self, answer: dict[str, Any]) -> tuple[bool, Any]:
        """Whether the SDK's ``answer`` answers a request the front answered (then forgotten: once per answer),
        and the front's result for it."""
        sent = self.answered.get(answer.get("id"), [])  # type: ignore[arg-type]
        kind = answer_kind(answer)
        for index, (sent_kind, result) in enumerate(sent):
            if sent_kind == kind:
                del sent[index]
                return True, result
        return False, None

    def replay(self) -> Replay:
        """The stdin the server reads: every line the front read, the ones it answered included, as text (as
        the SDK decodes it); from its first read on, the front answers nothing more."""
        return Replay(self)

    def take_over(self) -> bytes:
        with self._writing:
            self._taken_over = True
        line = self._lines.get()
        self._lines.task_done()  # the front may read the next line
        return line


class Replay:
    """A text file as far as the SDK's stdio transport reads one (``anyio.wrap_file``: lines, then close)."""

    def __init__(self, front: Front) -> None:
        self._front = front

    def close(self) -> None:  # the descriptor stays open: the front's thread may still block on it
        pass

    def readline(self) -> str:  # on a worker thread of the SDK's
        return self._front.take_over().decode("utf-8", errors="replace")


_started: Front | None = None


def start() -> None:
    """Take stdin and start answering the handshake (``factdebate mcp`` over stdio only; once a process)."""
    global _started
    if _started is not None:
        return
    if sys.platform == "win32":  # the descriptors are taken as on POSIX only; the SDK serves as it does
        return
    import fcntl

    try:  # copies above the standard range, closed in children (as the SDK takes them)
        stdin_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        stdout_fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)  # the SDK later points fd 1 at stderr
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    except OSError:  # no descriptors to take: the SDK serves stdin and stdout as they are
        return
    _started = Front(os.fdopen(stdin_fd, "rb", closefd=False), stdout_fd)
    _started.start()


def started() -> Front | None:
    """The front when this process started one (the server then reads its :meth:`Front.replay`)."""
    return _started
