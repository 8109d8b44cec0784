"""The local BM25 tool on a real tantivy index of a few documents."""

from __future__ import annotations

import pytest

from factdebate.core.errors import IndexError_
from factdebate.core.types import Document
from factdebate.corpus.lexical import LexicalIndex, query_words
from factdebate.tools.base import Tool
from factdebate.tools.local_search import LocalSearchTool
from factdebate.util.paths import data_dir

DOCS = [
    Document(id="paris#0", title="Paris", text="Paris is the capital and largest city of France.", source="s1"),
    Document(id="berlin#0", title="Berlin", text="Berlin is the capital of Germany, on the river Spree."),
    Document(id="einstein#0", title="Albert Einstein", text="Einstein developed the theory of relativity."),
    Document(id="nile#0", title="Nile", text="The Nile is a major river flowing north through Africa."),
    Document(id="mona#0", title="Mona Lisa", text="Leonardo da Vinci painted the Mona Lisa in the 1500s."),
    Document(id="photo#0", title="Photosynthesis", text="Plants convert sunlight into chemical energy."),
]


@pytest.fixture
def index() -> LexicalIndex:
    idx = LexicalIndex("tiny")
    assert idx.add(DOCS) == len(DOCS)
    return idx


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What is the capital of Germany?", "berlin#0"),
        ("who painted Mona Lisa", "mona#0"),
        ("theory of relativity", "einstein#0"),
        ("paintings by Leonardo", "mona#0"),  # stemming: paintings ~ painted
        ("longest river in Africa", "nile#0"),
    ],
)
async def test_right_document_ranks_first(index: LexicalIndex, query: str, expected: str) -> None:
    results = await LocalSearchTool(index=index).search(query, 3)
    assert results[0].id == expected
    assert results[0].score > 0
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


async def test_results_carry_stored_fields(index: LexicalIndex) -> None:
    [top] = await LocalSearchTool(index=index).search("largest city of France", 1)
    assert (top.title, top.source) == ("Paris", "s1")
    assert top.text.startswith("Paris is the capital")


@pytest.mark.parametrize(
    "query",
    [
        'title:"Paris AND (capital',
        "Berlin^3 ~2 [x TO y] {a} \\ / ! -",
        "NOT OR AND",
        "",
        "   ",
        "***",
        "id:paris#0",
        "Paris's \u00e9t\u00e9 \u201cquoted\u201d \u0634\u0645\u0633",
    ],
)
async def test_odd_characters_never_crash(index: LexicalIndex, query: str) -> None:
    results = await LocalSearchTool(index=index).search(query, 5)
    assert isinstance(results, list)


def test_query_words_drops_syntax() -> None:
    assert query_words('title:"Foo" AND (bar)^2') == "title foo and bar 2"


def test_reindexing_adds_nothing_twice(index: LexicalIndex) -> None:
    assert index.add(DOCS) == 0
    assert index.add([*DOCS, DOCS[0]]) == 0
    assert index.count() == len(DOCS)
    extra = Document(id="rome#0", title="Rome", text="Rome is the capital of Italy.")
    assert index.add([extra, extra]) == 1
    assert index.count() == len(DOCS) + 1
    assert index.search_sync("capital of Italy", 1)[0].id == "rome#0"  # visible right after the commit


def test_index_lives_under_data_dir(index: LexicalIndex) -> None:
    assert index.path == data_dir() / "tantivy" / "tiny"
    assert index.exists()


def test_missing_index_says_how_to_build_it() -> None:
    with pytest.raises(IndexError_, match="factdebate index"):
        LexicalIndex("never-built").search_sync("anything", 3)


def test_tool_protocol() -> None:
    tool = LocalSearchTool("tiny")
    assert isinstance(tool, Tool)
    assert tool.name == "local"


def test_a_busy_writer_lock_is_waited_for_then_reported(index: LexicalIndex,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stopped build's writer may still be shutting down when the build is run again: its lock is waited
    for; one held past the wait is another process indexing, reported in one line."""
    import threading

    import factdebate.corpus.lexical as lexical

    monkeypatch.setattr(lexical, "WRITER_WAIT_S", 1.0)
    holder = index._index().writer(heap_size=15_000_000)  # as a writer in another process would
    with pytest.raises(IndexError_, match="is another factdebate process indexing it"):
        index.add([Document(id="rome#0", title="Rome", text="Rome is the capital of Italy.")])

    def release() -> None:
        holder.rollback()
        holder.wait_merging_threads()  # drops the writer and its lock

    threading.Timer(0.3, release).start()
    assert index.add([Document(id="rome#0", title="Rome", text="Rome is the capital of Italy.")]) == 1
