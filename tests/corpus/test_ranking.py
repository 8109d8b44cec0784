"""Equal scores come back in order of passage id, whatever order the index was written in (corpus/ranking.py):
two builds of one corpus answer a search alike, which the golden check relies on."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from factdebate.core.types import Document
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.ranking import TIE_MARGIN, best_first, search_ties_by_id
from tests.helpers import HashingEmbedder

# Twelve copies of one passage (equal scores for any query) and one that ranks below them.
TWINS = [Document(id=f"lisbon-{i:02d}", title="Lisbon", text="Lisbon is a city on the Atlantic coast.")
         for i in range(12)]
OTHER = Document(id="porto", title="Porto", text="Porto is a city in the north, on the Douro, near the coast.")
WRITE_ORDERS = [[*TWINS, OTHER], [OTHER, *reversed(TWINS)], [*TWINS[5:], OTHER, *TWINS[:5]]]


class Engine:
    """An engine that returns ``scores`` in index order for equal ones, and counts what it was asked."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.order = list(scores)
        self.scores = scores
        self.limits: list[int] = []

    def __call__(self, limit: int) -> list[Document]:
        self.limits.append(limit)
        ranked = sorted(self.order, key=lambda i: -self.scores[i])  # stable: ties in index order
        return [Document(id=i, title=i, text=i, score=self.scores[i]) for i in ranked[:limit]]


def test_a_tie_longer_than_the_margin_is_read_whole() -> None:
    scores = {f"d{i:02d}": 1.0 for i in reversed(range(TIE_MARGIN + 10))} | {"best": 2.0, "worst": 0.5}
    engine = Engine(scores)
    assert [d.id for d in search_ties_by_id(engine, 3)] == ["best", "d00", "d01"]
    assert len(engine.limits) == 2  # the first answer ended inside the tie: asked again for more


def test_a_tie_that_ends_before_the_last_passage_needs_one_search() -> None:
    engine = Engine({"c": 1.0, "b": 1.0, "a": 1.0, "z": 0.1, **{f"low{i}": 0.01 for i in range(20)}})
    assert [d.id for d in search_ties_by_id(engine, 2)] == ["a", "b"]
    assert engine.limits == [2 + TIE_MARGIN]


def test_best_first_breaks_ties_by_id() -> None:
    docs = [Document(id=i, title="", text="", score=s) for i, s in (("b", 1.0), ("c", 2.0), ("a", 1.0))]
    assert [d.id for d in best_first(docs, 3)] == ["c", "a", "b"]


@pytest.mark.parametrize("order", WRITE_ORDERS)
def test_tied_bm25_hits_come_by_id_whatever_the_write_order(order: list[Document]) -> None:
    index = LexicalIndex(f"ties-{WRITE_ORDERS.index(order)}")
    index.add(order)
    found = index.search_sync("Lisbon city coast", 4)
    assert [d.id for d in found] == ["lisbon-00", "lisbon-01", "lisbon-02", "lisbon-03"]


@pytest.mark.skipif(importlib.util.find_spec("milvus_lite") is None, reason="needs milvus-lite (extra 'retrieval')")
def test_tied_vector_hits_come_by_id_whatever_the_write_order(tmp_path: Path) -> None:
    from factdebate.corpus.milvus import MilvusStore

    found = []
    for n, order in enumerate(WRITE_ORDERS):
        store = MilvusStore(f"ties{n}", str(tmp_path / f"m{n}.db"), HashingEmbedder())
        store.add(order)
        found.append([d.id for d in store.search_sync("Lisbon is a city on the Atlantic coast.", 4)])
    assert found == [["lisbon-00", "lisbon-01", "lisbon-02", "lisbon-03"]] * len(WRITE_ORDERS)
