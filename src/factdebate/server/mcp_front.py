"""The MCP handshake answered before the MCP SDK is loaded: ``factdebate mcp`` (stdio) answers ``initialize``
in a fraction of a second where loading the command line and the SDK takes about one.

The console script (cli/launch.py) calls :func:`start` before anything heavy is imported. It takes stdin as the
SDK's stdio transport would (the protocol is read from a private copy; fd 0 points at the null device, so a
child process cannot read the client's messages) and reads it on a thread. A well-formed ``initialize`` as the
first line is answered at once, with the version negotiated as the SDK negotiates it and the SDK's capabilities,
server info and instructions; a ``tools/list`` read before the server is running is answered with the SDK's own
list, kept in mcp_catalog.json (tests/server/test_mcp_front.py compares both with the SDK's answers). The server
then reads every line in order, those included (:meth:`Front.replay`): the SDK answers them itself, so its
session state is its own, and those second answers are not sent (server/mcp_server.py). What else the client
sends meanwhile waits until the server reads it. Anything else as the first line (a request in the 2026
protocol's envelope, a malformed handshake) is left to the SDK, and so is everything after it."""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from typing import Any, BinaryIO, TypeGuard

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


def _is_object(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


def _request(line: bytes, method: str) -> dict[str, Any] | None:
    """``line`` as a JSON-RPC 2.0 message calling ``method``, else None."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if _is_object(message) and message.get("jsonrpc") == "2.0" and message.get("method") == method:
        return dict(message)
    return None


def early_answer(line: bytes) -> dict[str, Any] | None:
    """The answer to ``line`` when it is a well-formed ``initialize`` request, else None (the SDK answers it,
    or refuses it in its own words). Only what the SDK would accept is answered here: a request id, a
    protocol version, capabilities that are objects, and the client's name, version and title as text."""
    if (message := _request(line, "initialize")) is None:
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


def _tools_list(line: bytes) -> int | str | None:
    """The id of ``line`` when it is a plain ``tools/list`` request (no cursor), else None."""
    if (message := _request(line, "tools/list")) is None:
        return None
    request_id, params = message.get("id"), message.get("params", {})
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)) or not _is_object(params) \
            or set(params) - {"_meta"} or not _is_object(params.get("_meta", {})):
        return None
    return request_id


class Front:
    """stdin read on a thread of its own for the whole session: the client's ``initialize`` answered at once
    and, until the server reads its first line, a ``tools/list`` answered from the kept list
    (server/mcp_catalog.py); every line is then handed to the server (:meth:`replay`) in order."""

    def __init__(self, reader: BinaryIO, writer_fd: int) -> None:
        self._reader = reader
        self._writer_fd = writer_fd
        self._lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._taken_over = False
        self._writing = threading.Lock()  # the front writes only while the server has read nothing
        self.answered: dict[int | str, dict[str, Any]] = {}  # id -> the result sent, for the server to leave out

    def start(self) -> None:
        threading.Thread(target=self._read, name="mcp-handshake", daemon=True).start()

    def _read(self) -> None:
        try:
            line = self._reader.readline()
            self._answer(early_answer(line))
            self._lines.put(line)
            while line:
                line = self._reader.readline()
                if (listed := _tools_list(line)) is not None and self.answered:
                    self._answer_list(listed)
                self._lines.put(line)
        except Exception as exc:  # never in the way: the SDK answers what is left
            print(f"factdebate mcp: reading stdin failed ({type(exc).__name__}: {exc})", file=sys.stderr)
            self._lines.put(b"")  # the end of the input, as the server would have met it

    def _answer_list(self, request_id: int | str) -> None:
        from factdebate.server.mcp_catalog import stored

        catalog = stored()
        if catalog is not None:
            self._answer({"jsonrpc": "2.0", "id": request_id, "result": catalog})

    def _answer(self, answer: dict[str, Any] | None) -> None:
        if answer is None:
            return
        with self._writing:
            if self._taken_over:
                return
            data = (json.dumps(answer, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            self.answered[answer["id"]] = answer["result"]  # before the line reaches the server
            while data:
                data = data[os.write(self._writer_fd, data):]

    def replay(self) -> Replay:
        """The stdin the server reads: every line the front read, the ones it answered included, as text (as
        the SDK decodes it); from its first read on, the front answers nothing more."""
        return Replay(self)

    def take_over(self) -> bytes:
        with self._writing:
            self._taken_over = True
        return self._lines.get()


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
