"""``wecheck``: a STAND-IN for WeCheck (Wu et al., 2022), the DPD paper's non-LLM baseline.

WeCheck is a trained factual-consistency model; none ships offline, so the claim is SUPPORTS when its highest
cosine similarity (MiniLM) to one retrieved passage reaches ``threshold`` (0.5). Similarity is not entailment:
read its results as a stand-in's. No LLM call is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from factdebate.core.fields import offered
from factdebate.core.runtime import span
from factdebate.core.types import Label, Round, Turn, Verdict
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.baselines import paper_rows
from factdebate.methods.kit.common import search_tool, trim
from factdebate.methods.kit.turns import answered, end_round, finish, scored, turn_started
from factdebate.methods.resources import Resources
from factdebate.methods.view import declare_view
from factdebate.tools.registry import RetrievalTool

if TYPE_CHECKING:
    from factdebate.core.deviations import Deviation
    from factdebate.methods.settings_protocol import RunSettings

AGENT = "scorer"
SCORE = "entailment_stand_in"


class WeCheckSettings(MethodSettings):
    threshold: float = Field(
        title="Similarity threshold", default=0.5, ge=-1, le=1, json_schema_extra=offered(group="labels", main=True),
        description="Similarity at or above which the claim is SUPPORTS (WeCheck's 0.5).")
    tool: RetrievalTool = Field(
        title="Evidence source", default="search", json_schema_extra=offered(group="evidence", main=True),
        description="Where evidence comes from: search, rag, mcp:<server>/<tool>.")


@register
class WeCheck(Method[WeCheckSettings]):
    name = "wecheck"
    description = "WeCheck stand-in (no LLM): max embedding similarity of claim and evidence >= 0.5 -> SUPPORTS"
    settings_model = WeCheckSettings
    view = declare_view(decisions={"threshold": "the similarity threshold"})
    roles = ()
    call_probe = CallProbe()  # no LLM call at all: bounds (0, 0)

    def tools(self, settings: RunSettings) -> set[str]:
        return {self.cfg(settings).tool}

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        return 0, 0

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        cfg = self.cfg(settings)
        return paper_rows.wecheck(cfg.tool, settings, cfg.threshold)

    async def run(self, claim: str, resources: Resources) -> Verdict:
        cfg = self.cfg(resources.settings)
        retrieval = resources.settings.retrieval
        tool = resources.tool(cfg.tool)
        turn = Turn(agent=AGENT, role="scorer", tool=tool.name, query=claim)
        with span("round 1", "round", round=1):
            turn.evidence = trim(await search_tool(tool, claim, retrieval.k, agent=AGENT, round=1),
                                 retrieval.max_doc_chars)
            turn_started(turn, 1)
            if turn.evidence:
                import numpy as np  # here: every command imports the methods to list them (numpy is 80 ms)

                vectors = await resources.encoder.aencode([claim, *(f"{d.title}. {d.text}" for d in turn.evidence)])
                norms = np.linalg.norm(vectors, axis=1)
                norms[norms == 0] = 1.0
                best = float(max((vectors[1:] @ vectors[0]) / (norms[1:] * norms[0])))
                turn.scores[SCORE] = round(best, 4)
                turn.label = Label.SUPPORTS if best >= cfg.threshold else Label.REFUTES
                turn.response = f"highest similarity to the evidence {best:.3f} (threshold {cfg.threshold})"
            else:
                # Nothing to score against: no factual-consistency judgement is possible.
                turn.scores[SCORE] = None
                turn.score_errors.append("no evidence retrieved")
                turn.label = Label.NOT_ENOUGH_INFO
                turn.response = "no evidence was retrieved, so there is nothing to score the claim against"
            scored(turn, 1)
            answered(turn, 1)
        rnd = Round(round=1, turns=[turn])
        end_round(rnd, consensus=False, final=True)
        return finish(claim, self.name, turn.label, "threshold", [rnd], explanation=turn.response)
