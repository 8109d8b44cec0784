"""DPD's settings (``methods.dpd.*``, flags ``--dpd-<name>``) and its team-state transitions."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from factdebate.core.fields import offered
from factdebate.methods.base import MethodSettings
from factdebate.methods.dpd.panel import check_judge_names

Transition = Literal["true-skeptic", "true-trust", "always-skeptic", "always-trust"]
State = Literal["trust", "skeptic"]
GatherTool = Literal["search", "rag"]
GATHER_TOOLS: tuple[GatherTool, ...] = ("search", "rag")


class DPDSettings(MethodSettings):
    min_rounds: int = Field(default=2, ge=0, le=3, description="Rebuttal rounds after the opening before the "
                            "judges' consensus may stop the debate.")
    max_rounds: int = Field(default=3, ge=0, le=6, description="Most rebuttal rounds after the opening.")
    consensus_threshold: float = Field(default=0.8, ge=0, le=1, description="Judges' consensus that stops "
                                       "the debate (after the minimum rounds).")
    transition: Transition = Field(default="true-skeptic", description="Team state strategy: true-skeptic "
                                   "(paper's best), true-trust, always-skeptic, always-trust.")
    judges: list[str] = Field(default_factory=lambda: ["factual", "logical", "rhetorical"],
                              description="Referees by name; judge <name> uses model role judge-<name>.")
    judge_llms: list[str] = Field(
        default_factory=list, json_schema_extra=offered(operator_only=True),  # models: the operator's to choose
        description="One model per referee, in the order of judges (judge <name> asks role judge-<name>); "
        "empty: llm.roles, else the judge's model for every referee.")
    snippets: int = Field(default=10, ge=1, le=40, description="Snippets a gatherer selects per round.")
    snippet_chars: int = Field(default=300, ge=50, le=2000, description="Characters kept of each snippet.")
    pool_k: int = Field(default=5, ge=1, le=20, description="Documents per search of the gatherer's one "
                        "search at the start.")
    tools: list[GatherTool] = Field(default_factory=lambda: list(GATHER_TOOLS),
                                                  description="Tools the gatherers search: search, rag.")
    query_generation: bool = Field(default=True, description="Gatherers write their queries (off: the claim).")
    summary_samples: int = Field(default=3, ge=1, le=10, description="Summarizer samples k; their agreement "
                                 "is the team's confidence.")
    summary_temperature: float = Field(default=0.7, ge=0, le=2, description="Sampling temperature of the "
                                       "summarizer's samples.")
    gatherers: bool = Field(default=True, description="Information gatherers on (off: ablation).")
    analysts: bool = Field(default=True, description="Analyst on (off: ablation).")
    summarizers: bool = Field(default=True, description="Summarizers on (off: ablation; the rebuttal is the "
                              "team statement).")
    tie_label: Literal["NOT ENOUGH INFO", "REFUTES"] = Field(
        default="NOT ENOUGH INFO", description="Verdict when the final panel outcome is a tie.")
    judge_evidence: int = Field(default=3, ge=0, le=10, description="Snippets per team the judges read.")
    statement_tokens: int = Field(default=256, ge=32, le=2048, description="Longest role statement.")
    judge_tokens: int = Field(default=320, ge=64, le=2048, description="Longest judge ballot.")
    task: Literal["auto", "claim", "kbqa", "qa", "summarization", "dialogue"] = Field(
        default="auto", description="Task mode in evaluations: auto (the dataset's own), claim, kbqa, qa, "
        "summarization, dialogue.")
    task_search: bool = Field(default=False, description="In task modes with the dataset's evidence, the "
                              "gatherers also search their tools.")
    evidence_sentences: int = Field(default=10, ge=1, le=50, description="Summarization: article sentences "
                                    "closest to each claim that become its evidence.")
    speculate: bool = Field(default=False, description="Start the next round's teams while the judges "
                            "deliberate (kept if the state guess holds and the debate goes on).",
                            json_schema_extra=offered(operator_only=True))  # discarded calls: the operator's cost

    @field_validator("judges")
    @classmethod
    def _judge_names(cls, names: list[str]) -> list[str]:
        return check_judge_names(names)

    @model_validator(mode="after")
    def _rounds(self) -> DPDSettings:
        if self.min_rounds > self.max_rounds:
            raise ValueError(f"min_rounds ({self.min_rounds}) exceeds max_rounds ({self.max_rounds})")
        if self.judge_llms and len(self.judge_llms) != len(self.judges):
            raise ValueError(f"judge_llms names {len(self.judge_llms)} model(s) for {len(self.judges)} judge(s) "
                             f"({', '.join(self.judges)}): give one per judge, in that order")
        return self

    def judge_roles(self) -> dict[str, str]:
        """Each referee's model role (``judge-<name>``), by referee."""
        return {name: f"judge-{name}" for name in self.judges}


def initial_state(strategy: Transition) -> State:
    return "skeptic" if strategy == "always-skeptic" else "trust"


def next_state(strategy: Transition, outcome: str | None) -> State:
    """S1/S2 for the next round from this round's panel outcome. "True" means the panel found the claim
    factual (the affirmative won); a negative, tied or unreadable outcome is not True."""
    judged_true = outcome == "affirmative"
    if strategy == "always-skeptic":
        return "skeptic"
    if strategy == "always-trust":
        return "trust"
    if strategy == "true-skeptic":
        return "skeptic" if judged_true else "trust"
    return "trust" if judged_true else "skeptic"
