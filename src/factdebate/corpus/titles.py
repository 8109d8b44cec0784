"""The pages a corpus holds: each document's id and title, for ``factdebate corpus titles`` and for a
retrieval evaluation's question "does the corpus hold the gold pages at all?" (eval/retrieval.py).

The built-in corpus is read from its file; any other corpus from its full-text index."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from factdebate.corpus.builtin import BUILTIN_CORPUS, load_builtin_corpus
from factdebate.corpus.lexical import LexicalIndex, _tantivy
from factdebate.util.errors import InputError


def document_id(passage_id: str) -> str:
    """The document a passage belongs to: its id up to the last ``#``."""
    return passage_id.rsplit("#", 1)[0] if "#" in passage_id else passage_id


def corpus_pages(corpus: str, *, limit: int | None = None) -> dict[str, str]:
    """Document id -> title for every document of ``corpus`` (``limit``: the built-in corpus's first N)."""
    if corpus == BUILTIN_CORPUS:
        return {doc.id: doc.title for doc in itertools.islice(load_builtin_corpus(), limit)}
    index = LexicalIndex(corpus)
    if not index.exists():
        raise InputError(f"corpus '{corpus}' has no full-text index in this data folder: index it first "
                         f"(factdebate index PATH --corpus {corpus})")
    pages: dict[str, str] = {}
    for passage_id, title in _walk(index):
        pages.setdefault(document_id(passage_id), title)
    return pages


def _walk(index: LexicalIndex) -> Iterator[tuple[str, str]]:
    parts = index.parts()
    if parts is not None:
        for part in parts:
            if part.exists():
                yield from _walk(part)
        return
    tantivy = _tantivy()
    searcher = index._index().searcher()
    # One search for every passage: paging with an offset would re-rank all earlier pages on each page.
    found = searcher.search(tantivy.Query.all_query(), limit=max(1, searcher.num_docs), count=False)
    for _score, address in found.hits:
        stored = searcher.doc(address)
        yield stored.get_first("id") or "", stored.get_first("title") or ""
