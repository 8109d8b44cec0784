"""Consistency (the earlier Tool-MAD draft): an answer's mean MiniLM cosine to its documents (the draft's
cross-encoder does not ship offline)."""

from __future__ import annotations

from factdebate.core.types import Document
from factdebate.embeddings import TextEncoder
from factdebate.scoring import ScoreResult
from factdebate.scoring.relevance import mean_cosine


async def consistency(encoder: TextEncoder, answer: str, documents: list[Document],
                      max_doc_chars: int = 1200) -> ScoreResult:
    if not documents:
        return ScoreResult(None, "no retrieved documents to compare with")
    if not answer.strip():
        return ScoreResult(None, "empty answer")
    vectors = await encoder.aencode([answer, *[f"{d.title}. {d.text[:max_doc_chars]}" for d in documents]])
    return ScoreResult(max(0.0, mean_cosine(vectors[0], vectors[1:])))
