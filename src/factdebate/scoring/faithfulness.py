"""Faithfulness: the share of an answer's standalone statements that its own retrieved documents support
(RAGAS-style: one call to split the answer, one batched call to judge every statement)."""

from __future__ import annotations

from factdebate.core.parsing import parse_list, parse_verdicts
from factdebate.core.types import Document
from factdebate.llm.ask import ask_parsed, numbered_lines_grammar, verdict_lines_grammar
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.scoring import ScoreResult


async def faithfulness(llm: LLM, claim: str, answer: str, documents: list[Document], *, agent: str = "",
                       round: int = 0, max_doc_chars: int = 1200, max_statements: int = 12) -> ScoreResult:
    if not documents:
        return ScoreResult(None, "no retrieved documents to check the answer against")
    if not answer.strip():
        return ScoreResult(None, "empty answer")
    prompt = render("faithfulness_statements", claim=claim, answer=answer)
    statements, _ = await ask_parsed(
        llm, prompt, lambda t: parse_list(t, max_items=max_statements) or None,
        "no numbered statements were found", agent=agent, round=round, max_tokens=320,
        reask_grammar=numbered_lines_grammar(3))
    if not statements:
        return ScoreResult(None, "could not split the answer into statements")
    docs = [d.model_copy(update={"text": d.text[:max_doc_chars]}) for d in documents]
    prompt = render("faithfulness_verdicts", documents=docs, statements=statements)
    verdicts, _ = await ask_parsed(
        llm, prompt, lambda t: parse_verdicts(t, len(statements)),
        f"expected {len(statements)} lines like '1: yes' or '1: no'", agent=agent, round=round,
        max_tokens=16 * len(statements) + 16, reask_grammar=verdict_lines_grammar(len(statements)))
    if verdicts is None:
        return ScoreResult(None, "could not read a yes/no judgement for every statement",
                           {"statements": statements})
    return ScoreResult(sum(verdicts) / len(verdicts), None,
                       {"statements": statements, "supported": verdicts})
