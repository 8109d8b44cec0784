"""The rag tool end to end: real MiniLM embeddings in a real Milvus Lite database, offline.

Slow-ish (loading torch and the model takes seconds) but part of the normal suite: it is the only
proof that dense retrieval works on a fresh machine.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("pymilvus")
if importlib.util.find_spec("sentence_transformers") is None:  # imported when a test runs, not at collection
    pytest.skip("needs sentence-transformers (extra 'retrieval')", allow_module_level=True)

from factdebate.core.errors import IndexError_
from factdebate.core.types import Document
from factdebate.corpus import builtin_index
from factdebate.corpus.builtin_index import ensure_builtin_indexed
from factdebate.corpus.indexing import corpus_status, index_corpus
from factdebate.corpus.milvus import MilvusStore, get_client, milvus_id
from factdebate.tools.base import Tool
from factdebate.tools.rag import RagTool
from factdebate.util.paths import data_dir

pytestmark = pytest.mark.slow

DOCS = [
    Document(id="paris", title="Paris", text="Paris is the capital and largest city of France.", source="s1"),
    Document(id="berlin", title="Berlin", text="Berlin is the capital of Germany, on the river Spree."),
    Document(id="einstein", title="Albert Einstein", text="Einstein developed the theory of relativity."),
    Document(id="nile", title="Nile", text="The Nile is a major river flowing north through Africa."),
    Document(id="mona", title="Mona Lisa", text="Leonardo da Vinci painted the Mona Lisa in the 1500s."),
    Document(id="photo", title="Photosynthesis", text="Plants convert sunlight into chemical energy."),
]


def uri_in(tmp_path: Path) -> str:
    return str(tmp_path / "milvus.db")


async def test_round_trip_finds_documents_by_meaning(tmp_path: Path) -> None:
    store = MilvusStore("tiny", uri_in(tmp_path))
    assert not store.exists()
    assert store.add(DOCS) == len(DOCS)
    tool = RagTool(store=store)
    assert isinstance(tool, Tool) and tool.name == "rag"
    # Paraphrases sharing few or no words with the passage: only the embeddings can connect them.
    for query, expected in [
        ("Which city is the seat of the French government?", "paris"),
        ("Who created the famous portrait of a smiling woman?", "mona"),
        ("How do green plants turn light into food?", "photo"),
        ("physicist who explained gravity as curved spacetime", "einstein"),
    ]:
        results = await tool.search(query, 3)
        assert results[0].id == expected, (query, [r.id for r in results])
        assert len(results) == 3
        assert all(-1.0 <= r.score <= 1.0 for r in results)
        assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    [top] = await tool.search("capital of France", 1)
    assert (top.title, top.source) == ("Paris", "s1")
    assert top.text.startswith("Paris is the capital")


def test_adding_again_is_idempotent(tmp_path: Path) -> None:
    store = MilvusStore("tiny", uri_in(tmp_path))
    assert store.add(DOCS[:4]) == 4
    assert store.add(DOCS) == 2  # only the two new ones are embedded
    assert store.add(DOCS) == 0
    assert store.add([DOCS[0], DOCS[0]]) == 0
    store.finalize()
    assert store.count() == len(DOCS)


def test_awkward_ids_round_trip(tmp_path: Path) -> None:
    store = MilvusStore("ids", uri_in(tmp_path))
    odd = [
        Document(id='He said "hi" \\ it\'s#0', title="Quotes", text="A passage with a quoted id."),
        Document(id="x" * 600, title="Long", text="A passage whose id is too long for the key."),
        Document(id="tab\there#0", title="Tab", text="A passage whose id holds a tab."),
    ]
    assert store.add(odd) == 3
    assert store.add(odd) == 0
    assert len(milvus_id("x" * 600).encode()) <= 512
    assert {r.title for r in store.search_sync("a passage", 3)} == {"Quotes", "Long", "Tab"}


def test_missing_collection_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(IndexError_, match="factdebate index"):
        MilvusStore("never-built", uri_in(tmp_path)).search_sync("anything", 3)


def test_unopenable_database_names_what_to_delete(tmp_path: Path) -> None:
    bad = tmp_path / "broken.db"
    bad.write_text("not a Milvus Lite folder", encoding="utf-8")
    with pytest.raises(IndexError_, match=f"delete the folder {bad}"):
        get_client(str(bad))


def test_index_corpus_both_engines_then_status(tmp_path: Path) -> None:
    long_doc = Document(id="long", title="Long", text=" ".join(f"Sentence number {i} is here." for i in range(80)))
    stats = index_corpus([*DOCS, long_doc], "mini", progress=False, batch_size=4)
    assert stats.documents == 7
    assert stats.chunks > 7  # the long document became several passages
    assert stats.added_dense == stats.added_lexical == stats.chunks
    assert stats.passages_per_second > 0
    again = index_corpus([*DOCS, long_doc], "mini", progress=False)
    assert again.added_dense == again.added_lexical == 0
    status = corpus_status("mini")
    assert status["ready"] is True
    assert status["local"]["exists"] and status["local"]["entries"] == stats.chunks
    assert status["rag"]["exists"] and status["rag"]["entries"] == stats.chunks
    assert status["rag"]["uri"] == str(data_dir() / "milvus.db")
    empty = corpus_status("nothing-here")
    assert empty["ready"] is False
    assert not empty["local"]["exists"] and not empty["rag"]["exists"]
    assert empty["local"]["error"] is None and empty["rag"]["error"] is None


def test_ensure_builtin_indexed_builds_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The real builtin corpus takes minutes to embed; a stand-in exercises the same path.
    monkeypatch.setattr(builtin_index, "load_builtin_corpus", lambda: iter(DOCS))
    stats = ensure_builtin_indexed(progress=False)
    assert stats is not None and stats.chunks == len(DOCS)
    assert ensure_builtin_indexed(progress=False) is None  # marker + existing indexes: nothing to do
    local_only = ensure_builtin_indexed(progress=False, engines=("local",))
    assert local_only is None
    assert MilvusStore("builtin").search_sync("capital of Germany", 1)[0].id == "berlin#0"


def test_the_rag_tool_is_opened_when_it_is_built_not_at_its_first_search(tmp_path: Path) -> None:
    """A missing index (or a Milvus Lite folder another process holds) fails with the other tools, before
    any model call (a locked folder used to cost 3 model calls per sample first)."""
    from factdebate.run.build import make_tool
    from factdebate.settings.load import load_settings

    settings = load_settings(overrides={"retrieval": {"corpus": "never-built", "milvus_uri": uri_in(tmp_path)}},
                             environ={})
    with pytest.raises(IndexError_, match="factdebate index"):
        make_tool("rag", settings)
