"""Building and copying search indexes, for the service (see facade/__init__.py): the built-in corpus'
indexes built if missing, the builds followed, and each process' own copy of a Milvus Lite index. Apart from
facade/evidence.py because it loads the embedding model's and Milvus' code: the service imports it inside
the functions that build or open an index."""

from factdebate.corpus.builtin_index import ensure_builtin_indexed
from factdebate.corpus.progress import watch_builds
from factdebate.run.build import ensure_indexes
from factdebate.scale.lite_copy import close_lite_clients, copied_rag_tool

__all__ = ["close_lite_clients", "copied_rag_tool", "ensure_builtin_indexed", "ensure_indexes", "watch_builds"]
