"""Index the built-in corpus on first use.

Every path that searches it calls :func:`ensure_builtin_indexed` when it builds a retrieval tool: cheap when
the indexes are there, it builds what is missing under a file lock, so two processes build it once."""

from __future__ import annotations

import contextlib
import itertools
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from factdebate.corpus.builtin import BUILTIN_CORPUS, BUILTIN_DOC_COUNT, load_builtin_corpus
from factdebate.corpus.indexing import ENGINES, IndexStats, index_corpus
from factdebate.corpus.lexical import LexicalIndex
from factdebate.corpus.markers import get_marker, marker_key
from factdebate.corpus.milvus import MilvusStore, default_milvus_uri, is_lite_uri
from factdebate.corpus.progress import raise_if_stopped, stage_reporter
from factdebate.embeddings.minilm import DEFAULT_ENCODER
from factdebate.util.paths import data_dir

LOCK_POLL_S = 0.2  # between tries for another process's build lock


def _same_build(marker: dict[str, Any], engine: str, limit: int | None, encoder: str) -> bool:
    # Markers written before encoders were recorded came from the float model.
    return marker.get("limit") == limit and (engine != "rag" or marker.get("encoder", "fp32") == encoder)


def is_indexed(engine: str, uri: str, limit: int | None, encoder: str) -> bool:
    """A finished-build marker for the same document limit and encoder, and the index actually there."""
    marker = get_marker(marker_key(engine, BUILTIN_CORPUS, uri))
    if marker is None or not marker.get("chunks") or not _same_build(marker, engine, limit, encoder):
        return False
    if engine == "local":
        index = LexicalIndex(BUILTIN_CORPUS)
        return index.exists() and index.count() >= int(marker["chunks"])
    if is_lite_uri(uri):
        # The marker is written only after the build finished; opening Milvus Lite just to look would
        # contend with the process that may be using it (Lite serves one process at a time).
        return Path(uri).exists()
    return MilvusStore(BUILTIN_CORPUS, uri).exists()


def _built_otherwise(engine: str, uri: str, limit: int | None, encoder: str) -> bool:
    marker = get_marker(marker_key(engine, BUILTIN_CORPUS, uri))
    return marker is not None and not _same_build(marker, engine, limit, encoder)


@contextlib.contextmanager
def build_lock(name: str) -> Iterator[None]:
    """Serialise builds across processes; the kernel drops the lock when a holder dies, even by kill -9."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the per-engine idempotence still prevents duplicate passages
        yield
        return
    with (data_dir() / f".{name}.lock").open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another process builds: say so, or a second run sits silent for minutes
            print(f"waiting for another factdebate process to finish its build ({name}) in {data_dir()}: "
                  "this run goes on when it is done", file=sys.stderr, flush=True)
            _wait_for(fh)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def build_lock_free(name: str = f"build-{BUILTIN_CORPUS}") -> bool:
    """Whether no process holds the build lock now (one that does is building: no second build is started)."""
    try:
        import fcntl
    except ImportError:
        return True
    with (data_dir() / f".{name}.lock").open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(fh, fcntl.LOCK_UN)
        return True


def _wait_for(fh: IO[str]) -> None:
    """Take the lock once the other process lets go, asking between tries whether this one was told to stop."""
    import fcntl

    while True:
        raise_if_stopped()
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            time.sleep(LOCK_POLL_S)


def ensure_builtin_indexed(
    milvus_uri: str | None = None,
    progress: bool = True,
    engines: Iterable[str] = ENGINES,
    limit: int | None = None,
    encoder: str = DEFAULT_ENCODER,
) -> IndexStats | None:
    """Index the builtin corpus (its first ``limit`` articles) for the engines that lack it; None if none did."""
    uri = milvus_uri or default_milvus_uri()
    engines = tuple(engines)
    if all(is_indexed(e, uri, limit, encoder) for e in engines):
        return None
    with build_lock(f"build-{BUILTIN_CORPUS}"):
        missing = [e for e in engines if not is_indexed(e, uri, limit, encoder)]  # another process may be done
        if not missing:
            return None
        rebuild = any(_built_otherwise(e, uri, limit, encoder) for e in missing)
        docs = limit if limit is not None else BUILTIN_DOC_COUNT
        with stage_reporter(progress) as report:
            # No minutes promised up front: a fixed rate said "about 4 min" for a build that took 15 on a busy
            # machine. The progress estimates the rest from the speed it measures.
            slow = ", minutes for the vectors (time left from the measured speed)" if "rag" in missing else ""
            report.note(f"indexing the built-in corpus ({docs:,} Wikipedia articles) for "
                        f"{' and '.join(missing)} search: once per data folder{slow}")
        corpus = load_builtin_corpus()
        if limit is not None:
            corpus = itertools.islice(corpus, limit)
        return index_corpus(corpus, BUILTIN_CORPUS, milvus_uri=uri, engines=missing, progress=progress,
                            rebuild=rebuild, encoder=encoder, marker_extra={"limit": limit})
