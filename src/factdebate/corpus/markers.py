"""Finished-build markers: one JSON file in the data directory recording which indexes are complete.

A marker is cleared *before* an engine is written and set only *after* it is complete, so an interrupted build
is never reported as ready. A Milvus Lite file inside the data folder is keyed by its path within the folder,
so a folder moved or named another way is the same index."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from factdebate.corpus.milvus_uri import is_lite_uri
from factdebate.util.paths import data_dir

MARKER_FILE = "indexed.json"
_lock = threading.Lock()


def marker_key(engine: str, corpus: str, milvus_uri: str) -> str:
    # Lexical indexes live in data_dir; a vector collection depends on which Milvus holds it.
    return f"local:{corpus}" if engine == "local" else f"rag:{corpus}:{_where(milvus_uri)}"


_IN_DATA = "<data>/"  # how a key names a Lite file inside the data folder


def _where(milvus_uri: str) -> str:
    """A server's URI as given; a Lite file by its path in the data folder, else by its absolute path."""
    if not is_lite_uri(milvus_uri) or milvus_uri.startswith(_IN_DATA):
        return milvus_uri
    path = Path(milvus_uri).expanduser().resolve()
    try:
        return _IN_DATA + path.relative_to(data_dir().resolve()).as_posix()
    except ValueError:
        return str(path)


def _normalised(key: str) -> str:
    # Markers written before keys were normalised hold the URI as it was spelled (absolute or relative).
    engine, _, rest = key.partition(":")
    corpus, sep, uri = rest.partition(":")
    return marker_key(engine, corpus, uri) if engine == "rag" and sep else key


def read_markers() -> dict[str, Any]:
    try:
        data = json.loads((data_dir() / MARKER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {_normalised(key): value for key, value in data.items()} if isinstance(data, dict) else {}


def get_marker(key: str) -> dict[str, Any] | None:
    marker = read_markers().get(key)
    return marker if isinstance(marker, dict) else None


def _write(markers: dict[str, Any]) -> None:
    path = data_dir() / MARKER_FILE
    tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(markers, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)  # atomic: a crash never leaves a half-written marker file


def set_marker(key: str, record: dict[str, Any]) -> None:
    with _lock:
        markers = read_markers()
        markers[key] = record
        _write(markers)


def clear_marker(key: str) -> None:
    with _lock:
        markers = read_markers()
        if markers.pop(key, None) is not None:
            _write(markers)
