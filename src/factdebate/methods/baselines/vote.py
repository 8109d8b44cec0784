"""``vote``: majority of independent answers at Tool-MAD's LLM-call budget ("Debate or Vote", 2025).

The voters take turns over Tool-MAD's agent kinds, each reading its tool's one search and answering alone at
``temperature``; the most frequent parsed label wins (docs/methods/vote.md)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from pydantic import Field

from factdebate.core.deviations import Deviation
from factdebate.core.fields import offered
from factdebate.core.runtime import span
from factdebate.core.types import Document, Label, Round, Turn, Verdict
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.baselines.utils import evidence_pool
from factdebate.methods.kit.paper_setup import toolmad_backbone
from factdebate.methods.kit.sources import homogeneous_deviation, search_engine_deviation
from factdebate.methods.kit.turns import answer_turn, end_round, finish
from factdebate.methods.resources import Resources
from factdebate.methods.toolmad.method import ToolMAD, debate_calls
from factdebate.prompts import render
from factdebate.util.tasks import gather_all  # a failed part cancels its siblings

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings


class VoteSettings(MethodSettings):
    # None: as many answers as the most LLM calls one Tool-MAD debate with the current settings can make.
    samples: int | None = Field(
        title="Votes", default=None, ge=1, le=200,
        json_schema_extra=offered(operator_only=True, group="rounds", main=True),
        description="Independent answers that vote (default: Tool-MAD's LLM-call budget).")
    temperature: float = Field(
        title="Voters' temperature", default=0.7, ge=0, le=2, json_schema_extra=offered(group="agents", main=True),
        description="Sampling temperature of the voters.")


def voters(settings: RunSettings, cfg: VoteSettings) -> int:
    return cfg.samples or debate_calls(ToolMAD().cfg(settings), reasks=False)


def majority(labels: list[Label | None]) -> tuple[Label | None, str]:
    """The most frequent parsed label; a tie goes to the tied label voted first (the tally says so)."""
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


@register
class Vote(Method[VoteSettings]):
    name = "vote"
    description = "Majority vote of independent single-agent answers at Tool-MAD's LLM-call budget"
    settings_model = VoteSettings
    call_probe = CallProbe(settings={"samples": 5})

    def settings_sections(self) -> tuple[str, ...]:
        return (self.name, ToolMAD.name)  # the voters' kinds and budget are Tool-MAD's

    def tools(self, settings: RunSettings) -> set[str]:
        return ToolMAD().tools(settings)  # the voters take turns over Tool-MAD's agent kinds

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        n = voters(settings, self.cfg(settings))
        return n, 2 * n

    def tools_heterogeneous(self, settings: RunSettings) -> bool | None:
        return ToolMAD().tools_heterogeneous(settings)  # the voters read what Tool-MAD's agents read

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        """Against the Tool-MAD debate: the same backbones, evidence and LLM-call budget."""
        kinds = [str(kind) for kind in ToolMAD().cfg(settings).agents]
        found = toolmad_backbone(settings, ("debater",))
        found += homogeneous_deviation(kinds, settings, paper="the voters read what Tool-MAD's agents read: a RAG "
                                       "index and the live web (Tavily)")
        found += search_engine_deviation(kinds, settings, paper_engine="tavily", who="the voters' searches")
        budget = debate_calls(ToolMAD().cfg(settings), reasks=False)
        samples = self.cfg(settings).samples
        if samples is not None and samples != budget:
            found.append(Deviation(key="budget", paper=f"as many votes as Tool-MAD's LLM calls ({budget} here)",
                                   here=f"{samples} votes", restore="leave methods.vote.samples unset"))
        return found

    async def run(self, claim: str, resources: Resources) -> Verdict:
        settings = resources.settings
        n = voters(settings, self.cfg(settings))
        kinds = list(ToolMAD().cfg(settings).agents)
        evidence: dict[str, list[Document]] = {}
        for kind in dict.fromkeys(kinds):
            evidence[kind] = [] if kind == "none" else await evidence_pool(resources, [kind], claim, agent=kind)
        ballot = [(i + 1, kinds[i % len(kinds)]) for i in range(n)]
        first_of_kind = {kind: next(number for number, k in ballot if k == kind) for kind in set(kinds)
                         if any(k == kind for _, k in ballot)}
        with span("round 1", "round", round=1):
            turns = await gather_all(*(self._vote(number, kind, claim, evidence[kind], resources,
                                                      keep_evidence=first_of_kind[kind] == number)
                                           for number, kind in ballot))
        label, tally = majority([t.label for t in turns])
        rnd = Round(round=1, turns=list(turns))
        end_round(rnd, consensus=False, final=True)
        return finish(claim, self.name, label, "vote", [rnd], explanation=tally)

    async def _vote(self, number: int, kind: str, claim: str, documents: list[Document], resources: Resources,
                    *, keep_evidence: bool) -> Turn:
        # The voter number is part of the prompt so that backends with a fixed sampling seed (llama.cpp)
        # and the response cache still give each voter its own answer.
        prompt = render("vote_answer", voter=number, claim=claim, documents=documents)
        # Voters of one kind read the same documents: they are stored once, on the first of them.
        return await answer_turn(resources.debater, prompt, agent=f"voter-{number}", role="voter", round=1,
                                 tool=kind, query=claim if kind != "none" else None,
                                 evidence=documents if keep_evidence else [],
                                 temperature=self.cfg(resources.settings).temperature)
