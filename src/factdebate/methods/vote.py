"""``vote``: majority of independent answers at Tool-MAD's LLM-call budget ("Debate or Vote", 2025).

The voters take turns over Tool-MAD's agent kinds (rag, search, none), each reads the documents its tool
found for the claim (one search per tool, shared by the voters of that kind) and answers alone, sampled at
``baselines.vote_temperature``. The most frequent parsed label wins. See docs/methods/vote.md.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from factdebate.methods.base import Resources, register
from factdebate.methods.baseline_utils import evidence_pool, finish, toolmad_max_calls
from factdebate.methods.common import labelled_answer
from factdebate.prompts import render
from factdebate.types import Document, JudgeDecision, Label, Round, Turn, Verdict


def majority(labels: list[Label | None]) -> tuple[Label | None, str]:
    """The most frequent label among the parsed ones. A tie goes to the tied label that was voted first —
    an explicit, recorded rule (the tally says so), never a fixed fallback label."""
    counted = Counter(label for label in labels if label is not None)
    unparsed = sum(label is None for label in labels)
    tally = ", ".join(f"{label.value} {n}" for label, n in counted.most_common())
    tally = f"votes: {tally or 'none parsed'}" + (f"; unparsed {unparsed}" if unparsed else "")
    if not counted:
        return None, tally
    top = max(counted.values())
    tied = [label for label, n in counted.items() if n == top]
    winner = next(label for label in labels if label in tied)
    if len(tied) > 1:
        tally += f"; tie between {', '.join(t.value for t in tied)} broken by the earliest vote"
    return winner, tally


@register("vote", "Majority vote of independent single-agent answers at Tool-MAD's LLM-call budget")
class Vote:
    name = "vote"

    async def run(self, claim: str, resources: Resources) -> Verdict:
        settings = resources.settings
        n = settings.baselines.vote_samples or toolmad_max_calls(settings)
        kinds = list(settings.toolmad.agents)
        evidence: dict[str, list[Document]] = {}
        for kind in dict.fromkeys(kinds):
            evidence[kind] = [] if kind == "none" else await evidence_pool(resources, [kind], claim, agent=kind)
        voters = [(i + 1, kinds[i % len(kinds)]) for i in range(n)]
        first_of_kind = {kind: next(number for number, k in voters if k == kind) for kind in set(kinds)
                         if any(k == kind for _, k in voters)}
        turns = await asyncio.gather(*(self._vote(number, kind, claim, evidence[kind], resources,
                                                  keep_evidence=first_of_kind[kind] == number)
                                       for number, kind in voters))
        label, tally = majority([t.label for t in turns])
        judge = JudgeDecision(response=tally, label=label)
        return finish(claim, self.name, label, "consensus", [Round(round=1, turns=list(turns))], judge)

    @staticmethod
    async def _vote(number: int, kind: str, claim: str, documents: list[Document], resources: Resources, *,
                    keep_evidence: bool) -> Turn:
        # The voter number is part of the prompt so that backends with a fixed sampling seed (llama.cpp)
        # and the response cache still give each voter its own answer.
        prompt = render("vote_answer", voter=number, claim=claim, documents=documents)
        answer = await labelled_answer(resources.debater, prompt, agent=f"voter-{number}", round=1,
                                       temperature=resources.settings.baselines.vote_temperature)
        # Voters of one kind read the same documents: they are stored once, on the first of them.
        return Turn(agent=f"voter-{number}", tool=kind, query=claim if kind != "none" else None,
                    evidence=documents if keep_evidence else [], response=answer.response, label=answer.label,
                    parse_retries=answer.retries, label_constrained=answer.constrained)
