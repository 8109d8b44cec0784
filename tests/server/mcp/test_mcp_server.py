"""MCP tool arguments: unknown ones are refused, errors are plain sentences (no pydantic links), and
search queries have a length limit."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

from mcp.server.mcpserver.exceptions import ToolError

from factdebate.server.mcp.server import build_server
from factdebate.server.mcp.tools import MAX_QUERY_CHARS


async def refused(tool: str, arguments: dict[str, Any]) -> str:
    server = build_server()
    with pytest.raises(ToolError) as info:
        await server.call_tool(tool, arguments)
    text = str(info.value)
    assert "http" not in text and "pydantic" not in text, text
    assert "\n" not in text and "validation error" not in text and "[type=" not in text, text  # one plain line
    return text


async def test_unknown_arguments_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree")
    assert "bogus: Extra inputs are not permitted" in await refused("verify_claim", {"claim": "x", "bogus": 1})


async def test_bad_argument_types_read_as_sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree")
    assert "rounds: Input should be a valid integer" in await refused("verify_claim", {"claim": "x", "rounds": "a"})
    assert "rounds:" in await refused("verify_claim", {"claim": "x", "rounds": 99})
    assert await refused("check_answer", {"answer": "x", "tier": "bogus"}) == \
        "invalid arguments: tier: Input should be 'fast', 'standard' or 'deep'"


async def test_search_queries_have_a_length_limit() -> None:
    text = await refused("search_evidence", {"query": "q" * (MAX_QUERY_CHARS + 1)})
    assert text == f"the query is {MAX_QUERY_CHARS + 1} characters long; the limit is {MAX_QUERY_CHARS}"
