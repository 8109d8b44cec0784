"""Answer relevance: generate n questions the answer would reply to and average their cosine similarity
to the claim. Unlike RAGAS we do not zero "noncommittal" answers: Tool-MAD's formula has no such factor,
and NOT ENOUGH INFO is a legitimate verdict here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.parsing import parse_list
from factdebate.embeddings import TextEncoder
from factdebate.llm.ask import ask, format_reask, numbered_lines_grammar, part_chars
from factdebate.llm.base import GenParams
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.scoring import ScoreResult

if TYPE_CHECKING:
    import numpy as np


def mean_cosine(anchor: np.ndarray, others: np.ndarray) -> float:
    import numpy as np  # here: every command imports this module (Tool-MAD's method), few of them score

    anchor = anchor / (np.linalg.norm(anchor) or 1.0)
    norms = np.linalg.norm(others, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return float(np.mean((others / norms) @ anchor))


async def answer_relevance(llm: LLM, encoder: TextEncoder, claim: str, answer: str, *, n: int = 3,
                           agent: str = "", round: int = 0) -> ScoreResult:
    if not answer.strip():
        return ScoreResult(None, "empty answer")
    prompt = render("relevance_questions", answer=answer, n=n)
    max_tokens = 48 * n + 16
    question = part_chars(max_tokens, n, 5 * n)  # the longest question that lets n close within the cap
    questions = (await ask(
        llm, prompt, lambda t: parse_list(t, max_items=n) or None, what="questions",
        params=GenParams(temperature=0.0, max_tokens=max_tokens), problem="no numbered questions were found",
        reask=format_reask(max_tokens, numbered_lines_grammar(n, f'[^\\n?]{{1,{question}}} "?"')), agent=agent,
        round=round)).value
    if not questions:
        return ScoreResult(None, "could not read any generated question")
    vectors = await encoder.aencode([claim, *questions])
    return ScoreResult(max(0.0, mean_cosine(vectors[0], vectors[1:])), None, {"questions": questions})
