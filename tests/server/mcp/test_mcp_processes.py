"""``factdebate mcp`` as agents run it: real processes, the official MCP client or JSON-RPC lines. The handshake
is answered before the MCP SDK loads and before any index is built; two processes on one data folder both
search the built-in corpus (Milvus Lite serves one process per folder: each searches its own copy); ``--http``
serves behind the service's keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

import mcp
from mcp.client.streamable_http import streamable_http_client

from factdebate.corpus.markers import MARKER_FILE
from factdebate.util.version import __version__
from tests.paths import ROOT
from tests.readiness import wait_until_ready
from tests.server.conftest import free_port

KEY = "mcp-test-key-0123456789abcdef"
SCRIPTED = {"FACTDEBATE_LLM": "scripted:agree", "FACTDEBATE_LLM__CACHE": "false", "FACTDEBATE_SEARCH": "local",
            "FACTDEBATE_METHODS__TOOL_MAD__SCORING": "false"}
PASSAGE = {"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris."}
READY_WITHIN_S = 180  # generous: a shared, loaded machine; an idle one needs a few seconds


def _command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "factdebate.cli.launch", "mcp", *extra]  # as the console script starts it


@asynccontextmanager
async def _session(env: dict[str, str]) -> AsyncIterator[Any]:
    command = _command()
    params = mcp.StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(ROOT))
    async with mcp.stdio_client(params, errlog=sys.__stderr__ or sys.stderr) as (read, write), \
            mcp.ClientSession(read, write) as session:
        yield session


def _payload(result: Any) -> Any:
    assert not result.is_error, result.content
    content = result.structured_content
    if content is None:
        return json.loads(result.content[0].text)
    return content.get("result", content) if set(content) == {"result"} else content


async def _when_ready(session: Any, tool: str, arguments: dict[str, Any]) -> Any:
    """The tool's answer, asked again while the server says its index is being prepared, or, for a vector
    search, while it answers from the full-text index in its stead until it has opened the vectors (as an agent
    would: the answer says to ask again later; a loaded machine takes seconds past the build to open them)."""
    deadline = time.monotonic() + READY_WITHIN_S
    while True:
        result = await session.call_tool(tool, arguments)
        text = result.content[0].text if result.is_error and result.content else ""
        stand_in = arguments.get("tool") == "rag" and "ask again later" in str(result.content)
        if ("being prepared" not in text and not stand_in) or time.monotonic() > deadline:
            return _payload(result)
        await anyio.sleep(0.5)


class _Pipe:
    """JSON-RPC lines to and from a ``factdebate mcp`` process, written as fast as a client may write them."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(_command(), cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=sys.__stderr__)
        self._ids = iter(range(1, 1_000))
        self.answers: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False,
             request_id: int | None = None) -> int:
        request_id = 0 if notify else request_id or next(self._ids)
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {}),
                   **({} if notify else {"id": request_id})}
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        return request_id

    def answer(self, request_id: int, count: int = 1) -> dict[str, Any]:
        """The first answer to ``request_id``, once ``count`` have come (every line read is kept in ``answers``)."""
        assert self.process.stdout is not None
        while sum(a.get("id") == request_id for a in self.answers) < count:
            line = self.process.stdout.readline()
            assert line, f"the server closed its output (exit {self.process.poll()})"
            self.answers.append(json.loads(line))
        return next(a for a in self.answers if a.get("id") == request_id)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)


def _tool_payload(answer: dict[str, Any]) -> Any:
    result = answer["result"]
    assert not result.get("isError"), result
    content = result.get("structuredContent")
    if content is None:
        return json.loads(result["content"][0]["text"])
    return content.get("result", content) if set(content) == {"result"} else content


