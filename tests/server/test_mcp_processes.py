"""``factdebate mcp`` as agents run it: real processes, the official MCP client. The handshake is answered
before any index is built; two processes on one data folder both search the built-in corpus (Milvus Lite
serves one process per folder: each searches its own copy); ``--http`` serves behind the service's keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

import mcp
from mcp.client.streamable_http import streamable_http_client

from factdebate.corpus.markers import MARKER_FILE
from tests.paths import ROOT
from tests.server.conftest import free_port

KEY = "mcp-test-key-0123456789abcdef"
SCRIPTED = {"FACTDEBATE_LLM": "scripted:agree", "FACTDEBATE_LLM__CACHE": "false", "FACTDEBATE_SEARCH": "local",
            "FACTDEBATE_METHODS__TOOL_MAD__SCORING": "false"}
PASSAGE = {"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris."}
READY_WITHIN_S = 180  # generous: a shared, loaded machine; an idle one needs a few seconds


def _command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "factdebate.cli.main", "mcp", *extra]


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
    """The tool's answer, asked again while the server says its index is being prepared (as an agent would)."""
    deadline = time.monotonic() + READY_WITHIN_S
    while True:
        result = await session.call_tool(tool, arguments)
        text = result.content[0].text if result.is_error and result.content else ""
        if "being prepared" not in text or time.monotonic() > deadline:
            return _payload(result)
        await anyio.sleep(0.5)


async def test_initialize_answers_before_any_index_is_built(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, **SCRIPTED, "FACTDEBATE_DATA_DIR": str(data),
           # a small slice of the built-in corpus, lexical only: the background build stays short
           "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": "5", "FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[search, none]"}
    async with _session(env) as session:
        started = time.monotonic()
        with anyio.fail_after(60):  # generous; an idle machine answers well under a second
            await session.initialize()
        answered = time.monotonic() - started
        assert not (data / MARKER_FILE).exists(), "an index was built before the handshake was answered"
        docs = await _when_ready(session, "search_evidence", {"query": "history", "k": 2})
    assert isinstance(docs, list) and (data / MARKER_FILE).exists()  # built in the background meanwhile
    assert answered < 60


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
    try:
        deadline = time.monotonic() + 60
        while True:  # up when it answers at all
            try:
                async with httpx2.AsyncClient() as plain:
                    refused = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
                break
            except httpx2.HTTPError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "the server did not start"
                await anyio.sleep(0.2)
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
