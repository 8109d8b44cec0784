"""A full-text index in parts: passages spread over the parts by id, every part searched, the best scores
kept, the layout refused when a build asks for another number of parts."""

from __future__ import annotations

import pytest

from factdebate.core.errors import IndexError_
from factdebate.core.types import Document
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.lexical_parts import merge_hits, part_of

DOCS = [Document(id=f"d{n}#0", title=f"Town {n}", text=f"Town {n} lies by the river {'Rhine' if n == 7 else 'Po'}.")
        for n in range(40)]


def test_passages_spread_over_the_parts_and_every_part_is_searched() -> None:
    index = LexicalIndex("parted")
    index.partition(3)
    assert index.add(DOCS) == 40 and index.add(DOCS[:5]) == 0  # adding stays idempotent
    parts = index.parts()
    assert parts is not None and [part.count() for part in parts] == [
        sum(part_of(d.id, 3) == n for d in DOCS) for n in range(3)]
    assert all(part.count() for part in parts) and index.count() == 40
    assert [hit.title for hit in index.search_sync("Rhine", 5)] == ["Town 7"]
    hits = index.search_sync("river Po", 10)
    assert len(hits) == 10 and [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {d.id for d in index.fetch(["d3#0", "d39#0", "missing#0"])} == {"d3#0", "d39#0"}


def test_a_part_is_the_same_on_every_machine() -> None:
    assert [part_of(f"p{n}", 4) for n in range(6)] == [part_of(f"p{n}", 4) for n in range(6)]
    assert {part_of(f"p{n}", 4) for n in range(200)} == {0, 1, 2, 3}


def test_another_number_of_parts_is_refused() -> None:
    single = LexicalIndex("single")
    single.add(DOCS[:3])
    single.partition(1)  # as it is: nothing to do
    with pytest.raises(IndexError_, match="has 1 part"):
        single.partition(2)
    parted = LexicalIndex("two")
    parted.partition(2)
    with pytest.raises(IndexError_, match="has 2 part"):
        parted.partition(3)


def test_merged_hits_keep_the_best_scores() -> None:
    a = [Document(id="a", title="", text="x", score=3.0), Document(id="b", title="", text="x", score=1.0)]
    b = [Document(id="c", title="", text="x", score=2.0)]
    assert [d.id for d in merge_hits([a, b], 2)] == ["a", "c"]
