"""A worker's private, read-only copy of a Milvus Lite database.

Milvus Lite serves one process per database folder, so N Ray workers cannot search one folder together.
Each worker copies the folder once, at start, into its own temporary directory and searches only that:
the index is frozen for the run (nobody writes the copy), and the copy is deleted when the worker exits.
A Milvus server URI needs none of this: every worker connects to the server (docs/scale.md)."""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import tempfile
from pathlib import Path

from factdebate.errors import IndexError_

_copies: dict[str, str] = {}


def private_copy(source: str) -> str:
    """The path of this process's copy of the Milvus Lite folder ``source`` (made on first call)."""
    if source in _copies:
        return _copies[source]
    folder = Path(source)
    if not folder.exists():
        raise IndexError_(
            f"the Milvus Lite database {source} does not exist on Ray node {socket.gethostname()}: workers on "
            "other machines need the data directory at the same path, or a Milvus server (--milvus-uri "
            "http://host:19530)")
    target_dir = Path(tempfile.mkdtemp(prefix=f"factdebate-lite-{os.getpid()}-"))
    atexit.register(shutil.rmtree, target_dir, True)
    target = target_dir / folder.name
    if folder.is_dir():
        shutil.copytree(folder, target)
    else:
        shutil.copy2(folder, target)
    _copies[source] = str(target)
    return str(target)
