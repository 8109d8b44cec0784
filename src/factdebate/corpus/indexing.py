"""Build the search indexes of a corpus: passages into tantivy (``local``) and Milvus (``rag``).

Both engines skip passages they already hold, so an interrupted build resumes; finished builds are recorded
in markers (:mod:`factdebate.corpus.markers`)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from factdebate.core.types import Document
from factdebate.corpus.builtin import BUILTIN_CORPUS
from factdebate.corpus.chunking import DEFAULT_MAX_WORDS, DEFAULT_OVERLAP, chunk_document
from factdebate.corpus.encoding_cost import encoding_costs
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.markers import clear_marker, marker_key, read_markers, set_marker
from factdebate.corpus.milvus import MilvusStore, default_milvus_uri
from factdebate.corpus.names import check_corpus_name
from factdebate.corpus.progress import raise_if_stopped, stage_reporter
from factdebate.embeddings.minilm import DEFAULT_ENCODER, Embedder
from factdebate.util.errors import ConfigError

ENGINES = ("rag", "local")


@dataclass
class IndexStats:
    corpus: str
    documents: int
    chunks: int
    added_dense: int
    added_lexical: int
    seconds: float
    passages_per_second: float
    duplicate_ids: int = 0  # documents dropped because an earlier one had the same id
    duplicate_examples: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _chunk_all(docs: Iterable[Document], max_words: int, overlap: int) -> tuple[int, list[Document], list[str]]:
    """All passages in memory (the progress needs a total), and the ids of duplicates dropped (first wins)."""
    count = 0
    chunks: list[Document] = []
    seen: set[str] = set()
    duplicates: list[str] = []
    for doc in docs:
        if doc.id in seen:
            duplicates.append(doc.id)
            continue
        seen.add(doc.id)
        count += 1
        chunks.extend(chunk_document(doc, max_words, overlap))
    return count, chunks, duplicates


def check_target(corpus: str, engines: tuple[str, ...]) -> None:
    """Known engines and a valid corpus name, said before anything is opened (in process and on Ray alike)."""
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        raise ConfigError(f"unknown search engine(s) {', '.join(unknown)}; expected rag and/or local")
    check_corpus_name(corpus)


def check_writable(corpus: str, uri: str, engines: tuple[str, ...], embedder: Embedder | None = None,
                   encoder: str = DEFAULT_ENCODER) -> None:
    """Open every engine for writing before either is written, so a locked database fails at once."""
    if "rag" in engines:
        MilvusStore(corpus, uri, embedder, encoder=encoder).check_writable()
    if "local" in engines:
        LexicalIndex(corpus).check_writable()


def index_corpus(
    docs: Iterable[Document],
    corpus: str,
    *,
    milvus_uri: str | None = None,
    engines: Iterable[str] = ENGINES,
    batch_size: int = 64,
    progress: bool = True,
    max_words: int = DEFAULT_MAX_WORDS,
    overlap: int = DEFAULT_OVERLAP,
    rebuild: bool = False,
    embedder: Embedder | None = None,
    encoder: str = DEFAULT_ENCODER,
    marker_extra: dict[str, Any] | None = None,
) -> IndexStats:
    """Chunk ``docs`` and add the passages to each engine, full text first; re-running adds only what is
    missing. ``marker_extra`` is stored in each engine's finished-build marker."""
    engines = tuple(engines)
    check_target(corpus, engines)
    uri = milvus_uri or default_milvus_uri()
    started = time.perf_counter()
    check_writable(corpus, uri, engines, embedder, encoder)
    documents, chunks, duplicates = _chunk_all(docs, max_words, overlap)
    added_dense = added_lexical = 0


    with stage_reporter(progress) as report:
        if "local" in engines:
            clear_marker(marker_key("local", corpus, uri))
            lexical = LexicalIndex(corpus)
            if rebuild:
                lexical.drop()
            report.stage(f"{corpus}: BM25 index", len(chunks))
            added_lexical = lexical.add(chunks)
            report.done()
            set_marker(marker_key("local", corpus, uri), {
                "documents": documents, "chunks": len(chunks), "entries": lexical.count(), "at": time.time(),
                **(marker_extra or {})})
            raise_if_stopped()  # an interrupt during the full-text commit (one native call) stops here
        if "rag" in engines:
            clear_marker(marker_key("rag", corpus, uri))
            store = MilvusStore(corpus, uri, embedder, encoder=encoder)
            if rebuild:
                store.drop()
            report.stage(f"{corpus}: embeddings", len(chunks), encoding_costs(chunks, batch_size))
            added_dense = store.add(chunks, batch_size, on_batch=report.advance)
            report.done()
            if added_dense:
                report.note(f"{corpus}: building the vector index…")
                store.finalize()
            set_marker(marker_key("rag", corpus, uri), {
                "documents": documents, "chunks": len(chunks), "entries": store.count(), "at": time.time(),
                "encoder": store.embedder.kind, **(marker_extra or {})})
            # An interrupt while the vector index was built (a native library's calls, which no progress step
            # interrupts) stops here: the finished index is recorded, and the run goes no further.
            raise_if_stopped()
    seconds = time.perf_counter() - started
    return IndexStats(
        corpus=corpus,
        documents=documents,
        chunks=len(chunks),
        added_dense=added_dense,
        added_lexical=added_lexical,
        seconds=round(seconds, 3),
        passages_per_second=round(len(chunks) / seconds, 2) if seconds > 0 else 0.0,
        duplicate_ids=len(duplicates),
        duplicate_examples=tuple(duplicates[:5]),
    )


def corpus_status(corpus: str = BUILTIN_CORPUS, milvus_uri: str | None = None) -> dict[str, Any]:
    """What ``doctor`` shows of each engine's index; ``ready`` when both hold passages and finished building."""
    uri = milvus_uri or default_milvus_uri()
    markers = read_markers()
    lexical = LexicalIndex(corpus)
    local: dict[str, Any] = {"path": str(lexical.path), "exists": False, "entries": None, "error": None}
    try:
        local["exists"] = lexical.exists()
        if local["exists"]:
            local["entries"] = lexical.count()
    except Exception as exc:  # a status report must describe failures, not raise them
        local["error"] = str(exc)
    store = MilvusStore(corpus, uri)
    rag: dict[str, Any] = {"uri": uri, "collection": store.collection, "exists": False, "entries": None, "error": None}
    try:
        rag["exists"] = store.exists()
        if rag["exists"]:
            rag["entries"] = store.count()
    except Exception as exc:
        rag["error"] = str(exc)
    local["marker"] = markers.get(marker_key("local", corpus, uri))
    rag["marker"] = markers.get(marker_key("rag", corpus, uri))
    ready = all(engine["exists"] and engine["entries"] and engine["marker"] for engine in (local, rag))
    return {"corpus": corpus, "ready": ready, "local": local, "rag": rag}
