"""Dataset-provided evidence as a retrieval tool (``retrieval.evidence``: given, retrieved, both).

The runner puts a sample's own evidence in the claim's context (core/claim_context.py); this tool serves every
passage, or the ``k`` closest to the query. With ``both`` the given passages come first, then the engine's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from factdebate.core.claim_context import current_evidence, given_evidence
from factdebate.core.types import Document
from factdebate.embeddings import TextEncoder
from factdebate.tools.base import Tool

# Evidence that came with a claim (a dataset's or a caller's) is part of the claim's context, set around
# that claim's run and read by the `given` tool the method builds, which takes only a query.
__all__ = ["current_evidence", "documents_from", "evidence_block", "given_evidence", "top_k",
           "with_given_evidence"]


def documents_from(items: Sequence[Any], *, prefix: str = "given") -> list[Document]:
    """Evidence as loaders store it (dicts with text/title/source, or plain strings) -> documents."""
    docs = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, Document):
            docs.append(item)
        elif isinstance(item, str) and item.strip():
            docs.append(Document(id=f"{prefix}-{number}", title=f"given evidence {number}", text=item.strip(),
                                 source="dataset"))
        elif isinstance(item, dict) and str(item.get("text", "")).strip():
            docs.append(Document(id=str(item.get("id") or f"{prefix}-{number}"),
                                 title=str(item.get("title") or f"given evidence {number}"),
                                 text=str(item["text"]).strip(), source=str(item.get("source") or "dataset")))
    return docs


async def top_k(query: str, documents: list[Document], k: int, encoder: TextEncoder) -> list[Document]:
    """All of them when they fit; else the ``k`` most similar to ``query``, best first, scored."""
    if len(documents) <= k:
        return list(documents)
    import numpy as np  # here: every command imports this module, few of them rank given evidence

    vectors = await encoder.aencode([query, *(d.text for d in documents)])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit = vectors / norms
    scores = unit[1:] @ unit[0]
    order = np.argsort(-scores, kind="stable")[:k]
    return [documents[i].model_copy(update={"score": float(scores[i])}) for i in order]


class GivenEvidenceTool:
    """``inner`` None: the sample's evidence only (``given``); else the evidence, then ``inner``'s results
    (``both``). Without evidence for this claim, ``given`` finds nothing and ``both`` is ``inner`` alone."""

    def __init__(self, kind: str, encoder: Callable[[], TextEncoder], inner: Tool | None = None) -> None:
        self.kind = kind
        self.inner = inner
        self._encoder = encoder
        self.name = "given" if inner is None else f"given+{inner.name}"

    async def search(self, query: str, k: int) -> list[Document]:
        evidence = current_evidence() or []
        found = await top_k(query, evidence, k, self._encoder()) if evidence else []
        if self.inner is not None:
            seen = {d.text for d in found}
            found += [d for d in await self.inner.search(query, k) if d.text not in seen]
        return found


def with_given_evidence(mode: str, factory: Callable[[str], Tool],
                        encoder: Callable[[], TextEncoder]) -> Callable[[str], Tool]:
    """The tool factory for ``retrieval.evidence``: no engine for ``given``, the engine after it for ``both``."""
    if mode == "retrieved":
        return factory
    if mode == "given":
        return lambda kind: GivenEvidenceTool(kind, encoder)
    return lambda kind: GivenEvidenceTool(kind, encoder, factory(kind))


def evidence_block(documents: Sequence[Document], max_chars: int) -> str:
    """The evidence as text appended to the claim, for methods that search nothing."""
    lines = [f"[{i}] {d.title}: {d.text[:max_chars]}" for i, d in enumerate(documents, start=1)]
    return "\n\nEvidence provided with the claim:\n" + "\n".join(lines)
