"""A toolset's tool behind the ``search(query, k)`` protocol."""

from __future__ import annotations

from typing import Any, Self

from factdebate.core.runtime import RunRecorder, recording
from factdebate.core.types import Document
from factdebate.tools.base import Tool
from factdebate.tools.retrieval_toolset import ToolsetSearch, as_documents
from factdebate.tools.toolset import ToolResult, ToolSchema

SEARCH_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "k": {"type": "integer", "minimum": 1, "maximum": 20}},
    "required": ["query"],
}


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
