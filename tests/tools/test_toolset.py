"""Retrieval tools as one toolset, and a toolset's tool back behind the ``search(query, k)`` protocol."""

from __future__ import annotations

from typing import Any, Self

from factdebate.core.runtime import RunRecorder, recording
from factdebate.core.types import Document
from factdebate.tools.base import Tool
from factdebate.tools.retrieval_toolset import SEARCH_INPUT, RetrievalToolset, ToolsetSearch, as_documents
from factdebate.tools.toolset import ToolResult, ToolSchema, Toolset
from tests.helpers import StaticTool


class BrokenTool:
    name = "broken"

    async def search(self, query: str, k: int) -> list[Document]:
        raise RuntimeError("index is offline")


async def test_retrieval_tools_are_listed_and_called_as_one_toolset() -> None:
    rag = StaticTool("rag")
    async with RetrievalToolset({"rag": rag, "search": BrokenTool()}) as toolset:
        assert isinstance(toolset, Toolset) and isinstance(rag, Tool)
        assert [(t.name, t.parameters) for t in await toolset.list_tools()] == [("rag", SEARCH_INPUT),
                                                                             ("search", SEARCH_INPUT)]
        found = await toolset.call_tool("rag", {"query": "capital of France", "k": 1})
        assert not found.is_error and found.documents == rag.docs[:1] and "Paris" in found.text
        assert rag.queries == ["capital of France"]
        failed = await toolset.call_tool("search", {"query": "x"})
        assert failed.is_error and "index is offline" in failed.text
        assert (await toolset.call_tool("web", {"query": "x"})).is_error
        assert (await toolset.call_tool("rag", {})).is_error


class RecordingToolset:
    """A toolset that answers from a fixed result and records its lifecycle."""

    name = "rec"

    def __init__(self, result: ToolResult, schema: dict[str, Any]) -> None:
        self.result, self.schema = result, schema
        self.events: list[str] = []
        self.calls: list[dict[str, Any]] = []

    async def __aenter__(self) -> Self:
        self.events.append("open")
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.events.append("close")

    async def list_tools(self) -> list[ToolSchema]:
        return [ToolSchema("find", "Find things.", self.schema)]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        self.calls.append(arguments)
        return self.result


async def test_a_toolset_tool_searches_like_a_retrieval_tool() -> None:
    toolset = RecordingToolset(ToolResult("Oslo is in Norway."), {"type": "object",
                                                                  "properties": {"query": {"type": "string"}}})
    search = ToolsetSearch(toolset, "find")
    assert isinstance(search, Tool) and search.name == "rec/find"
    docs = await search.search("Where is Oslo?", 3)
    await search.search("again", 3)
    await search.aclose()
    assert [d.text for d in docs] == ["Oslo is in Norway."] and docs[0].source == "rec/find"
    assert toolset.calls == [{"query": "Where is Oslo?"}, {"query": "again"}]  # no k: the tool takes none
    assert toolset.events == ["open", "close"]


async def test_an_error_result_is_traced_and_gives_no_documents() -> None:
    toolset = RecordingToolset(ToolResult("quota exceeded", is_error=True), SEARCH_INPUT)
    events: list[dict[str, Any]] = []
    with recording(RunRecorder([events.append])):
        docs = await ToolsetSearch(toolset, "find").search("x", 2)
    assert docs == [] and toolset.calls == [{"query": "x", "k": 2}]
    assert [e["event"] for e in events] == ["tool_error"] and events[0]["error"] == "quota exceeded"


def test_structured_items_become_documents() -> None:
    result = ToolResult("", data={"result": [{"id": "a", "title": "A", "text": "alpha", "source": "s", "score": 1}]})
    assert as_documents(result, "x") == [Document(id="a", title="A", text="alpha", source="s", score=1.0)]
    assert as_documents(ToolResult("  "), "x") == []
