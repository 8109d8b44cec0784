"""``madke``: knowledge-enhanced debate after Wang et al. (MADKE, 2025): one fixed evidence pool, retrieved with
the claim before the debate; two debaters until they agree, else a judge after ``rounds``. Tool-MAD's structure
without its adaptive parts (docs/methods/madke.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from factdebate.core.deviations import Deviation
from factdebate.core.events import BaseEvent, DocRef, doc_refs
from factdebate.core.fields import offered
from factdebate.core.runtime import emit, span
from factdebate.core.types import Document, Round, Turn, Verdict
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.baselines.utils import evidence_pool
from factdebate.methods.kit.paper_setup import guide_labels, notes_numbers, number_notes, toolmad_backbone
from factdebate.methods.kit.sources import homogeneous_deviation, rag_corpus_deviation, search_engine_deviation
from factdebate.methods.kit.subject import names_subject
from factdebate.methods.kit.turns import answer_turn, end_round, finish, judge
from factdebate.methods.resources import Resources
from factdebate.prompts import render
from factdebate.tools.registry import RetrievalTool
from factdebate.util.tasks import gather_all  # a failed part cancels its siblings

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

DEBATERS = ("debater-1", "debater-2")


class EvidencePool(BaseEvent):
    """The pool every debater reads, retrieved once before the debate (MADKE's own event)."""

    event: Literal["evidence_pool"] = "evidence_pool"
    documents: list[DocRef] = Field(default_factory=list)


class MADKESettings(MethodSettings):
    rounds: int = Field(
        title="Debate rounds", default=3, ge=1, le=10, json_schema_extra=offered(group="rounds", main=True),
        description="MADKE debate rounds before the judge.")
    tools: list[RetrievalTool] = Field(
        title="Evidence tools", default_factory=lambda: ["rag", "search"],
        json_schema_extra=offered(group="evidence", main=True),
        description="Tools that fill the shared evidence pool: rag, search, mcp:<server>/<tool>.")
    # The offline model calls a date the documents give otherwise NOT ENOUGH INFO or SUPPORTS, as in Tool-MAD's
    # debates (benchmarks/decisions/label_guide.md): the same two sentences, on the same models.
    label_guide: bool | None = Field(
        title="Say what the labels mean", default=None, json_schema_extra=offered(group="scoring"),
        description="Two sentences before the debaters' and the judge's verdicts, where a document of the pool "
                    "names the claim's subject: first say what the documents state about it, then whether it "
                    "matches; another value makes the claim "
                    "REFUTES, and NOT ENOUGH INFO is for documents silent on it. Unset: on for an in-process GGUF "
                    "model other than the embedded SmolLM2, off for a served model. On is declared.")


def _desc(name: str) -> str:
    return f"debater #{name.rsplit('-', 1)[-1]}"


def history_text(rounds: list[Round]) -> str:
    parts: list[str] = []
    for rnd in rounds:
        parts.append(f"Round {rnd.round}:")
        parts.extend(f"- {_desc(t.agent)}: " + " ".join(t.response.split()) for t in rnd.turns)
    return "\n".join(parts)


@register
class MADKE(Method[MADKESettings]):
    name = "madke"
    description = ("MADKE: two debaters share one evidence pool retrieved before the debate (never "
                   "updated); consensus or a judge")
    settings_model = MADKESettings
    roles = ("debater", "judge")
    # --mad-rounds used to set the rounds of MAD and MADKE alike; it still does.
    option_aliases: ClassVar[dict[str, tuple[str, ...]]] = {"rounds": ("mad_rounds",)}
    events = (EvidencePool,)
    call_probe = CallProbe(dissenters=("debater-2",))

    def tools(self, settings: RunSettings) -> set[str]:
        return set(self.cfg(settings).tools)

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        return len(DEBATERS), 2 * len(DEBATERS) * self.cfg(settings).rounds + 2

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        # The Tool-MAD paper ran MADKE on its backbones; it does not say what filled the pool, so the pool is
        # filled with Tool-MAD's own tools (a Wikipedia index and the live web), and each entry says both.
        tools = list(self.cfg(settings).tools)
        silent = "the Tool-MAD paper does not say where MADKE's pool comes from; taken here: Tool-MAD's own tools"
        return (toolmad_backbone(settings)
                + homogeneous_deviation(tools, settings, paper=f"{silent}, which read two sources (a Wikipedia "
                                        "vector index and the live web)")
                + search_engine_deviation(tools, settings, paper_engine="tavily", who="the evidence pool's searches",
                                          paper=f"{silent}, whose search reads the live web (Tavily)")
                + rag_corpus_deviation(tools, settings, paper=f"{silent}, whose RAG module reads a Milvus vector "
                                       "index of Wikipedia")
                + number_notes(settings)
                + ([Deviation(key="label_guide", paper="the MADKE prompts the Tool-MAD paper ran name the labels "
                              "without saying what tells REFUTES from NOT ENOUGH INFO",
                              here="where a document of the pool names the claim's subject, the debaters' and the "
                                   "judge's prompts ask them to say first what the documents state about it and "
                                   "whether it matches: another value refutes the claim (on for an in-process GGUF "
                                   "model)",
                              restore="methods.madke.label_guide: false in the config")]
                   if guide_labels(self.cfg(settings).label_guide, settings) else []))

    async def run(self, claim: str, resources: Resources) -> Verdict:
        settings, cfg = resources.settings, self.cfg(resources.settings)
        pool = await evidence_pool(resources, list(cfg.tools), claim, agent="pool")
        emit(EvidencePool(documents=doc_refs(pool)))
        rounds: list[Round] = []
        for r in range(1, cfg.rounds + 1):
            previous = rounds[-1].turns if rounds else None
            with span(f"round {r}", "round", round=r):
                turns = await gather_all(*(self._turn(i, claim, pool, previous, r, resources)
                                               for i in range(len(DEBATERS))))
            rounds.append(Round(round=r, turns=list(turns)))
            labels = {t.label for t in turns}
            agreed = None not in labels and len(labels) == 1
            end_round(rounds[-1], consensus=agreed, final=agreed or r == cfg.rounds)
            if agreed:
                return finish(claim, self.name, turns[0].label, "consensus", rounds)
        prompt = render("madke_judge", claim=claim, documents=pool, history=history_text(rounds),
                        number_notes=notes_numbers(settings),
                        label_guide=guide_labels(cfg.label_guide, settings) and names_subject(claim, pool))
        decision = await judge(resources.judge, prompt, round=len(rounds) + 1,
                               temperature=settings.llm.temperature)
        return finish(claim, self.name, decision.vote, "judge", rounds, [decision])

    async def _turn(self, index: int, claim: str, pool: list[Document], previous: list[Turn] | None, r: int,
                    resources: Resources) -> Turn:
        name = DEBATERS[index]
        others = [] if previous is None else [
            {"desc": _desc(t.agent), "response": t.response} for t in previous if t.agent != name]
        prompt = render("madke_answer", agent_desc=_desc(name), claim=claim, others=others, documents=pool,
                        number_notes=notes_numbers(resources.settings),
                        label_guide=guide_labels(self.cfg(resources.settings).label_guide, resources.settings)
                        and names_subject(claim, pool))
        # The pool is stored once, on the round-1 turns; later rounds read the same documents.
        return await answer_turn(resources.debater, prompt, agent=name, round=r, tool="pool",
                                 query=claim if r == 1 else None, evidence=pool if r == 1 else [],
                                 temperature=resources.settings.llm.temperature)
