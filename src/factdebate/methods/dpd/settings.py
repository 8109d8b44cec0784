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
    min_rounds: int = Field(
        title="Fewest rebuttal rounds", default=2, ge=0, le=3, json_schema_extra=offered(group="rounds", main=True),
        description="Rebuttal rounds after the opening before the judges' consensus may stop the debate.")
    max_rounds: int = Field(
        title="Most rebuttal rounds", default=3, ge=0, le=6, json_schema_extra=offered(group="rounds", main=True),
        description="Rebuttal rounds after the opening at most.")
    consensus_threshold: float = Field(
        title="Consensus to stop", default=0.8, ge=0, le=1, json_schema_extra=offered(group="rounds", main=True),
        description="Judges' consensus that stops the debate (after the minimum rounds).")
    transition: Transition = Field(
        title="Team states", default="true-skeptic", json_schema_extra=offered(group="agents", main=True),
        description="Team state strategy: true-skeptic (paper's best), true-trust, always-skeptic, always-trust.")
    judges: list[str] = Field(
        title="Referees", default_factory=lambda: ["factual", "logical", "rhetorical"],
        json_schema_extra=offered(group="referees", main=True),
        description="The judges by name; judge <name> uses model role judge-<name>.")
    judge_llms: list[str] = Field(
        title="Referee models", default_factory=list,
        json_schema_extra=offered(operator_only=True, group="referees"),  # models: the operator's to choose
        description="One model per referee, in the order of judges (judge <name> asks role judge-<name>); "
        "empty: llm.roles, else the judge's model for every referee.")
    snippets: int = Field(
        title="Snippets per round", default=10, ge=1, le=40, json_schema_extra=offered(group="evidence"),
        description="Snippets a gatherer selects per round.")
    snippet_chars: int = Field(
        title="Snippet length", default=300, ge=50, le=2000, json_schema_extra=offered(group="length"),
        description="Characters kept of each snippet.")
    pool_k: int = Field(
        title="Documents per gatherer search", default=5, ge=1, le=20, json_schema_extra=offered(group="evidence"),
        description="What each of the gatherer's searches at the start returns.")
    tools: list[GatherTool] = Field(
        title="Gatherers' tools", default_factory=lambda: list(GATHER_TOOLS),
        json_schema_extra=offered(group="evidence"), description="Tools the gatherers search: search, rag.")
    query_generation: bool = Field(
        title="Gatherers write queries", default=True, json_schema_extra=offered(group="evidence"),
        description="Gatherers write their queries (off: the claim).")
    summary_samples: int = Field(
        title="Summarizer samples", default=3, ge=1, le=10, json_schema_extra=offered(group="agents"),
        description="k statements sampled per summary; their agreement is the team's confidence.")
    summary_temperature: float = Field(
        title="Summarizer temperature", default=0.7, ge=0, le=2, json_schema_extra=offered(group="agents"),
        description="Sampling temperature of the summarizer's samples.")
    gatherers: bool = Field(
        title="Information gatherers", default=True, json_schema_extra=offered(group="agents"),
        description="Gatherers search and pick snippets (off: ablation).")
    analysts: bool = Field(
        title="Analyst", default=True, json_schema_extra=offered(group="agents"),
        description="A shared analyst examines the claim first (off: ablation).")
    summarizers: bool = Field(
        title="Team summaries", default=True, json_schema_extra=offered(group="agents"),
        description="Each team's statement is summarized with a confidence (off: ablation; the rebuttal is the "
                    "statement).")
    tie_label: Literal["NOT ENOUGH INFO", "REFUTES"] = Field(
        title="Verdict on a tie", default="NOT ENOUGH INFO", json_schema_extra=offered(group="labels"),
        description="Verdict when the final panel outcome is a tie, outside a two-label task.")
    binary_tie: Literal["REFUTES", "SUPPORTS"] = Field(
        title="Verdict on a tie, two labels", default="REFUTES",
        json_schema_extra=offered(group="labels", only="eval"),  # two-label tasks exist only in evaluations
        description="Verdict on a tie in a two-label task (a binary dataset): REFUTES, as a tie does not "
                    "verify the claim as factual (factdebate docs methods/dpd#two-labels-ties-and-empty-extractions).")
    judge_evidence: int = Field(
        title="Snippets for the referees", default=3, ge=0, le=10, json_schema_extra=offered(group="referees"),
        description="Snippets per team the judges read.")
    statement_tokens: int = Field(
        title="Statement length", default=256, ge=32, le=2048, json_schema_extra=offered(group="length"),
        description="Longest role statement.")
    # The ballot's reason is bounded to what this leaves after the rest of the ballot (dpd/panel.py:
    # judge_schema): 480 leaves its full 200 characters, the floor 320 leaves 54.
    judge_tokens: int = Field(
        title="Ballot length", default=480, ge=320, le=2048, json_schema_extra=offered(group="length"),
        description="Longest judge ballot (its reason gets what the scores and vote leave).")
    task: Literal["auto", "claim", "kbqa", "qa", "summarization", "dialogue"] = Field(
        title="Task mode", default="auto", json_schema_extra=offered(group="tasks", only="eval"),
        description="In evaluations: auto (the dataset's own), claim, kbqa, qa, summarization, dialogue.")
    task_search: bool = Field(
        title="Search in task modes", default=False, json_schema_extra=offered(group="tasks", only="eval"),
        description="In task modes with the dataset's evidence, the gatherers also search their tools.")
    evidence_sentences: int = Field(
        title="Article sentences as evidence", default=10, ge=1, le=50,
        json_schema_extra=offered(group="tasks", only="eval"),
        description="Summarization: article sentences closest to each claim that become its evidence.")
    speculate: bool = Field(
        title="Start rounds ahead", default=False, json_schema_extra=offered(operator_only=True, group="rounds"),
        description="Start the next round's teams while the judges deliberate (kept if the state guess holds and "
                    "the debate goes on).")  # discarded calls: the operator's cost

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
