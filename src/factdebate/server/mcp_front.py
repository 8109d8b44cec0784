"""The MCP handshake answered before the MCP SDK is loaded: ``factdebate mcp`` (stdio) answers ``initialize``
in a fraction of a second where loading the command line and the SDK takes about one.

The console script (cli/launch.py) calls :func:`start` before anything heavy is imported. It takes stdin as the
SDK's stdio transport would (the protocol is read from a private copy; fd 0 points at the null device, so a
child process cannot read the client's messages), and on a thread reads the client's first line: a well-formed
``initialize`` is answered at once, with the version negotiated as the SDK negotiates it and the SDK's
capabilities, server info and instructions (a test compares the two answers for every version). The server
then reads that line again followed by the rest of stdin (:meth:`Front.replay`): the SDK answers the replayed
``initialize`` itself, so its session state is its own, and that second answer is not sent
(server/mcp_server.py). What the client sends meanwhile waits in the pipe until the SDK reads it. Anything
else as the first line (a request in the 2026 protocol's envelope, a malformed handshake) is left to the SDK."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from typing import Any, BinaryIO

from factdebate.core.version import __version__

SERVER_NAME = "factdebate"
INSTRUCTIONS = ("Check factual claims. check_answer checks your own reply before you send it, within a deadline: "
                "per claim its label, its span in the reply, the evidence quotes and a correction for what is "
                "refuted. verify_claim runs a debate between retrieval agents and returns a label (SUPPORTS, "
                "REFUTES or NOT ENOUGH INFO) with the evidence and reasoning; search_evidence returns passages "
                "for a query without judging anything; check_response checks a long answer claim by claim with "
                "the full method. The checks take the passages you already have as evidence "
                "([{title, text, url}]), read before (evidence_mode both) or instead of (given) retrieval.")
# The SDK's (mcp_types.version: HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION) and what our server
# advertises (tools only); tests/server/test_mcp_front.py fails when the installed SDK says otherwise.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_VERSION = "2025-11-25"
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}}


def initialize_result(protocol_version: str) -> dict[str, Any]:
    """What the SDK answers to ``initialize`` asking for ``protocol_version``: that version when it speaks it,
    else its latest."""
    negotiated = protocol_version if protocol_version in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION
    return {"protocolVersion": negotiated, "capabilities": CAPABILITIES,
            "serverInfo": {"name": SERVER_NAME, "version": __version__}, "instructions": INSTRUCTIONS}


_CLIENT_INFO_TEXT = frozenset({"name", "version", "title"})  # icons, a website: the SDK checks their form


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def early_answer(line: bytes) -> dict[str, Any] | None:
    """The answer to ``line`` when it is a well-formed ``initialize`` request, else None (the SDK answers it,
    or refuses it in its own words). Only what the SDK would accept is answered here: a request id, a
    protocol version, capabilities that are objects, and the client's name, version and title as text."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not (_is_object(message) and message.get("jsonrpc") == "2.0" and message.get("method") == "initialize"):
        return None
    request_id, params = message.get("id"), message.get("params")
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)) or not _is_object(params):
        return None
    capabilities, client = params.get("capabilities"), params.get("clientInfo")
    if not (isinstance(params.get("protocolVersion"), str) and _is_object(params.get("_meta", {}))
            and _is_object(capabilities) and all(_is_object(value) for value in capabilities.values())
            and _is_object(client) and {"name", "version"} <= client.keys() <= _CLIENT_INFO_TEXT
            and all(isinstance(value, str) for value in client.values())):
        return None
    return {"jsonrpc": "2.0", "id": request_id, "result": initialize_result(params["protocolVersion"])}


class Front:
    """The client's first line, read and (when it is ``initialize``) answered on a thread of its own."""

    def __init__(self, reader: BinaryIO, writer_fd: int) -> None:
        self._reader = reader
        self._writer_fd = writer_fd
        self._first = b""
        self._read = threading.Event()
        self.answer: dict[str, Any] | None = None  # what was sent, for the server to leave out its own

    def start(self) -> None:
        threading.Thread(target=self._answer_first, name="mcp-handshake", daemon=True).start()

    def _answer_first(self) -> None:
        try:
            self._first = self._reader.readline()
            answer = early_answer(self._first)
            if answer is not None:
                data = (json.dumps(answer, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
                while data:
                    data = data[os.write(self._writer_fd, data):]
                self.answer = answer
        except Exception as exc:  # never in the way: the SDK answers the line instead
            print(f"factdebate mcp: the handshake is left to the MCP SDK ({type(exc).__name__}: {exc})",
                  file=sys.stderr)
        finally:
            self._read.set()

    def replay(self) -> Replay:
        """The stdin the SDK reads: the first line again, then the rest, as text (as the SDK decodes it)."""
        return Replay(self)


class Replay:
    """A text file as far as the SDK's stdio transport reads one (``anyio.wrap_file``: lines, then close)."""

    def __init__(self, front: Front) -> None:
        self._front = front
        self._rest = io.TextIOWrapper(front._reader, encoding="utf-8", errors="replace")
        self._first_given = False

    def close(self) -> None:  # the descriptor stays open: the SDK's reader thread may still block on it
        pass

    def readline(self) -> str:
        if not self._first_given:
            self._front._read.wait()  # the SDK's reader waits here (on a worker thread) for the first line
            self._first_given = True
            if not self._front._first:
                return ""
            return self._front._first.decode("utf-8", errors="replace")
        return self._rest.readline()


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
