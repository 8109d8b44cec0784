"""method=mermaid through the Python API and the MCP server's verify_claim (a subprocess that starts the
real MCP search server in turn), over a three-document corpus and the scripted model."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from factdebate.api import averify
from factdebate.memory import EvidenceMemory
from factdebate.util.paths import data_dir
from tests.server.mcp.test_mcp_server_process import _payload, mini_corpus  # noqa: F401  (the fixture)

mcp = pytest.importorskip("mcp")

ENV = {"FACTDEBATE_LLM": "scripted:agree", "FACTDEBATE_RETRIEVAL__CORPUS": "mini", "FACTDEBATE_LLM__CACHE": "false",
       "FACTDEBATE_METHODS__MERMAID__SERVERS": "[search]", "FACTDEBATE_METHODS__MERMAID__MEMORY_SEMANTIC": "false"}


async def test_python_api(mini_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    events: list[dict] = []
    EvidenceMemory(data_dir() / "evidence_memory.sqlite")  # readonly reads an existing memory, creates none
    verdict = await averify("The Eiffel Tower was completed in 1889.", method="mermaid", memory="readonly",
                            on_event=events.append)
    assert verdict.method == "mermaid" and verdict.label is not None
    step = verdict.rounds[0].turns[0].steps[0]
    assert step.tool == "search_local" and step.evidence[0].title == "Eiffel Tower"
    assert [e["skipped"] for e in events if e["event"] == "memory_write"] == ["read-only memory"]
    assert verdict.config["methods"]["mermaid"]["memory"] == "readonly"


async def test_mcp_verify_claim(mini_corpus: Path) -> None:  # noqa: F811
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(mini_corpus), **ENV}
    params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "factdebate.server.mcp.server"], env=env)
    client = mcp.stdio_client(params, errlog=sys.__stderr__)  # stderr as it is now, not at mcp's import
    async with client as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        verdict = _payload(await session.call_tool("verify_claim", {
            "claim": "The Eiffel Tower was completed in 1889.", "method": "mermaid"}))
    assert verdict["method"] == "mermaid" and verdict["label"] == "SUPPORTS"
    executor = verdict["rounds"][0]["turns"][0]
    assert executor["agent"] == "executor" and executor["evidence"][0]["title"] == "Eiffel Tower"
    assert verdict["usage"]["tool_calls"] == 1 and verdict["reasons"]
