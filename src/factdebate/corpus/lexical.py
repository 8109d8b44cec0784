"""Local BM25 search over a corpus with tantivy (the ``local`` tool).

The index lives at ``data_dir()/tantivy/<corpus>``, opened once per process, with tantivy's English stemmer.
Queries are reduced to plain words (claims hold query syntax). A large corpus may be split into parts
(corpus/lexical_parts.py); the class below serves both layouts."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_fixed

from factdebate.core.errors import IndexError_
from factdebate.core.types import Document
from factdebate.corpus.lexical_parts import merge_hits, part_of, read_layout, write_layout
from factdebate.corpus.ranking import search_ties_by_id
from factdebate.util.errors import MissingDependencyError
from factdebate.util.paths import data_dir

_WORD = re.compile(r"\w+")
WRITER_WAIT_S = 20.0  # how long a busy writer lock is waited for before it is reported
_indexes: dict[str, Any] = {}  # resolved path -> tantivy.Index, shared by every tool instance
_cache_lock = threading.Lock()


def _tantivy() -> Any:
    try:
        import tantivy
    except ImportError as exc:
        raise MissingDependencyError("tantivy", "retrieval") from exc
    return tantivy


def lexical_index_path(corpus: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", corpus).lstrip(".") or "corpus"
    return data_dir() / "tantivy" / safe


def _schema(tantivy: Any) -> Any:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")  # exact-match key for dedup
    builder.add_text_field("title", stored=True, tokenizer_name="en_stem")
    builder.add_text_field("text", stored=True, tokenizer_name="en_stem")
    builder.add_text_field("source", stored=True, tokenizer_name="raw")
    return builder.build()


def query_words(query: str) -> str:
    """Lower-cased words only: no field prefixes, quotes or operators (AND/OR/NOT are upper-case)."""
    return " ".join(_WORD.findall(query.lower()))


class LexicalIndex:
    """A tantivy index of passages; adding is idempotent on the passage id."""

    title_boost = 1.5  # a query word in the title is stronger evidence than one in the body

    def __init__(self, corpus: str = "builtin", path: str | Path | None = None) -> None:
        self.corpus = corpus
        self.path = Path(path) if path is not None else lexical_index_path(corpus)
        self._write_lock = threading.Lock()

    def exists(self) -> bool:
        return (self.path / "meta.json").is_file() or self.parts() is not None

    def parts(self) -> list[LexicalIndex] | None:
        """The parts of a partitioned index, or ``None`` for one index."""
        count = read_layout(self.path)
        if count is None:
            return None
        return [LexicalIndex(self.corpus, self.path / f"part-{n}") for n in range(count)]

    def partition(self, parts: int) -> None:
        """Lay the index out in ``parts`` parts before anything is added (another layout is refused)."""
        current = read_layout(self.path) or (1 if (self.path / "meta.json").is_file() else None)
        if current is None:
            if parts > 1:
                write_layout(self.path, parts)
            return
        if current != parts:
            raise IndexError_(f"the local search index of corpus '{self.corpus}' at {self.path} has {current} "
                              f"part(s), not {parts}: index with --lexical-parts {current}, or delete the folder "
                              "and index again")

    def _index(self, create: bool = False) -> Any:
        key = str(self.path.resolve())
        with _cache_lock:
            if key in _indexes:
                return _indexes[key]
            tantivy = _tantivy()
            if not self.exists():
                if not create:
                    raise IndexError_(
                        f"no local search index for corpus '{self.corpus}' at {self.path}: build it with "
                        "`factdebate index PATH` (the builtin corpus is indexed automatically on first use)"
                    )
                self.path.mkdir(parents=True, exist_ok=True)
            try:
                index = tantivy.Index(_schema(tantivy), path=str(self.path), reuse=True)
            except Exception as exc:  # tantivy reports corruption and schema mismatch as ValueError
                raise IndexError_(
                    f"the local search index at {self.path} cannot be opened ({exc}); "
                    f"delete the folder {self.path} and index the corpus again"
                ) from exc
            _indexes[key] = index
            return index

    def count(self) -> int:
        parts = self.parts()
        if parts is not None:
            return sum(part.count() for part in parts if part.exists())
        return int(self._index().searcher().num_docs)

    def check_writable(self) -> None:
        """Fails now if the index could not be written (folder not writable, writer lock held); creates nothing."""
        parts = self.parts()
        if parts is not None:
            for part in parts:
                part.check_writable()
            return
        if not self.exists():
            parent = next((p for p in (self.path, *self.path.parents) if p.exists()), None)
            if parent is None or not os.access(parent, os.W_OK | os.X_OK):
                raise IndexError_(f"cannot create the local search index at {self.path}: "
                                  f"{parent or self.path} is not writable")
            return
        index = self._index()
        with self._write_lock:
            writer = self._writer(index, heap_size=15_000_000)
            writer.rollback()
            writer.wait_merging_threads()  # drops the writer and its on-disk lock

    def _writer(self, index: Any, heap_size: int) -> Any:
        """Tantivy's writer (one per index across processes); a held lock is waited for up to
        ``WRITER_WAIT_S``, then said to be another process indexing."""
        # The policy: a busy lock is tried again every 0.5 s for WRITER_WAIT_S; any other error at once.
        retrying = Retrying(retry=retry_if_exception(lambda exc: isinstance(exc, Exception) and "LockBusy" in str(exc)),
                            stop=stop_after_delay(WRITER_WAIT_S), wait=wait_fixed(0.5), reraise=True)
        try:
            return retrying(index.writer, heap_size=heap_size)
        except Exception as exc:
            raise IndexError_(f"cannot write the local search index at {self.path} ({exc}); "
                              "is another factdebate process indexing it?") from exc

    def add(self, chunks: Iterable[Document]) -> int:
        """Add passages whose id is not in the index yet; returns how many were new."""
        parts = self.parts()
        if parts is not None:
            routed: list[list[Document]] = [[] for _ in parts]
            for chunk in chunks:
                routed[part_of(chunk.id, len(parts))].append(chunk)
            return sum(part.add(batch) for part, batch in zip(parts, routed, strict=True) if batch)
        tantivy = _tantivy()
        index = self._index(create=True)
        with self._write_lock:
            searcher = index.searcher()
            seen: set[str] = set()
            writer = self._writer(index, heap_size=64_000_000)
            added = 0
            try:
                for chunk in chunks:
                    if chunk.id in seen or searcher.doc_freq("id", chunk.id) > 0:
                        continue
                    seen.add(chunk.id)
                    writer.add_document(
                        tantivy.Document(id=chunk.id, title=chunk.title, text=chunk.text, source=chunk.source)
                    )
                    added += 1
                if added:
                    writer.commit()
                else:
                    writer.rollback()  # nothing new: skip an empty commit
            except BaseException:
                writer.rollback()  # leave the index as it was rather than half-written
                raise
            writer.wait_merging_threads()  # also drops the writer, releasing the on-disk lock
            index.reload()  # make the new passages visible to the next searcher at once
            return added

    def search_sync(self, query: str, k: int) -> list[Document]:
        words = query_words(query)
        if not words or k <= 0:
            return []
        parts = self.parts()
        if parts is not None:
            return merge_hits([part.search_sync(query, k) for part in parts if part.exists()], k)
        index = self._index()
        try:
            parsed, _errors = index.parse_query_lenient(
                words, default_field_names=["title", "text"], field_boosts={"title": self.title_boost}
            )
        except ValueError:
            return []  # nothing searchable survived parsing
        # Searcher is a cheap snapshot; taking a fresh one also sees commits made by other processes.
        searcher = index.searcher()

        def best(limit: int) -> list[Document]:
            return [_document(searcher.doc(address), float(score))
                    for score, address in searcher.search(parsed, limit=limit).hits]

        return search_ties_by_id(best, k)  # equal BM25 scores by id, not by where the writer put them

    def fetch(self, ids: list[str]) -> list[Document]:
        """The passages with these ids that the index holds (in no particular order)."""
        parts = self.parts()
        if parts is not None:
            return [doc for part in parts if part.exists() for doc in part.fetch(ids)]
        tantivy = _tantivy()
        index = self._index()
        searcher = index.searcher()
        query = tantivy.Query.term_set_query(index.schema, "id", ids)
        return [_document(searcher.doc(address)) for _score, address in searcher.search(query, limit=len(ids)).hits]

    async def search(self, query: str, k: int) -> list[Document]:
        return await asyncio.to_thread(self.search_sync, query, k)

    def drop(self) -> None:
        """Delete the index from disk (for a rebuild)."""
        root = str(self.path.resolve())
        with _cache_lock:
            for key in [key for key in _indexes if key == root or key.startswith(root + os.sep)]:
                _indexes.pop(key)
        shutil.rmtree(self.path, ignore_errors=True)


def _document(stored: Any, score: float = 0.0) -> Document:
    return Document(id=stored.get_first("id") or "", title=stored.get_first("title") or "",
                    text=stored.get_first("text") or "", source=stored.get_first("source") or "", score=score)
