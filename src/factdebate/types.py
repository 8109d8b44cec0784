"""The JSON contract: documents, turns, rounds, verdicts and usage.

Every method returns a :class:`Verdict`; the CLI, the service and the evaluation harness read and write
exactly these models, so a results file written by one can be opened by the others.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from factdebate.textsafe import safe_text


class Label(StrEnum):
    SUPPORTS = "SUPPORTS"
    REFUTES = "REFUTES"
    NOT_ENOUGH_INFO = "NOT ENOUGH INFO"


class Document(BaseModel):
    """One retrieved passage. ``score`` is the engine's own relevance score (higher is better)."""

    id: str
    title: str
    text: str
    source: str = ""
    score: float = 0.0

    @field_validator("id", "title", "text", "source")
    @classmethod
    def _safe(cls, value: str) -> str:
        # Retrieved text comes from anywhere: made writable as UTF-8 here, once.
        return safe_text(value)


class Usage(BaseModel):
    """Cost of a run; sums across roles and sub-agents."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: int = 0
    seconds: float = 0.0
    cached_calls: int = 0

    def add(self, other: Usage) -> None:
        self.llm_calls += other.llm_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.tool_calls += other.tool_calls
        self.seconds += other.seconds
        self.cached_calls += other.cached_calls


class Turn(BaseModel):
    """One agent's contribution in one round."""

    agent: str
    tool: str
    query: str | None = None
    query_changed: bool | None = None
    evidence: list[Document] = Field(default_factory=list)
    response: str = ""
    label: Label | None = None  # None: the answer had no parseable label (never counted as consensus)
    parse_retries: int = 0
    # The label came from an answer the backend held to a label format (grammar, schema or choices);
    # None: unknown (files written before this field) or no label.
    label_constrained: bool | None = None
    faithfulness: float | None = None  # None: not computed or could not be scored
    answer_relevance: float | None = None
    consistency: float | None = None
    score_errors: list[str] = Field(default_factory=list)


class Round(BaseModel):
    round: int
    turns: list[Turn]


class JudgeDecision(BaseModel):
    response: str
    label: Label | None
    parse_retries: int = 0
    label_constrained: bool | None = None  # as in Turn


class Verdict(BaseModel):
    claim: str
    method: str
    label: Label | None  # None only when even the final decision had no parseable label
    decided_by: Literal["consensus", "judge", "single", "unparsed"]
    rounds: list[Round] = Field(default_factory=list)
    judge: JudgeDecision | None = None
    usage: Usage = Field(default_factory=Usage)
    usage_by_role: dict[str, Usage] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    unparsed_turns: int = 0
    error: str | None = None

    @property
    def reasons(self) -> str:
        """The text that justified the final label: the judge's answer or the last agreeing turn."""
        if self.judge is not None:
            return self.judge.response
        if self.rounds:
            return self.rounds[-1].turns[0].response
        return ""
