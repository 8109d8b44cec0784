"""Tool-MAD (Algorithm 1 of the journal paper): debaters with different retrieval tools, a fresh query every
round, every answer scored, early stop on a stable consensus, a judge at round T (docs/methods/tool-mad.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import mean
from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation
from factdebate.core.runtime import span
from factdebate.core.types import Document, Judgement, Round, Turn, Verdict
from factdebate.llm.ask import ask, format_reask
from factdebate.llm.base import GenParams
from factdebate.methods.base import CallProbe, Method, register
from factdebate.methods.kit.common import search_tool, trim
from factdebate.methods.kit.formats import (
    QUERY_ECHOES,
    QUERY_GRAMMAR,
    QUERY_SCHEMA,
    QUERY_TEMPLATE,
    QUERY_TOKENS,
    grounded_query,
)
from factdebate.methods.kit.paper_setup import notes_numbers
from factdebate.methods.kit.sources import heterogeneous
from factdebate.methods.kit.speculation import play_rounds, speculation_wanted
from factdebate.methods.kit.subject import names_subject
from factdebate.methods.kit.turns import answer_turn, end_round, finish, judge, scored
from factdebate.methods.resources import Resources
from factdebate.methods.toolmad import paper
from factdebate.methods.toolmad.history import format_history, score_summary
from factdebate.methods.toolmad.offline_scoring import offline_scoring_on, tuned
from factdebate.methods.toolmad.paper import label_guide_on
from factdebate.methods.toolmad.score_note import agreed, note_applies, passes, score_note
from factdebate.methods.toolmad.scripted import REPLIES
from factdebate.methods.toolmad.settings import ToolMADSettings
from factdebate.prompts import Prompt, render
from factdebate.scoring.consistency import consistency
from factdebate.scoring.faithfulness import faithfulness
from factdebate.scoring.relevance import answer_relevance
from factdebate.tools.base import Tool
from factdebate.tools.registry import agent_description
from factdebate.util.tasks import gather_all  # a failed part cancels its siblings

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings


def debate_calls(cfg: ToolMADSettings, *, reasks: bool) -> int:
    """The most LLM calls one debate can make: per agent and round an answer, a query and the scorer calls,
    plus the judge; with ``reasks`` each may be asked twice."""
    total = 1  # judge
    for kind in cfg.agents:
        has_tool = kind != "none"
        scoring = 1 + (2 if has_tool else 0) if cfg.scoring and cfg.scoring_variant == "stability" else 0
        for r in range(1, cfg.rounds + 1):
            total += 1 + scoring + (1 if has_tool and query_call(cfg, r) else 0)
    return total * (2 if reasks else 1)


def query_call(cfg: ToolMADSettings, r: int) -> bool:
    """Whether a debater with a tool asks the model for its query in round ``r``."""
    return cfg.query_formulation and (r > 1 or cfg.round1_query == "model")


def speculates(cfg: ToolMADSettings, resources: Resources) -> bool:
    return speculation_wanted(cfg.speculate, cfg.rounds, resources.settings,
                              resources.debater.backend.max_parallel, resources.debater.max_in_flight)


def ending(last: Round) -> str:
    """How the debate ended for the judge: ``disagreed``, ``unscored`` or ``low_score``."""
    labels = {turn.label for turn in last.turns}
    if None in labels or len(labels) != 1:
        return "disagreed"
    return "unscored" if any(turn.score_errors for turn in last.turns) else "low_score"


def debate_prompt(cfg: ToolMADSettings, agent_desc: str, claim: str, documents: list[Document], *,
                  label_guide: bool, number_notes: bool, others: list[dict[str, str]] | None = None,
                  note: list[dict[str, str]] | None = None) -> Prompt:
    """A debater's prompt (Fig. 5) as the debate renders it; the label guide and the number note are given
    apart so that benchmarks/label_guide.py can render one turn with each of them on and off."""
    return render("debate_answer", agent_desc=agent_desc, claim=claim, others=others or [], documents=documents,
                  answer_sentences=cfg.answer_sentences, score_note=note, label_guide=label_guide,
                  number_notes=number_notes)


@dataclass
class Agent:
    name: str
    kind: str  # rag | search | none | mcp:<server>/<tool> (tools/registry.py)
    tool: Tool | None
    desc: str
    searches: dict[str, list[Document]] = field(default_factory=dict)

    @property
    def tool_name(self) -> str:
        return self.tool.name if self.tool else "none"


def build_agents(kinds: list[str], resources: Resources) -> list[Agent]:
    agents: list[Agent] = []
    for index, kind in enumerate(kinds):
        name = kind if kinds.count(kind) == 1 else f"{kind}-{kinds[: index + 1].count(kind)}"
        desc = agent_description(kind)
        if kinds.count(kind) > 1:
            desc = f"{desc} #{kinds[: index + 1].count(kind)}"
        agents.append(Agent(name, kind, None if kind == "none" else resources.tool(kind), desc))
    return agents


@register
class ToolMAD(Method[ToolMADSettings]):
    name = "tool-mad"
    description = ("Tool-MAD: two (or three) debaters with different retrieval tools, adaptive queries, "
                   "stability-scored consensus, judge at round T")
    settings_model = ToolMADSettings
    roles = ("debater", "judge", "scorer")
    option_prefix = ""  # the default method keeps its short flags: --rounds, --agents...
    scripted_replies = REPLIES
    # An empty first answer would not be scored at all: "Hmm." is unreadable and still scored.
    call_probe = CallProbe(reasks={"query_select": "[another query]"}, unreadable={"debate_answer": "Hmm."},
                           dissenters=("search",))

    def cfg(self, settings: RunSettings) -> ToolMADSettings:
        """The settings as the debate applies them (with the offline model, its calibrated relevance
        threshold: offline_scoring.py), so every reader sees one threshold."""
        return tuned(super().cfg(settings), settings)

    def tools(self, settings: RunSettings) -> set[str]:
        return {str(kind) for kind in self.cfg(settings).agents} - {"none"}

    def tools_heterogeneous(self, settings: RunSettings) -> bool | None:
        return heterogeneous([str(kind) for kind in self.cfg(settings).agents], settings)

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        return paper.deviations(self.cfg(settings), settings)

    def most_rounds(self, settings: RunSettings) -> int | None:
        return self.cfg(settings).rounds

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        cfg = self.cfg(settings)
        # Fewest: every agent answers once and agrees; an agent whose search found nothing is not
        # checked for faithfulness, so only the relevance call is sure; a tool agent may ask for its query.
        per_agent = 1 + (1 if cfg.scoring and cfg.scoring_variant == "stability" else 0)
        queries = sum(1 for kind in cfg.agents if kind != "none") if query_call(cfg, 1) else 0
        return len(cfg.agents) * per_agent + queries, debate_calls(cfg, reasks=True)

    async def run(self, claim: str, resources: Resources) -> Verdict:
        cfg = self.cfg(resources.settings)
        agents = build_agents(list(cfg.agents), resources)
        rounds: list[Round] = []

        async def play(r: int, previous: list[Turn] | None, answered: asyncio.Future[list[Turn]],
                       confirmed: asyncio.Event) -> list[Turn]:
            return await self._round(agents, claim, r, previous, resources, answered, confirmed)

        def settle(r: int, turns: list[Turn]) -> bool:
            rounds.append(Round(round=r, turns=turns))
            agreed = self._consensus(rounds, agents, cfg)
            end_round(rounds[-1], consensus=agreed, final=agreed or r == cfg.rounds)
            return agreed

        # Round r+1 needs round r's answers only, never its scores (Algorithm 1), so its queries, searches
        # and answers may run while round r is scored; it is scored once round r did not end the debate
        # (speculation: docs/methods/tool-mad.md).
        if await play_rounds(cfg.rounds, play, settle, speculate=speculates(cfg, resources)):
            return finish(claim, self.name, rounds[-1].turns[0].label, "consensus", rounds)
        decision = await self._judge(claim, agents, rounds, resources)
        return finish(claim, self.name, decision.vote, "judge", rounds, [decision])

    async def _round(self, agents: list[Agent], claim: str, r: int, previous: list[Turn] | None,
                     resources: Resources, answered: asyncio.Future[list[Turn]] | None = None,
                     confirmed: asyncio.Event | None = None) -> list[Turn]:
        """All agents' turns of round ``r``; ``answered`` gets the answers as soon as all exist (the next
        round needs nothing else); scoring waits for ``confirmed`` (the round is needed)."""
        answers: dict[int, Turn] = {}

        def on_answer(index: int, turn: Turn) -> None:
            answers[index] = turn
            if answered is not None and len(answers) == len(agents) and not answered.done():
                answered.set_result([answers[i] for i in range(len(agents))])

        with span(f"round {r}", "round", round=r):
            return list(await gather_all(
                *(self._turn(a, i, agents, claim, r, previous, resources, on_answer, confirmed)
                  for i, a in enumerate(agents))))

    async def _turn(self, agent: Agent, index: int, agents: list[Agent], claim: str, r: int,
                    previous: list[Turn] | None, resources: Resources,
                    on_answer: Callable[[int, Turn], None] | None = None,
                    confirmed: asyncio.Event | None = None) -> Turn:
        cfg, retrieval = self.cfg(resources.settings), resources.settings.retrieval
        others = [] if previous is None else [
            {"desc": agents[j].desc, "response": t.response} for j, t in enumerate(previous) if j != index]
        query, changed, written = await self._query(agent, claim, r, previous[index] if previous else None,
                                                    others, resources)
        documents: list[Document] = []
        if agent.tool is not None and query is not None:
            if query not in agent.searches:
                agent.searches[query] = await search_tool(agent.tool, query, retrieval.k, agent=agent.name,
                                                          round=r, written=written)
            documents = trim(agent.searches[query], retrieval.max_doc_chars)
        if previous is not None and note_applies(cfg) and agreed(previous) and confirmed is not None:
            await confirmed.wait()  # the note reads the previous round's scores: a round ahead waits for them
        note = score_note(previous, index, agent.tool is not None, cfg)
        prompt = debate_prompt(cfg, agent.desc, claim, documents, others=others, note=note,
                               label_guide=label_guide_on(cfg, resources.settings) and names_subject(claim, documents),
                               number_notes=notes_numbers(resources.settings))
        turn = await answer_turn(resources.debater, prompt, agent=agent.name, round=r, tool=agent.tool_name,
                                 query=query, query_changed=changed, evidence=documents,
                                 temperature=resources.settings.llm.temperature)
        if on_answer is not None:
            on_answer(index, turn)
        if cfg.scoring:
            if confirmed is not None:
                await confirmed.wait()
            await self._score(turn, claim, r, resources)
        return turn

    async def _query(self, agent: Agent, claim: str, r: int, own_previous: Turn | None,
                     others: list[dict[str, str]],
                     resources: Resources) -> tuple[str | None, bool | None, str | None]:
        """The agent's query (round 1 from the claim, later kept or rewritten; the previous one when the reply
        is unreadable), and the model's text where cleaning changed it."""
        if agent.tool is None:
            return None, None, None
        first = r == 1 or own_previous is None
        if not query_call(self.cfg(resources.settings), 1 if first else r):
            return claim, None if first else False, None
        previous_query = claim if first or own_previous is None else own_previous.query or claim
        prompt = render("query_select", agent_desc=agent.desc, claim=claim,
                        previous_query=None if first else previous_query, others=others)
        # The prompt asks for the query alone, so the first ask is held to it where the backend can
        # (a grammar, or a schema rendered back as "[query]"); the re-ask is the same form.
        held = GenParams(temperature=0.0, max_tokens=QUERY_TOKENS, grammar=QUERY_GRAMMAR, json_schema=QUERY_SCHEMA,
                         json_template=QUERY_TEMPLATE)
        # Its own earlier answer is no query; a fact taken from another agent's answer is (looking up what the
        # other side asserts is the debate's adaptive retrieval), unless it comments on the claim.
        earlier = [own_previous.response] if own_previous is not None and own_previous.response else []
        query = (await ask(resources.debater, prompt,
                           lambda text: grounded_query(text, claim, previous_query, earlier=earlier),
                           what="query", params=held, problem="the query was not inside square brackets",
                           reask=format_reask(QUERY_TOKENS, QUERY_GRAMMAR, (QUERY_SCHEMA, QUERY_TEMPLATE)),
                           agent=agent.name, round=r, echoes=QUERY_ECHOES)).value
        if query is None:
            return previous_query, None if first else False, None
        changed = None if first else query.text.strip().lower() != previous_query.strip().lower()
        return query.text, changed, query.written

    async def _score(self, turn: Turn, claim: str, r: int, resources: Resources) -> None:
        cfg, max_chars = self.cfg(resources.settings), resources.settings.retrieval.max_doc_chars
        if cfg.scoring_variant == "consistency":
            result = await consistency(resources.encoder, turn.response, turn.evidence, max_chars)
            turn.scores["consistency"] = result.value
            if result.error and turn.evidence:
                turn.score_errors.append(f"consistency: {result.error}")
        else:
            faith, relevance = await gather_all(
                faithfulness(resources.scorer, claim, turn.response, turn.evidence, agent=turn.agent, round=r,
                             max_doc_chars=max_chars,
                             conclusions_out=offline_scoring_on(cfg, resources.settings)),
                answer_relevance(resources.scorer, resources.encoder, claim, turn.response,
                                 n=cfg.relevance_questions, agent=turn.agent, round=r))
            turn.scores.update(faithfulness=faith.value, answer_relevance=relevance.value)
            if faith.error and turn.evidence:  # no evidence means "not applicable", not a failure
                turn.score_errors.append(f"faithfulness: {faith.error}")
            if relevance.error:
                turn.score_errors.append(f"answer_relevance: {relevance.error}")
        scored(turn, r)

    def _consensus(self, rounds: list[Round], agents: list[Agent], cfg: ToolMADSettings) -> bool:
        turns = rounds[-1].turns
        labels = {t.label for t in turns}
        if None in labels or len(labels) != 1:
            return False
        if not cfg.scoring or cfg.scoring_variant == "consistency":
            return True  # the draft's consistency score only informs the judge
        return all(self._stable(i, agent, rounds, cfg) for i, agent in enumerate(agents))

    @staticmethod
    def _stable(index: int, agent: Agent, rounds: list[Round], cfg: ToolMADSettings) -> bool:
        history = rounds if cfg.threshold_on in ("average", "sum") else rounds[-1:]
        turns = [rnd.turns[index] for rnd in history]
        if any(t.score_errors for t in turns):
            return False
        combine = sum if cfg.threshold_on == "sum" else mean
        relevance = [t.answer_relevance for t in turns]
        if None in relevance or not passes(combine(v for v in relevance if v is not None),
                                           cfg.relevance_threshold, cfg):
            return False
        if agent.tool is None:
            return True
        faith = [t.faithfulness for t in turns]
        return None not in faith and passes(combine(v for v in faith if v is not None), cfg.faithfulness_threshold,
                                            cfg)

    async def _judge(self, claim: str, agents: list[Agent], rounds: list[Round], resources: Resources) -> Judgement:
        cfg = self.cfg(resources.settings)
        scores = []
        if cfg.scoring:
            for i, agent in enumerate(agents):
                scores.append({"desc": agent.desc, "text": score_summary(i, rounds, cfg.scoring_variant)})
        history = format_history(rounds, [a.desc for a in agents], cfg.judge_evidence_chars)
        read = [document for played in rounds for turn in played.turns for document in turn.evidence]
        prompt = render("judge", claim=claim, history=history, scores=scores, ending=ending(rounds[-1]),
                        score_kind=cfg.scoring_variant if cfg.scoring else "none",
                        label_guide=label_guide_on(cfg, resources.settings) and names_subject(claim, read))
        return await judge(resources.judge, prompt, round=len(rounds) + 1,
                           temperature=resources.settings.llm.temperature)
