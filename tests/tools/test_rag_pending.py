"""The built-in corpus's ``rag`` tool while its vectors are missing: the background build starts at the tool's
first search, once, never when the tool is made (the service makes its tools before its first request, and a
guard check at the fast tier never searches them)."""

from __future__ import annotations

import asyncio

import pytest

from factdebate.core.types import Document
from factdebate.corpus import vectors_later
from factdebate.tools.rag_pending import PendingRagTool


class _FullText:
    def __init__(self) -> None:
        self.queries: list[str] = []

    async def search(self, query: str, k: int) -> list[Document]:
        self.queries.append(query)
        return [Document(id="d1", text="The Eiffel Tower stands in Paris.", title="Eiffel Tower")][:k]


def test_the_build_starts_at_the_first_search_not_when_the_tool_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[vectors_later.Build] = []
    monkeypatch.setattr(vectors_later, "start", lambda build: started.append(build) or True)
    monkeypatch.setattr(vectors_later, "ready", lambda build: False)
    build = vectors_later.Build("milvus.db", 30, "int8")
    tool = PendingRagTool(build, "builtin")
    full_text = _FullText()
    tool._lexical = full_text  # type: ignore[assignment]
    assert started == []  # made, as the service makes its tools before a request: nothing builds

    async def two_searches() -> list[list[Document]]:
        return [await tool.search("Eiffel Tower", 1), await tool.search("Paris", 1)]

    first, second = asyncio.run(two_searches())
    assert started == [build]  # the first search began it, the second did not begin another
    assert full_text.queries == ["Eiffel Tower", "Paris"]  # both answered from the full-text index meanwhile
    assert first[0].title == "Eiffel Tower" and second
