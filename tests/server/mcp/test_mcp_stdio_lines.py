"""``factdebate mcp`` over stdio holds no line past its limit: a request line of 9 MB (over the 8 MiB limit) is
dropped as it streams, its request answered with a JSON-RPC error that says so, and the next request on the
same connection is answered as usual. The real server process, spoken to line by line as a client does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any] | bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes], ident: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while line := proc.stdout.readline():
        message = json.loads(line)
        if message.get("id") == ident:
            return dict(message)
    raise AssertionError(f"the server ended without answering request {ident}")


def test_a_line_over_the_limit_is_dropped_and_answered_and_the_connection_goes_on(tmp_path: Path) -> None:
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path / "data")}
    proc = subprocess.Popen([sys.executable, "-m", "factdebate.server.mcp.server"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        _send(proc, INITIALIZE)
        assert "result" in _answer(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        head = b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"pad": "'
        _send(proc, head + b"x" * (9 * 1024 * 1024) + b'"}}\n')
        refused = _answer(proc, 7)
        assert refused["error"]["code"] == -32600
        assert "over the 8,388,608-byte limit: dropped" in refused["error"]["message"], refused
        _send(proc, {"jsonrpc": "2.0", "id": 8, "method": "ping"})
        assert _answer(proc, 8).get("result") == {}
    finally:
        assert proc.stdin is not None and proc.stderr is not None
        proc.stdin.close()
        proc.wait(timeout=60)
        err = proc.stderr.read()
    assert b"over the 8,388,608-byte limit: dropped" in err
