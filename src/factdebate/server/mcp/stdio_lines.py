"""``factdebate mcp`` over stdio reads each message line whole before it parses it, so one line without end
would take all the memory the machine has. Here the process's stdin becomes a pipe that a thread fills from the
real stdin, line by line: a line longer than :data:`MAX_LINE_BYTES` is dropped as it streams (never held) and
stderr says so. When the request's id can be read at the head of the line, a request of the method
:data:`TOO_LONG` with that id takes its place, which the server answers with a JSON-RPC error that says what
was dropped (server/mcp/server.py): every answer is written by the SDK, so none can be cut into another. The
SDK then reads fd 0 as before, through its own public path."""

from __future__ import annotations

import json
import os
import re
import sys
import threading

MAX_LINE_BYTES = 8 * 1024 * 1024  # as the HTTP transport's body limit (server/mcp/http.py)
_CHUNK = 64 * 1024
TOO_LONG = "factdebate/line_too_long"
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,18})')


def bound_stdin_lines(limit: int = MAX_LINE_BYTES) -> None:
    """Put the line-bounding pipe in front of fd 0, and start the thread that fills it."""
    real_in = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    threading.Thread(target=_copy, args=(real_in, write_end, limit), daemon=True, name="mcp-stdin-lines").start()


def _copy(source: int, sink: int, limit: int) -> None:
    line = bytearray()
    dropped = 0  # bytes of the line being dropped (0: the line is being kept)
    head = b""
    try:
        while chunk := os.read(source, _CHUNK):
            start = 0
            while start < len(chunk):
                end = chunk.find(b"\n", start)
                piece = chunk[start:] if end < 0 else chunk[start:end + 1]
                start += len(piece)
                if dropped:
                    dropped += len(piece)
                elif len(line) + len(piece) > limit:
                    head, dropped = bytes(line[:4096]), len(line) + len(piece)
                    line.clear()
                else:
                    line += piece
                if end < 0:
                    continue
                if dropped:
                    _refuse(sink, head, dropped, limit)
                    dropped, head = 0, b""
                else:
                    _write_all(sink, bytes(line))
                    line.clear()
        if line and not dropped:
            _write_all(sink, bytes(line))
    except OSError:
        pass
    finally:
        os.close(sink)  # end of input: the server ends as it does when stdin closes


def _refuse(sink: int, head: bytes, size: int, limit: int) -> None:
    said = f"a message line of {size:,} bytes is over the {limit:,}-byte limit: dropped"
    print(f"factdebate mcp: {said}", file=sys.stderr, flush=True)
    found = _ID.search(head)
    if found is None:
        return  # a notification, or an id past the head: nothing to answer
    stand_in = {"jsonrpc": "2.0", "id": json.loads(found.group(1)), "method": TOO_LONG, "params": {"said": said}}
    _write_all(sink, json.dumps(stand_in).encode() + b"\n")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
