"""What a claim's own retrieval was where settings do not fix it: ``run_claim`` lists ``rag_full_text`` on a
verdict whose ``rag`` search went to the full-text index (tools/rag_pending.py)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from contextvars import ContextVar

from factdebate.core.deviations import Deviation
from factdebate.util.context import bound

# The claim's record: a set shared by the claim's tasks and threads, which copy the context but not the set.
_full_text: ContextVar[set[str] | None] = ContextVar("rag_full_text", default=None)

FULL_TEXT = Deviation(
    key="rag_full_text",
    paper="the RAG agent searches a vector index (dense retrieval)",
    here="the RAG agent's searches went to the full-text (BM25) index: the built-in corpus's vector index was still "
         "being built (in the background; later claims search it once it is complete)",
    restore="retrieval.while_indexing: wait (FACTDEBATE_RETRIEVAL__WHILE_INDEXING=wait), or `factdebate index "
            "--builtin` first")


def recording_retrieval() -> AbstractContextManager[set[str]]:
    """A record, for the claim run inside, of the tools whose searches went to the full-text index."""
    record: set[str] = set()
    return bound(_full_text, record)


def searched_full_text(tool: str) -> None:
    """``tool`` searched the full-text index in place of its vectors, for the claim being run (if any)."""
    if (record := _full_text.get()) is not None:
        record.add(tool)


def retrieval_deviations(record: set[str]) -> list[Deviation]:
    return [FULL_TEXT] if record else []
