"""A worker's private, read-only copy of a Milvus Lite database.

Milvus Lite serves one process per folder, so each worker searches a frozen copy of its own, deleted when it
exits; a Milvus server needs none."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING

from factdebate.core.errors import IndexError_
from factdebate.corpus.lite_private import private_copy as corpus_private_copy

if TYPE_CHECKING:
    from factdebate.settings.model import Settings
    from factdebate.tools.base import Tool


def private_copy(source: str) -> str:
    """The path of this process's copy of the Milvus Lite folder ``source`` (made on first call)."""
    if not Path(source).exists():
        raise IndexError_(
            f"the Milvus Lite database {source} does not exist on Ray node {socket.gethostname()}: workers on "
            "other machines need the data directory at the same path, or a Milvus server (--milvus-uri "
            "http://host:19530)")
    return corpus_private_copy(source)


def copied_rag_tool(settings: Settings) -> Tool | None:
    """The ``rag`` tool on this process's copy when the settings name a Milvus Lite database, else None."""
    from factdebate.corpus.milvus import default_milvus_uri, is_lite_uri
    from factdebate.tools.rag import RagTool

    source = settings.retrieval.milvus_uri or default_milvus_uri()
    if not is_lite_uri(source):
        return None
    return RagTool(corpus=settings.retrieval.corpus, milvus_uri=private_copy(source),
                   encoder=settings.retrieval.encoder)


def close_lite_clients() -> None:
    """Building the index here left Milvus Lite open; close it so the folder is complete before workers copy."""
    from factdebate.corpus import milvus as rag

    with rag._lock:
        for uri in [u for u in rag._clients if rag.is_lite_uri(u)]:
            client = rag._clients.pop(uri)
            rag._loaded.difference_update({key for key in rag._loaded if key[0] == uri})
            close = getattr(client, "close", None)
            if close is not None:
                close()