@pytest.mark.parametrize("extra", [(), ("--http", "--no-auth", "--port", "1")])
def test_a_missing_settings_file_stops_it_at_the_start_in_one_line(tmp_path: Path, extra: tuple[str, ...]) -> None:
    """``--config`` naming no file: one line and exit 2 before anything is served, as ``verify`` says it (stdio
    through the console script's fast start, ``--http`` through the command line)."""
    missing = tmp_path / "factdebate.yaml"
    done = subprocess.run([*_command("--config", str(missing), *extra)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"error: cannot read config file {missing}: no such file", done.stderr
    assert done.stdout == ""


def test_initialize_answers_before_anything_loads_and_requests_wait(tmp_path: Path) -> None:
    """The handshake (and the tool list) is answered before the MCP SDK is loaded (server/mcp/front.py) and
    before any index is built; requests written right behind it wait for the server instead of failing, and
    each is answered once."""
    data = tmp_path / "data"
    env = {**os.environ, **SCRIPTED, "FACTDEBATE_DATA_DIR": str(data),
           # a small slice of the built-in corpus, lexical only: the background build stays short
           "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": "5", "FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[search, none]"}
    pipe = _Pipe(env)
    watchdog = threading.Timer(READY_WITHIN_S * 2, pipe.process.kill)  # a hung server fails the test, not the run
    watchdog.start()
    try:
        early = pipe.send("tools/list")  # before the handshake: refused at once, in words
        refused = pipe.answer(early)["error"]
        assert refused["code"] == -32602 and "send initialize first" in refused["message"]
        started = pipe.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                           "clientInfo": {"name": "test", "version": "1"}})
        pipe.send("notifications/initialized", notify=True)
        listed = pipe.send("tools/list")
        reused = pipe.send("tools/list", request_id=started)  # an id used again: its own answer, once
        checked = pipe.send("tools/call", {"name": "check_answer", "arguments": {
            "answer": "The Eiffel Tower is in Paris.", "evidence": [PASSAGE], "evidence_mode": "given",
            "tier": "fast", "deadline_s": 30}})
        handshake = pipe.answer(started)["result"]
        assert not (data / MARKER_FILE).exists(), "an index was built before the handshake was answered"
        assert handshake["protocolVersion"] == "2025-06-18"
        assert handshake["serverInfo"] == {"name": "factdebate", "version": __version__}
        assert handshake["capabilities"] == {"tools": {"listChanged": False}} and handshake["instructions"]
        tools = {tool["name"] for tool in pipe.answer(listed)["result"]["tools"]}
        assert {"check_answer", "verify_claim", "search_evidence", "check_response"} <= tools
        pipe.answer(reused, count=2)  # the handshake's answer and the reused id's own
        assert _tool_payload(pipe.answer(checked))["claims"][0]["label"] == "SUPPORTS"
        deadline = time.monotonic() + READY_WITHIN_S
        while True:  # asked again while the server says its index is being prepared, as an agent would
            searched = pipe.answer(pipe.send("tools/call", {"name": "search_evidence",
                                                            "arguments": {"query": "history", "k": 2}}))
            text = searched["result"]["content"][0]["text"] if searched["result"].get("isError") else ""
            if "being prepared" not in text or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert isinstance(_tool_payload(searched), list) and (data / MARKER_FILE).exists()
    finally:
        watchdog.cancel()
        pipe.close()
    ids = [a.get("id") for a in pipe.answers]
    # Every request answered once, the early ones too (before, a reused id got three answers): the reused id
    # twice, once for the handshake and once for its listing.
    assert sorted(ids) == sorted([*set(ids), started]), pipe.answers
    assert [set(a["result"]) & {"protocolVersion", "tools"} for a in pipe.answers if a.get("id") == reused] == [
        {"protocolVersion"}, {"tools"}]
    assert [a for a in pipe.answers if "error" in a] == [pipe.answers[0]], pipe.answers


