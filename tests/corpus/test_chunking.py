"""Passage splitting: sentence boundaries, overlap, ids and titles."""

from __future__ import annotations

import itertools

import pytest

from factdebate.core.types import Document
from factdebate.corpus.chunking import chunk_document, chunk_documents, chunk_text, split_sentences


def sentences(n: int, words: int = 12) -> list[str]:
    return [f"Sentence{i} " + " ".join(f"w{i}_{j}" for j in range(words - 2)) + " end." for i in range(n)]


def test_short_document_is_one_passage_with_id_suffix_and_title() -> None:
    doc = Document(id="paris", title="Paris", text="  Paris is the capital of France.\nIt is large. ", source="u")
    [chunk] = chunk_document(doc)
    assert chunk.id == "paris#0"
    assert chunk.title == "Paris"
    assert chunk.source == "u"
    assert chunk.text == "Paris is the capital of France.\nIt is large."  # formatting kept


def test_blank_text_yields_no_passage() -> None:
    assert chunk_document(Document(id="x", title="X", text="  \n ")) == []


def test_long_text_splits_on_sentence_boundaries_within_the_limit() -> None:
    text = " ".join(sentences(40))  # 480 words
    chunks = chunk_text(text, max_words=100, overlap=20)
    assert len(chunks) >= 5
    for chunk in chunks:
        assert len(chunk.split()) <= 100
        assert chunk.startswith("Sentence") and chunk.endswith("end.")
    # Every sentence survives somewhere, in order.
    joined = " ".join(chunks)
    for sentence in sentences(40):
        assert sentence in joined


def test_consecutive_passages_overlap_by_whole_sentences() -> None:
    chunks = chunk_text(" ".join(sentences(30)), max_words=100, overlap=30)
    for first, second in itertools.pairwise(chunks):
        shared = [s for s in split_sentences(second) if s in split_sentences(first)]
        assert shared, "no overlap"
        assert second.startswith(" ".join(shared))  # the carried sentences lead the next passage
        assert sum(len(s.split()) for s in shared) <= 30


def test_zero_overlap_shares_nothing() -> None:
    chunks = chunk_text(" ".join(sentences(30)), max_words=100, overlap=0)
    heads = [split_sentences(c)[0] for c in chunks]
    assert len(set(heads)) == len(heads)
    assert sum(len(split_sentences(c)) for c in chunks) == 30


def test_one_huge_sentence_becomes_overlapping_word_windows() -> None:
    words = [f"w{i}" for i in range(1000)]
    chunks = chunk_text(" ".join(words), max_words=180, overlap=30)
    assert all(len(c.split()) <= 180 for c in chunks)
    assert chunks[0].split()[-30:] == chunks[1].split()[:30]
    assert chunks[-1].split()[-1] == "w999"


def test_ids_are_numbered_and_titles_repeated() -> None:
    doc = Document(id="d1", title="Long article", text=" ".join(sentences(50)))
    chunks = list(chunk_documents([doc, Document(id="d2", title="Short", text="Tiny.")], max_words=120))
    long_ids = [c.id for c in chunks if c.id.startswith("d1#")]
    assert long_ids == [f"d1#{n}" for n in range(len(long_ids))]
    assert len(long_ids) > 1
    assert all(c.title == "Long article" for c in chunks if c.id.startswith("d1#"))
    assert chunks[-1].id == "d2#0"


def test_sentence_split_keeps_closing_quotes() -> None:
    assert split_sentences('He said "stop." Then he left! Why? ok') == [
        'He said "stop."',
        "Then he left!",
        "Why?",
        "ok",
    ]


@pytest.mark.parametrize(("max_words", "overlap"), [(0, 0), (10, 10), (10, -1)])
def test_bad_parameters_are_rejected(max_words: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_text("some text here.", max_words=max_words, overlap=overlap)


def test_text_without_spaces_is_cut_to_what_the_embedder_reads() -> None:
    from factdebate.corpus.chunking import MAX_PIECES, pieces

    blob = "東京は日本の首都であり、世界最大の都市圏を持つ。" * 2000  # 48k characters, not one space
    passages = chunk_text(blob + " The Zorblax festival is held in March.")
    assert len(passages) > 100 and all(pieces(p) <= MAX_PIECES for p in passages)
    assert "Zorblax festival is held in March." in passages[-1]
    prose = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. " * 12
    assert chunk_text(prose) == chunk_text(prose, max_words=180)  # ordinary prose: word-based as before
    assert all(pieces(p) < MAX_PIECES for p in chunk_text(prose))
