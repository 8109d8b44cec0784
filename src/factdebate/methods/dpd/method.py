"""``dpd``: Dual-Position Debate (He & Le, ICIC 2025): two teams (a gatherer, a rebutter, a summarizer each), a
shared analyst, and a panel of referees whose confidence-weighted votes decide and stop the debate.

Round 0: both gatherers search while the analyst examines the claim. Each round after: per team, snippets are
selected, the rebutter answers the opponent, the summarizer samples k statements; then every judge at once.
After ``min_rounds`` the debate stops when the panel's consensus reaches ``consensus_threshold`` (at most
``max_rounds``); between rounds each team moves to trust or skeptic (docs/methods/dpd.md)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from factdebate.core.claim_context import binary_task
from factdebate.core.deviations import Deviation
from factdebate.core.runtime import span
from factdebate.core.types import Document, Judgement, Label, Round, Turn, Verdict
from factdebate.methods.base import CallProbe, Method, register
from factdebate.methods.dpd import paper
from factdebate.methods.dpd.events import PanelDecided
from factdebate.methods.dpd.panel import (
    FOCUS,
    SIDES,
    PanelJudge,
    Tally,
    announce,
    run_panel,
)
from factdebate.methods.dpd.scripted import REPLIES
from factdebate.methods.dpd.settings import DPDSettings, State, initial_state, next_state
from factdebate.methods.dpd.tasks import TASK_UNITS, run_task, supplied_evidence, task_for, task_settings
from factdebate.methods.dpd.team import (
    POSITION,
    STANCE,
    DebateStore,
    gather,
    given_turn,
    other,
    select_snippets,
    statement,
    summarize,
)
from factdebate.methods.dpd.view import VIEW
from factdebate.methods.kit.common import trim
from factdebate.methods.kit.sources import heterogeneous
from factdebate.methods.kit.speculation import Ahead, run_ahead
from factdebate.methods.kit.turns import end_round, finish
from factdebate.methods.resources import Resources
from factdebate.prompts import Prompt, render
from factdebate.util.errors import ConfigError
from factdebate.util.tasks import gather_all

if TYPE_CHECKING:
    from factdebate.core.dataset_types import Dataset, Sample
    from factdebate.core.runtime import EventSink
    from factdebate.methods.base import ClaimRunner
    from factdebate.methods.settings_protocol import RunSettings, SettingsT

__all__ = ["DPD", "DPDSettings", "next_state"]


@dataclass
class TeamSaid:
    statement: str = ""
    confidence: float | None = None
    evidence: list[Document] = field(default_factory=list)


TeamsResult = tuple[list[Turn], dict[str, TeamSaid]]


@dataclass
class Debate:
    claim: str
    cfg: DPDSettings
    stores: dict[str, DebateStore]
    given: list[Document] = field(default_factory=list)  # evidence the task supplies (both teams share it)
    findings: str = ""
    said: dict[str, TeamSaid] = field(default_factory=dict)
    states: dict[str, State] = field(default_factory=dict)


def round_calls(cfg: DPDSettings, *, reasks: bool) -> int:
    per_team = 1 + (cfg.summary_samples if cfg.summarizers else 0)
    return 2 * per_team + len(cfg.judges) * (2 if reasks else 1)


def setup_calls(cfg: DPDSettings, *, reasks: bool) -> int:
    queries = 2 * (2 if reasks else 1) if cfg.gatherers and cfg.query_generation and cfg.tools else 0
    return queries + (1 if cfg.analysts else 0)


@register
class DPD(Method[DPDSettings]):
    name = "dpd"
    description = ("DPD (dual-position debate): affirmative and negative teams of gatherer, rebutter and "
                   "summarizer, a shared analyst, a panel of confidence-weighted judges")
    settings_model = DPDSettings
    roles = ("debater", "gatherer", "analyst", "rebutter", "summarizer", "judge")
    view = VIEW
    events = (PanelDecided,)
    scripted_replies = REPLIES
    # Confidence 0 everywhere: a tie with consensus 0, so the debate runs to its last round.
    call_probe = CallProbe(reasks={
        "dpd_queries": '{"support": "capital of France", "refute": "Paris capital"}',
        "dpd_judge": '{"why": "even", "affirmative": {"evidence": 0.5, "logic": 0.5, "neutrality": 0.5, '
                     '"persuasiveness": 0.5}, "negative": {"evidence": 0.5, "logic": 0.5, "neutrality": 0.5, '
                     '"persuasiveness": 0.5}, "vote": "tie", "confidence": 0}'})

    def tools(self, settings: RunSettings) -> set[str]:
        cfg = self.cfg(settings)
        return set(cfg.tools) if cfg.gatherers else set()

    def tools_heterogeneous(self, settings: RunSettings) -> bool | None:
        cfg = self.cfg(settings)
        return heterogeneous(list(cfg.tools), settings) if cfg.gatherers else None

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        return paper.deviations(self.cfg(settings), settings)

    def role_models(self, settings: RunSettings) -> dict[str, str]:
        cfg = self.cfg(settings)
        return dict(zip(cfg.judge_roles().values(), cfg.judge_llms, strict=False))

    def check(self, settings: RunSettings) -> None:
        cfg = self.cfg(settings)
        for (name, role), model in zip(cfg.judge_roles().items(), cfg.judge_llms, strict=False):
            bound = settings.llm.roles.get(role)
            if bound and bound != model:
                raise ConfigError(f"judge '{name}': llm.roles gives {role} the model '{bound}' but judge_llms gives "
                                  f"'{model}'; set it in one place")

    def sample_settings(self, settings: SettingsT, dataset: Dataset) -> SettingsT:
        task = task_for(self.cfg(settings).task, dataset)
        return settings if task is None else task_settings(task, settings)

    def sample_unit(self, settings: RunSettings, dataset: Dataset) -> Literal["claim", "response"]:
        task = task_for(self.cfg(settings).task, dataset)
        return dataset.unit if task is None else TASK_UNITS[task]

    def most_rounds(self, settings: RunSettings) -> int | None:
        return 1 + self.cfg(settings).max_rounds  # the opening, then the rebuttals

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        cfg = self.cfg(settings)
        low = setup_calls(cfg, reasks=False) + (1 + cfg.min_rounds) * round_calls(cfg, reasks=False)
        high = setup_calls(cfg, reasks=True) + (1 + cfg.max_rounds) * round_calls(cfg, reasks=True)
        return low, high

    async def run(self, claim: str, resources: Resources) -> Verdict:
        return await self.debate(claim, resources, await supplied_evidence(claim))

    async def run_sample(self, sample: Sample, dataset: Dataset, settings: SettingsT, resources: Resources,
                         sinks: list[EventSink] | None,
                         runner: ClaimRunner[SettingsT]) -> tuple[dict[str, Any], str | None] | None:
        task = task_for(self.cfg(settings).task, dataset)
        if task is None:
            return None
        return await run_task(task, sample, dataset, settings, resources, sinks, runner)

    async def debate(self, claim: str, resources: Resources, given: list[Document] | None = None) -> Verdict:
        """One claim; ``given``: evidence the task supplies, added to both teams' stores first."""
        cfg = self.cfg(resources.settings)
        debate = Debate(claim, cfg, {side: DebateStore(resources.encoder) for side in SIDES}, list(given or []),
                        states={side: initial_state(cfg.transition) for side in SIDES})
        rounds = [await self._setup(debate, resources)]
        judges = [PanelJudge(name, FOCUS.get(name, f"the debate as the {name} judge"), resources.llm(role))
                  for name, role in cfg.judge_roles().items()]
        last = 1 + cfg.max_rounds
        lines: list[str] = []
        verdict_judges: list[Judgement] = []
        tally: Tally | None = None
        ahead: tuple[dict[str, State], Ahead[TeamsResult]] | None = None  # next round's teams, started early
        known: str | None = None  # the latest panel outcome
        kept = dropped = 0
        for r in range(1, last + 1):
            states = dict(debate.states)
            if ahead is not None and ahead[0] == states:
                turns, said = await ahead[1].keep()
                kept += 1
            else:
                if ahead is not None:
                    await ahead[1].discard()
                    dropped += 1
                turns, said = await self._teams(debate, r, states, resources)
            ahead = None
            debate.said = said
            guess = self._guess(cfg, known) if cfg.speculate and r < last else None
            if guess is not None:
                ahead = (guess, run_ahead(functools.partial(self._teams, debate, r + 1, guess, resources)))
            with span("judges", "panel", round=r):
                verdict_judges, tally = await run_panel(
                    judges, lambda j: self._judge_prompt(debate, j), r,
                    temperature=resources.settings.llm.temperature, max_tokens=cfg.judge_tokens)
            agreed = tally.consensus is not None and tally.consensus >= cfg.consensus_threshold
            stop = r == last or (agreed and r - 1 >= cfg.min_rounds)
            announce(tally, r, stop)
            rnd = Round(round=r, turns=turns, judges=verdict_judges)
            rounds.append(rnd)
            end_round(rnd, consensus=agreed, final=stop)
            lines.append(f"round {r} ({', '.join(f'{s} {states[s]}' for s in SIDES)}): {tally.describe()}")
            if stop:
                if ahead is not None:
                    await ahead[1].discard()
                    dropped += 1
                break
            known = tally.outcome
            debate.states = {side: next_state(cfg.transition, tally.outcome) for side in SIDES}
        assert tally is not None  # at least the opening is judged
        if cfg.speculate:
            lines.append(f"speculative rounds: {kept} kept, {dropped} dropped")
        label, decided_by = tally.label, "panel"
        if label is Label.NOT_ENOUGH_INFO:  # a tie: a binary task gets one of its two labels
            label, decided_by = Label(cfg.binary_tie if binary_task() else cfg.tie_label), "panel-tie"
            lines.append(f"a tie, answered {label.value}")
        unparsed = sum(not j.parsed for rnd in rounds for j in rnd.judges)
        verdict = finish(claim, self.name, label, decided_by, rounds, verdict_judges, explanation="\n".join(lines),
                         unparsed_turns=unparsed)
        verdict.consensus = tally.consensus
        return verdict

    async def _setup(self, debate: Debate, resources: Resources) -> Round:
        """Round 0: the gatherers' one search (both teams at once) and the analyst, concurrently."""
        cfg = debate.cfg
        temperature = resources.settings.llm.temperature
        with span("setup", "round", round=0):
            for side in SIDES:
                await debate.stores[side].add(debate.given)
            jobs = []
            if cfg.gatherers and cfg.tools:
                for side in SIDES:
                    jobs.append(self._gather(debate, side, resources))
            elif cfg.gatherers and debate.given:
                for side in SIDES:
                    jobs.append(given_turn(side, debate.given))
            if cfg.analysts:
                jobs.append(statement(resources.llm("analyst"), render("dpd_analyst", claim=debate.claim),
                                      agent="analyst", role="analyst", team=None, round=0,
                                      temperature=temperature, max_tokens=cfg.statement_tokens))
            turns = await gather_all(*jobs)
        if cfg.analysts:
            debate.findings = turns[-1].response
        rnd = Round(round=0, turns=turns)
        end_round(rnd, consensus=False)
        return rnd

    @staticmethod
    async def _gather(debate: Debate, side: str, resources: Resources) -> Turn:
        cfg = debate.cfg
        with span(side, "team", round=0):
            return await gather(side, debate.claim, resources, tools=list(cfg.tools), pool_k=cfg.pool_k,
                                generate_queries=cfg.query_generation, store=debate.stores[side])

    @staticmethod
    def _guess(cfg: DPDSettings, known: str | None) -> dict[str, State] | None:
        """The next round's states if the panel's latest outcome repeats; None: nothing to go on yet."""
        if cfg.transition not in ("always-trust", "always-skeptic") and known is None:
            return None
        return {side: next_state(cfg.transition, known) for side in SIDES}

    async def _teams(self, debate: Debate, r: int, states: dict[str, State], resources: Resources) -> TeamsResult:
        """Both teams' round at once (each reads only the other's previous statement)."""
        with span(f"round {r}", "round", round=r, states=states):
            said = await gather_all(*(self._team(debate, side, r, states[side], resources) for side in SIDES))
        turns = [t for team_turns, _ in said for t in team_turns]
        return turns, {side: team_said for side, (_, team_said) in zip(SIDES, said, strict=True)}

    async def _team(self, debate: Debate, side: str, r: int, state: State,
                    resources: Resources) -> tuple[list[Turn], TeamSaid]:
        """One team's round: select snippets, rebut, summarize (in that order: each needs the one before)."""
        cfg, temperature = debate.cfg, resources.settings.llm.temperature
        opponent, own = debate.said.get(other(side), TeamSaid()), debate.said.get(side, TeamSaid())
        skeptic = state == "skeptic"
        turns: list[Turn] = []
        with span(side, "team", round=r, state=state):
            snippets: list[Document] = []
            if cfg.gatherers and debate.stores[side].documents:  # given evidence comes through the gatherer too
                context = f"{debate.claim}\n{opponent.statement or POSITION[other(side)]}"
                pick = await select_snippets(side, debate.stores[side], context, cfg.snippets, cfg.snippet_chars, r)
                snippets = pick.evidence
                turns.append(pick)
            common = dict(side=side, stance=STANCE[side], skeptic=skeptic, claim=debate.claim,
                          findings=debate.findings, snippets=snippets)
            rebuttal = await statement(
                resources.llm("rebutter"),
                render("dpd_rebutter", **common, other=other(side), other_stance=POSITION[other(side)],
                       opponent=opponent.statement, opponent_confidence=opponent.confidence),
                agent=f"{side}-rebutter", role="rebutter", team=side, round=r, temperature=temperature,
                max_tokens=cfg.statement_tokens)
            turns.append(rebuttal)
            said = TeamSaid(rebuttal.response, None, snippets[:cfg.judge_evidence])
            if cfg.summarizers:
                summary = await summarize(
                    resources.llm("summarizer"), resources.encoder,
                    {**common, "rebuttal": rebuttal.response, "previous": own.statement}, side=side, round=r,
                    k=cfg.summary_samples, temperature=cfg.summary_temperature, max_tokens=cfg.statement_tokens,
                    evidence=snippets)
                turns.append(summary)
                said = TeamSaid(summary.response, summary.scores.get("confidence"), snippets[:cfg.judge_evidence])
        return turns, said

    @staticmethod
    def _judge_prompt(debate: Debate, judge: PanelJudge) -> Prompt:
        teams = [{"side": side, "statement": debate.said[side].statement, "confidence": debate.said[side].confidence,
                  "evidence": trim(debate.said[side].evidence, 200)} for side in SIDES]
        return render("dpd_judge", judge=judge.name, focus=judge.focus, claim=debate.claim, findings=debate.findings,
                      teams=teams)
