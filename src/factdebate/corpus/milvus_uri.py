"""What kind of Milvus a URI names, without importing the Milvus client: the index markers need it, and
``corpus.milvus`` imports the markers."""

from __future__ import annotations


def is_lite_uri(uri: str) -> bool:
    """A Milvus Lite file (a path), not a server (``http(s)://``, ``tcp://``, ``unix:``)."""
    return not uri.startswith(("http://", "https://", "tcp://", "unix:"))