async def test_the_sdks_default_client_connects_with_discover(tmp_path: Path) -> None:
    """The SDK's own ``mcp.Client`` opens with the 2026 protocol's ``server/discover``; the front answers it, and
    the tool list, before the SDK loads (it waited 6-7 s for the SDK), then the SDK serves the calls."""
    env = {**os.environ, **SCRIPTED, "FACTDEBATE_DATA_DIR": str(tmp_path / "data"),
           "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": "5", "FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[search, none]"}
    command = _command()
    params = mcp.StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(ROOT))
    with anyio.fail_after(READY_WITHIN_S):
        async with mcp.Client(params) as client:
            assert client.server_info is not None and client.server_info.name == "factdebate"
            assert client.protocol_version == "2026-07-28"  # the 2026 era, not the initialize fallback
            assert {tool.name for tool in (await client.list_tools()).tools} >= {"check_answer", "verify_claim"}
            checked = _payload(await client.call_tool("check_answer", {
                "answer": "The Eiffel Tower is in Paris.", "evidence": [PASSAGE], "evidence_mode": "given",
                "tier": "fast", "deadline_s": 30}))
    assert checked["claims"][0]["label"] == "SUPPORTS"


@pytest.mark.usefixtures("builtin_index")
async def test_two_processes_on_one_data_folder_both_answer() -> None:
    env = {**os.environ, **SCRIPTED}  # the built-in corpus (40 articles), rag and search agents (the default)
    claim = {"claim": "Paris is the capital of France.", "rounds": 1}
    async with _session(env) as first:  # it holds its searches open while the second process starts
        await first.initialize()
        held = await _when_ready(first, "search_evidence", {"query": "capital", "tool": "rag"})
        with anyio.fail_after(READY_WITHIN_S * 2):
            async with _session(env) as second:
                await second.initialize()
                passages = await _when_ready(second, "search_evidence", {"query": "capital of France", "tool": "rag"})
                verdict = await _when_ready(second, "verify_claim", claim)
                again = _payload(await first.call_tool("verify_claim", claim))
    assert held and passages and all(p["tool"] == "rag" for p in passages)
    for answer in (verdict, again):
        assert answer["label"] == "SUPPORTS"
        tools = {t["tool"] for r in answer["rounds"] for t in r["turns"] if t["evidence"]}
        assert {"rag", "local"} <= tools, answer  # both agents found passages: both indexes were searched


def _start_http(port: int, data: Path) -> subprocess.Popen[str]:
    env = {**os.environ, **SCRIPTED, "FACTDEBATE_DATA_DIR": str(data), "FACTDEBATE_API_KEYS": KEY,
           "FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[none, none]"}
    return subprocess.Popen(_command("--http", "--port", str(port)), cwd=ROOT, env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def test_http_serves_with_the_key_and_refuses_without(tmp_path: Path) -> None:
    import httpx2

    port = free_port()
    server = _start_http(port, tmp_path / "data")
    url = f"http://127.0.0.1:{port}/mcp"
    def answers() -> bool:  # up when it answers at all
        try:
            httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=5)
            return True
        except httpx.HTTPError:
            return False

    try:
        # by its state and its own CPU, not a clock (its output read once it has ended)
        wait_until_ready(answers, server, "factdebate mcp --http",
                         log=lambda: server.stderr.read() if server.stderr and server.poll() is not None else "")
        async with httpx2.AsyncClient() as plain:
            refused = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert refused.status_code == 401 and "API key" in refused.text
        async with httpx2.AsyncClient(headers={"Authorization": "Bearer wrong-key-0123456789abcdef"}) as wrong:
            assert (await wrong.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})).status_code == 401

        keyed = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=httpx2.Timeout(120))
        async with keyed, streamable_http_client(url, http_client=keyed) as (read, write), \
                mcp.ClientSession(read, write) as session:
            await session.initialize()
            assert "check_answer" in {tool.name for tool in (await session.list_tools()).tools}
            checked = _payload(await session.call_tool("check_answer", {
                "answer": "The Eiffel Tower is in Paris.", "evidence": [PASSAGE], "evidence_mode": "given",
                "tier": "fast", "deadline_s": 30}))
        assert checked["claims"] and checked["claims"][0]["label"] == "SUPPORTS"
    finally:
        server.terminate()
        server.wait(30)
