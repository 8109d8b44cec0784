"""Small pieces the baseline methods (cot, single, react, mad, madke, vote) share: building the verdict,
retrieving a fixed evidence pool, and the LLM-call budget of a Tool-MAD debate that ``vote`` matches."""

from __future__ import annotations

from factdebate.config import Settings
from factdebate.methods.base import Resources
from factdebate.methods.common import search_tool, trim
from factdebate.runtime import emit
from factdebate.types import Document, JudgeDecision, Label, Round, Verdict


def finish(claim: str, method: str, label: Label | None, decided_by: str, rounds: list[Round],
           judge: JudgeDecision | None = None, *, unparsed_turns: int | None = None) -> Verdict:
    """A verdict whose label is ``None`` is always marked ``unparsed``: nothing here picks a label for it.
    ``unparsed_turns`` defaults to the turns without a label; methods whose turns carry no label by design
    (a search step, a moderator with no preference) count their own."""
    unparsed = sum(t.label is None for r in rounds for t in r.turns) if unparsed_turns is None else unparsed_turns
    verdict = Verdict(claim=claim, method=method, label=label,
                      decided_by=decided_by if label is not None else "unparsed",  # type: ignore[arg-type]
                      rounds=rounds, judge=judge, unparsed_turns=unparsed)
    emit("verdict", label=label, decided_by=verdict.decided_by)
    return verdict


async def evidence_pool(resources: Resources, kinds: list[str], query: str, *, agent: str,
                        round: int = 0) -> list[Document]:
    """One search per tool kind with the same query, duplicates (same id) dropped, order kept."""
    cfg = resources.settings.toolmad
    pool: list[Document] = []
    seen: set[str] = set()
    for kind in kinds:
        documents = await search_tool(resources.tool(kind), query, cfg.k, agent=agent, round=round)
        for doc in trim(documents, cfg.max_doc_chars):
            if doc.id not in seen:
                seen.add(doc.id)
                pool.append(doc)
    return pool


def toolmad_max_calls(settings: Settings) -> int:
    """The most LLM calls one Tool-MAD debate can make with these settings, re-asks not counted: per agent
    and round one answer, one query rewrite from round 2 on (agents with a tool, query formulation on) and
    the scorer calls (two for faithfulness when the agent has documents, one for answer relevance), plus the
    judge."""
    cfg = settings.toolmad
    total = 1  # judge
    for kind in cfg.agents:
        has_tool = kind != "none"
        scoring = 0
        if cfg.scoring and cfg.scoring_variant == "stability":
            scoring = 1 + (2 if has_tool else 0)
        for r in range(1, cfg.rounds + 1):
            total += 1 + scoring + (1 if r > 1 and has_tool and cfg.query_formulation else 0)
    return total
