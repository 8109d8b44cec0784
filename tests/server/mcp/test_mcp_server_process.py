"""The MCP server as a chatbot uses it: a subprocess over stdio, called with the official MCP client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.types import Document

mcp = pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

DOCS = [
    Document(id="d1", title="Eiffel Tower",
             text="The Eiffel Tower in Paris was completed in 1889 for the World's Fair.", source="https://en.wikipedia.org/wiki/Eiffel_Tower"),
    Document(id="d2", title="Great Wall",
             text="The Great Wall of China is not visible from the Moon with the naked eye.", source="https://en.wikipedia.org/wiki/Great_Wall_of_China"),
    Document(id="d3", title="Honey", text="Honey stored in sealed jars can keep for thousands of years.",
             source="https://en.wikipedia.org/wiki/Honey"),
]


@pytest.fixture
def mini_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A three-document BM25 index (no embedding model needed) in a data directory of its own."""
    indexing = pytest.importorskip("factdebate.corpus.indexing")
    pytest.importorskip("tantivy", reason="the tantivy package (extra 'retrieval') is not installed")
    data = tmp_path / "data"
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(data))
    indexing.index_corpus(DOCS, "mini", engines=["local"], progress=False)
    return data


def _payload(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if isinstance(content, dict) and set(content) == {"result"} else content
    return json.loads(result.content[0].text)


async def test_verify_claim_and_search_evidence_over_stdio(mini_corpus: Path) -> None:
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(mini_corpus), "FACTDEBATE_LLM": "scripted:agree",
           "FACTDEBATE_SEARCH": "local", "FACTDEBATE_RETRIEVAL__CORPUS": "mini",
           "FACTDEBATE_METHODS__TOOL_MAD__SCORING": "false", "FACTDEBATE_LLM__CACHE": "false"}
    params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "factdebate.server.mcp.server"], env=env)
    client = mcp.stdio_client(params, errlog=sys.__stderr__)  # stderr as it is now, not at mcp's import
    async with client as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert {"verify_claim", "search_evidence"} <= tools

        docs = _payload(await session.call_tool("search_evidence", {"query": "When was the Eiffel Tower built?",
                                                                     "k": 2}))
        assert docs[0]["title"] == "Eiffel Tower" and docs[0]["source"].startswith("https://")
        assert "1889" in docs[0]["text"] and docs[0]["tool"] == "local"

        verdict = _payload(await session.call_tool("verify_claim", {
            "claim": "The Eiffel Tower was completed in 1889.", "agents": ["search", "none"], "rounds": 2}))
        assert verdict["label"] == "SUPPORTS" and verdict["decided_by"] == "consensus"
        evidence = verdict["rounds"][0]["turns"][0]["evidence"]
        assert evidence and evidence[0]["title"] == "Eiffel Tower"
        assert verdict["reasons"]

        failed = await session.call_tool("verify_claim", {"claim": "  "})
        assert failed.is_error and "empty" in failed.content[0].text
