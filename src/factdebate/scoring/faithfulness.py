"""Faithfulness: the share of an answer's standalone statements that its own retrieved documents support
(RAGAS-style: one call to split the answer, one batched call to judge every statement). With
``conclusions_out`` the statements that are the answer's conclusion (scoring/conclusions.py) are not judged."""

from __future__ import annotations

from factdebate.core.parsing import parse_list, parse_verdicts
from factdebate.core.types import Document
from factdebate.llm.ask import (
    ask,
    format_reask,
    numbered_lines_grammar,
    part_chars,
    verdict_lines_grammar,
    verdict_lines_json,
)
from factdebate.llm.base import GenParams
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.scoring import ScoreResult
from factdebate.scoring.conclusions import facts


async def faithfulness(llm: LLM, claim: str, answer: str, documents: list[Document], *, agent: str = "",
                       round: int = 0, max_doc_chars: int = 1200, max_statements: int = 12,
                       conclusions_out: bool = False) -> ScoreResult:
    if not documents:
        return ScoreResult(None, "no retrieved documents to check the answer against")
    if not answer.strip():
        return ScoreResult(None, "empty answer")
    prompt = render("faithfulness_statements", claim=claim, answer=answer)
    statements = (await ask(
        llm, prompt, lambda t: parse_list(t, max_items=max_statements) or None, what="statements",
        params=GenParams(temperature=0.0, max_tokens=320), problem="no numbered statements were found",
        reask=format_reask(320, numbered_lines_grammar(3, f'[^\\n]{{1,{part_chars(320, 3, 11)}}}')), agent=agent,
        round=round)).value
    if not statements:
        return ScoreResult(None, "could not split the answer into statements")
    left_out: list[str] = []
    if conclusions_out:
        statements, left_out = facts(statements, claim)
    kept = {"left_out": left_out} if conclusions_out else {}
    docs = [d.model_copy(update={"text": d.text[:max_doc_chars]}) for d in documents]
    prompt = render("faithfulness_verdicts", documents=docs, statements=statements)
    # The prompt asks for the verdict lines alone: held to them from the first ask, by the grammar where the
    # backend has grammars ("1: yes" is about five tokens) or by its JSON twin on schema-only servers
    # ('"statement_1": "yes"' about eight), so the cap leaves room either way.
    max_tokens = 16 * len(statements) + 16
    lines = verdict_lines_grammar(len(statements))
    schema, template = verdict_lines_json(len(statements))
    verdicts = (await ask(
        llm, prompt, lambda t: parse_verdicts(t, len(statements)), what="statement_verdicts",
        params=GenParams(temperature=0.0, max_tokens=max_tokens, grammar=lines, json_schema=schema,
                         json_template=template),
        problem=f"expected {len(statements)} lines like '1: yes' or '1: no'",
        reask=format_reask(max_tokens, lines, (schema, template)), agent=agent, round=round)).value
    if verdicts is None:
        return ScoreResult(None, "could not read a yes/no judgement for every statement",
                           {"statements": statements, **kept})
    return ScoreResult(sum(verdicts) / len(verdicts), None,
                       {"statements": statements, "supported": verdicts, **kept})
