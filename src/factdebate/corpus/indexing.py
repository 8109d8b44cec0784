"""Build the search indexes of a corpus: passages into tantivy (``local``) and Milvus (``rag``).

Embedding is the slow part (about 26 passages/s on two CPU cores: some 6.5 minutes for the builtin
corpus), so it runs once, shows progress, and persists. Both engines skip passages they already hold,
so an interrupted build resumes where it stopped. A small marker file records finished builds, which
lets :func:`ensure_builtin_indexed` answer "already done" without touching the embedding model.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from factdebate.corpus.builtin import BUILTIN_CORPUS, load_builtin_corpus
from factdebate.corpus.chunking import DEFAULT_MAX_WORDS, DEFAULT_OVERLAP, chunk_document
from factdebate.embeddings import Embedder
from factdebate.errors import ConfigError
from factdebate.paths import data_dir
from factdebate.tools.lexical import LexicalIndex
from factdebate.tools.rag import MilvusStore, default_milvus_uri
from factdebate.types import Document

ENGINES = ("rag", "local")
_MARKER_FILE = "indexed.json"
_marker_lock = threading.Lock()


@dataclass
class IndexStats:
    corpus: str
    documents: int
    chunks: int
    added_dense: int
    added_lexical: int
    seconds: float
    passages_per_second: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f} passages/s" if speed else "… passages/s", style="progress.data.speed")


def _marker_key(engine: str, corpus: str, milvus_uri: str) -> str:
    # Lexical indexes live in data_dir; a vector collection depends on which Milvus holds it.
    return f"local:{corpus}" if engine == "local" else f"rag:{corpus}:{milvus_uri}"


def _read_markers() -> dict[str, Any]:
    try:
        data = json.loads((data_dir() / _MARKER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_marker(key: str, record: dict[str, Any]) -> None:
    with _marker_lock:
        markers = _read_markers()
        markers[key] = record
        path = data_dir() / _MARKER_FILE
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(markers, indent=2, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)  # atomic: a crash never leaves a half-written marker


def _chunk_all(docs: Iterable[Document], max_words: int, overlap: int) -> tuple[int, list[Document]]:
    """All passages in memory: the progress bar needs a total, and corpora here are modest."""
    count = 0
    chunks: list[Document] = []
    for doc in docs:
        count += 1
        chunks.extend(chunk_document(doc, max_words, overlap))
    return count, chunks


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
) -> IndexStats:
    """Chunk ``docs`` and add the passages to each engine; re-running adds only what is missing."""
    engines = tuple(engines)
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        raise ConfigError(f"unknown search engine(s) {', '.join(unknown)}; expected rag and/or local")
    uri = milvus_uri or default_milvus_uri()
    started = time.perf_counter()
    documents, chunks = _chunk_all(docs, max_words, overlap)
    added_dense = added_lexical = 0
    console = Console(stderr=True)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not progress) as bar:
        if "local" in engines:
            lexical = LexicalIndex(corpus)
            if rebuild:
                lexical.drop()
            task = bar.add_task(f"{corpus}: BM25 index", total=len(chunks))
            added_lexical = lexical.add(chunks)
            bar.update(task, completed=len(chunks))
            _write_marker(
                _marker_key("local", corpus, uri),
                {"documents": documents, "chunks": len(chunks), "entries": lexical.count(), "at": time.time()},
            )
        if "rag" in engines:
            store = MilvusStore(corpus, uri, embedder)
            if rebuild:
                store.drop()
            task = bar.add_task(f"{corpus}: embeddings", total=len(chunks))
            added_dense = store.add(chunks, batch_size, on_batch=lambda n: bar.advance(task, n))
            if added_dense:
                bar.console.print(f"[dim]{corpus}: building the vector index…[/dim]", highlight=False)
                store.finalize()
            _write_marker(
                _marker_key("rag", corpus, uri),
                {"documents": documents, "chunks": len(chunks), "entries": store.count(), "at": time.time()},
            )
    seconds = time.perf_counter() - started
    return IndexStats(
        corpus=corpus,
        documents=documents,
        chunks=len(chunks),
        added_dense=added_dense,
        added_lexical=added_lexical,
        seconds=round(seconds, 3),
        passages_per_second=round(len(chunks) / seconds, 2) if seconds > 0 else 0.0,
    )


def _is_indexed(engine: str, corpus: str, uri: str) -> bool:
    """Cheap check: a finished-build marker plus the index actually being there."""
    marker = _read_markers().get(_marker_key(engine, corpus, uri))
    if not isinstance(marker, dict) or not marker.get("chunks"):
        return False
    if engine == "local":
        index = LexicalIndex(corpus)
        return index.exists() and index.count() >= int(marker["chunks"])
    return MilvusStore(corpus, uri).exists()


@contextlib.contextmanager
def _build_lock(name: str) -> Iterator[None]:
    """Serialise builds across processes (two servers starting at once would embed everything twice)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the per-engine idempotence still prevents duplicates
        yield
        return
    with (data_dir() / f".{name}.lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure_builtin_indexed(
    milvus_uri: str | None = None, progress: bool = True, engines: Iterable[str] = ENGINES
) -> IndexStats | None:
    """Index the builtin Wikipedia corpus for the engines that lack it; ``None`` when nothing was needed."""
    uri = milvus_uri or default_milvus_uri()
    engines = tuple(engines)
    if all(_is_indexed(e, BUILTIN_CORPUS, uri) for e in engines):
        return None
    with _build_lock(f"build-{BUILTIN_CORPUS}"):
        missing = [e for e in engines if not _is_indexed(e, BUILTIN_CORPUS, uri)]  # another process may be done
        if not missing:
            return None
        return index_corpus(load_builtin_corpus(), BUILTIN_CORPUS, milvus_uri=uri, engines=missing, progress=progress)


def corpus_status(corpus: str = BUILTIN_CORPUS, milvus_uri: str | None = None) -> dict[str, Any]:
    """What ``doctor`` shows: for each engine, whether the index exists and how many passages it holds;
    ``ready`` when both engines hold passages."""
    uri = milvus_uri or default_milvus_uri()
    markers = _read_markers()
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
    local["marker"] = markers.get(_marker_key("local", corpus, uri))
    rag["marker"] = markers.get(_marker_key("rag", corpus, uri))
    ready = all(engine["exists"] and engine["entries"] for engine in (local, rag))
    return {"corpus": corpus, "ready": ready, "local": local, "rag": rag}
