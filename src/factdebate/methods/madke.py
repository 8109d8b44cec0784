"""``madke``: knowledge-enhanced debate after Wang et al. (MADKE, Neurocomputing 2025): evidence is retrieved
once, before the debate, with the claim as the query, and every debater reads that same fixed pool in every
round.

Two debaters answer independently in round 1 and see each other's previous answer afterwards; the debate
stops when they agree, otherwise a judge decides after ``baselines.mad_rounds`` rounds. No query rewriting
and no scoring: this is Tool-MAD's structure with its adaptive parts removed. See docs/methods/madke.md.
"""

from __future__ import annotations

import asyncio

from factdebate.methods.base import Resources, register
from factdebate.methods.baseline_utils import evidence_pool, finish
from factdebate.methods.common import labelled_answer
from factdebate.prompts import render
from factdebate.runtime import emit
from factdebate.types import Document, JudgeDecision, Round, Turn, Verdict

DEBATERS = ("debater-1", "debater-2")


def _desc(name: str) -> str:
    return f"debater #{name.rsplit('-', 1)[-1]}"


def history_text(rounds: list[Round]) -> str:
    parts: list[str] = []
    for rnd in rounds:
        parts.append(f"Round {rnd.round}:")
        parts.extend(f"- {_desc(t.agent)}: " + " ".join(t.response.split()) for t in rnd.turns)
    return "\n".join(parts)


@register("madke", "MADKE: two debaters share one evidence pool retrieved before the debate (never "
                   "updated); consensus or a judge")
class MADKE:
    name = "madke"

    async def run(self, claim: str, resources: Resources) -> Verdict:
        settings = resources.settings
        pool = await evidence_pool(resources, list(settings.baselines.madke_tools), claim, agent="pool")
        emit("evidence_pool", documents=[{"id": d.id, "title": d.title, "source": d.source} for d in pool])
        rounds: list[Round] = []
        for r in range(1, settings.baselines.mad_rounds + 1):
            previous = rounds[-1].turns if rounds else None
            turns = await asyncio.gather(*(self._turn(i, claim, pool, previous, r, resources)
                                           for i in range(len(DEBATERS))))
            rounds.append(Round(round=r, turns=list(turns)))
            labels = {t.label for t in turns}
            emit("round", round=r, labels=[t.label for t in turns])
            if None not in labels and len(labels) == 1:
                return finish(claim, self.name, turns[0].label, "consensus", rounds)
        prompt = render("madke_judge", claim=claim, documents=pool, history=history_text(rounds))
        answer = await labelled_answer(resources.judge, prompt, agent="judge", round=len(rounds) + 1,
                                       temperature=settings.llm.temperature)
        judge = JudgeDecision(response=answer.response, label=answer.label, parse_retries=answer.retries,
                             label_constrained=answer.constrained)
        return finish(claim, self.name, answer.label, "judge", rounds, judge)

    async def _turn(self, index: int, claim: str, pool: list[Document], previous: list[Turn] | None, r: int,
                    resources: Resources) -> Turn:
        name = DEBATERS[index]
        others = [] if previous is None else [
            {"desc": _desc(t.agent), "response": t.response} for t in previous if t.agent != name]
        prompt = render("madke_answer", agent_desc=_desc(name), claim=claim, others=others, documents=pool)
        answer = await labelled_answer(resources.debater, prompt, agent=name, round=r,
                                       temperature=resources.settings.llm.temperature)
        # The pool is stored once, on the round-1 turns; later rounds read the same documents.
        return Turn(agent=name, tool="pool", query=claim if r == 1 else None,
                    evidence=pool if r == 1 else [], response=answer.response, label=answer.label,
                    parse_retries=answer.retries, label_constrained=answer.constrained)
