"""The offline Wikipedia tools over a corpus other than the builtin one, and with the dense index failing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from factdebate.core.errors import IndexError_
from factdebate.core.types import Document
from factdebate.toolservers.wiki_offline import OfflineWikipedia
from factdebate.toolservers.wikipedia_server import build_wikipedia_server
from tests.memory.conftest import words_encode
from tests.toolservers.helpers import payload, tool_server

pytest.importorskip("tantivy")

LONG = " ".join(f"Sentence {n} says the tower has {n} floors of iron." for n in range(40))
DOCS = [
    Document(id="eiffel", title="Eiffel Tower", text="The Eiffel Tower in Paris was completed in 1889. " + LONG,
             source="https://example.org/eiffel"),
    Document(id="wall", title="Great Wall", text="The Great Wall of China is not visible from the Moon.",
             source="https://example.org/wall"),
    Document(id="honey", title="Honey", text="Honey stored in sealed jars keeps for thousands of years.",
             source="https://example.org/honey"),
]


class BrokenStore:
    """A dense index that cannot be opened (as when Milvus Lite is held by another process)."""

    async def search(self, query: str, k: int) -> list[Document]:
        raise IndexError_("opening the Milvus Lite database failed")


@pytest.fixture
def mini(tmp_path: Path) -> str:
    from factdebate.corpus.indexing import index_corpus

    index_corpus(DOCS, "mini", engines=["local"], progress=False)
    return "mini"


async def test_bm25_only_when_the_dense_index_fails(mini: str) -> None:
    server = build_wikipedia_server(OfflineWikipedia(mini, dense=BrokenStore()), encode=words_encode)  # type: ignore[arg-type]
    found = (await server.call_tool("search_wikipedia", {"query": "tower in Paris"})).structured_content
    assert found["results"][0]["title"] == "Eiffel Tower"
    assert "BM25 only" in found["notes"][0]
    related = (await server.call_tool("get_related_topics", {"title": "Honey", "k": 2})).structured_content
    assert "Honey" not in [r["title"] for r in related["related"]] and "BM25 neighbours" in related["notes"][0]
    sections = (await server.call_tool("get_sections", {"title": "Eiffel Tower"})).structured_content
    assert len(sections["sections"]) >= 2  # a long article is several passages
    second = (await server.call_tool("summarize_article_section", {"title": "Eiffel Tower", "section": "1",
                                                                   "sentences": 1})).structured_content
    assert second["section"]["number"] == 1 and second["summary"].startswith("Sentence")


async def test_any_indexed_corpus_over_stdio(mini: str) -> None:
    env = {"FACTDEBATE_DATA_DIR": os.environ["FACTDEBATE_DATA_DIR"], "FACTDEBATE_RETRIEVAL__CORPUS": mini}
    async with tool_server("wikipedia", "--engines", "local", env=env) as session:
        article = payload(await session.call_tool("get_article", {"title": "Great Wall"}))
        assert article["source"] == "https://example.org/wall" and "Moon" in article["text"]
        found = payload(await session.call_tool("search_wikipedia", {"query": "sealed jars"}))
        assert found["results"][0]["title"] == "Honey" and "dense search is off" in found["notes"][0]
