"""Trace events: one pydantic model per kind, a discriminated union on ``event``.

Every event carries ``span_id`` (the innermost open span: a round, a team, a judge panel, a sub-claim, a
tool call) and ``parent_id`` (that span's parent), so a consumer can nest events without replaying the
span bookkeeping. ``t`` and ``run`` are filled in by the recorder. docs/trace.md documents the format.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from factdebate.types import Label


class DocRef(BaseModel):
    id: str
    title: str = ""
    source: str = ""
    text: str = ""  # empty in live events (kept short); full text lives in the verdict
    score: float | None = None


class BaseEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    t: float = 0.0
    run: str = ""
    span_id: str | None = None
    parent_id: str | None = None


class Where(BaseEvent):
    """Events about one agent's work in one round."""

    agent: str = ""
    round: int = 0


class RunStarted(BaseEvent):
    event: Literal["run_started"] = "run_started"
    claim: str
    method: str


class RunFinished(BaseEvent):
    event: Literal["run_finished"] = "run_finished"
    label: Label | None
    decided_by: str
    usage: dict[str, Any] = Field(default_factory=dict)


class SpanBegin(BaseEvent):
    """Opens ``span_id``: ``kind`` says what nests inside (round, team, panel, subclaim, tool...)."""

    event: Literal["span_begin"] = "span_begin"
    name: str
    kind: str
    attributes: dict[str, Any] = Field(default_factory=dict)


class SpanEnd(BaseEvent):
    event: Literal["span_end"] = "span_end"
    name: str
    kind: str


class TurnStarted(Where):
    event: Literal["turn_started"] = "turn_started"
    role: str = "debater"
    team: str | None = None
    tool: str = "none"
    query: str | None = None
    query_changed: bool | None = None
    evidence: list[DocRef] = Field(default_factory=list)


class Answer(Where):
    event: Literal["answer"] = "answer"
    role: str = "debater"
    team: str | None = None
    label: Label | None = None
    response: str = ""
    parse_retries: int = 0


class StepTaken(Where):
    """One thought → tool → observation step of a tool-using agent."""

    event: Literal["step"] = "step"
    index: int
    thought: str = ""
    tool: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)
    observation: str = ""
    evidence: list[DocRef] = Field(default_factory=list)


class Scored(Where):
    event: Literal["score"] = "score"
    scores: dict[str, float | None] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)


class JudgementMade(Where):
    event: Literal["judgement"] = "judgement"
    role: str = "judge"
    vote: Label | None = None
    confidence: float | None = None
    weight: float = 1.0
    parsed: bool = True
    response: str = ""
    scores: dict[str, float] = Field(default_factory=dict)  # a panel judge's scores of each side


class PanelDecided(BaseEvent):
    """A judge panel's weighted tally (DPD): the totals per outcome, the winner and the consensus."""

    event: Literal["panel"] = "panel"
    round: int
    totals: dict[str, float] = Field(default_factory=dict)  # affirmative, negative, tie
    outcome: str | None = None  # affirmative | negative | tie; None: no judge could be read
    consensus: float | None = None
    judges: int = 0
    unparsed: int = 0
    stop: bool = False  # the debate ends with this decision


class RoundEnded(BaseEvent):
    event: Literal["round"] = "round"
    round: int
    labels: list[Label | None] = Field(default_factory=list)
    consensus: bool = False
    final: bool = False  # no further round follows (the judge or the verdict comes next)


class EvidencePool(BaseEvent):
    event: Literal["evidence_pool"] = "evidence_pool"
    documents: list[DocRef] = Field(default_factory=list)


class ToolCall(Where):
    """An agent-level tool call (accounted in ``usage.tool_calls``)."""

    event: Literal["tool_call"] = "tool_call"
    tool: str
    query: str = ""
    k: int = 0
    results: list[DocRef] = Field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None


class WebSearch(BaseEvent):
    """One request of an online search engine, nested in the agent's ``tool_call`` span."""

    event: Literal["web_search"] = "web_search"
    tool: str
    query: str
    k: int
    results: int
    seconds: float
    error: str | None = None


class LLMCall(Where):
    event: Literal["llm_call"] = "llm_call"
    model: str
    role: str
    prompt: str = ""
    sample: str = ""
    prompt_hash: str = ""
    cached: bool = False
    attempts: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class LLMRetry(Where):
    event: Literal["llm_retry"] = "llm_retry"
    role: str
    attempt: int
    error: str
    delay: float


class ParseProblem(Where):
    """A reply that had to be re-asked: ``parse_recovered`` if the re-ask was readable, else
    ``parse_failure`` (the value is recorded as unparsed)."""

    event: Literal["parse_failure", "parse_recovered"] = "parse_failure"
    what: str
    reply: str = ""
    reask_reply: str = ""
    constrained: bool | None = None  # the re-ask was held to a format by the backend


class ConstraintRejected(BaseEvent):
    """A server refused a constrained-output request; the backend falls back to a weaker mode."""

    event: Literal["constraint_rejected"] = "constraint_rejected"
    model: str
    mode: str
    fallback: str | None = None
    error: str = ""


class ToolError(BaseEvent):
    """A tool (an MCP server's, say) answered with an error, which the agent reads as an observation."""

    event: Literal["tool_error"] = "tool_error"
    tool: str
    query: str = ""
    error: str = ""


class LeakageNote(BaseEvent):
    """What a search-like tool did (or could not do) with the leakage controls for one call."""

    event: Literal["leakage"] = "leakage"
    tool: str
    query: str = ""
    notes: list[str] = Field(default_factory=list)


class Decomposed(Where):
    """MERMAID's decomposer: triplets and topic of the claim, the entities that key the memory; ``parsed``
    false when no readable decomposition came back (the executor then works from the raw claim)."""

    event: Literal["decomposition"] = "decomposition"
    triplets: list[dict[str, str]] = Field(default_factory=list)
    topic: str = ""
    entities: list[str] = Field(default_factory=list)
    parsed: bool = True
    skipped: bool = False  # the "w/o decomposer" ablation


class MemoryRecalled(Where):
    """Evidence recalled from the memory for the claim's entities, before the executor's loop."""

    event: Literal["memory_recall"] = "memory_recall"
    entities: list[str] = Field(default_factory=list)
    hits: list[dict[str, Any]] = Field(default_factory=list)  # entity, stored_entity, match, score, tool, source, text
    mode: str = "on"


class MemoryWritten(Where):
    """Evidence the trajectory used, stored under the entities it names, after the verdict."""

    event: Literal["memory_write"] = "memory_write"
    entities: list[str] = Field(default_factory=list)
    records: list[dict[str, Any]] = Field(default_factory=list)  # entity, tool, source, text
    added: int = 0  # new records (the rest refreshed ones already stored)
    skipped: str = ""  # why nothing was written (readonly, no entities...)
    # Passages the leak guard would not store (they read as an answer or a label): entity, tool, source, text,
    # reason.
    not_stored: list[dict[str, Any]] = Field(default_factory=list)
    error: str = ""  # why the write failed (locked, disk full...); the verdict stands and carries a warning


class VerdictReached(BaseEvent):
    event: Literal["verdict"] = "verdict"
    label: Label | None
    decided_by: str


class ResponseStarted(BaseEvent):
    """A response-level check begins (``factdebate.response_level``); each claim is then its own run."""

    event: Literal["response_started"] = "response_started"
    response: str
    question: str | None = None
    method: str


class ClaimsExtracted(BaseEvent):
    event: Literal["claims_extracted"] = "claims_extracted"
    claims: list[str]
    source: str = "extracted"
    parsed: bool = True
    subjective_removed: bool | None = None


class ResponseJudged(BaseEvent):
    event: Literal["response_verdict"] = "response_verdict"
    label: Label | None
    decided_by: str
    claim_labels: list[Label | None] = Field(default_factory=list)


Event = Annotated[
    RunStarted | RunFinished | SpanBegin | SpanEnd | TurnStarted | Answer | StepTaken | Scored | JudgementMade
    | PanelDecided | RoundEnded | EvidencePool | ToolCall | WebSearch | LLMCall | LLMRetry | ParseProblem
    | ConstraintRejected | ToolError | LeakageNote | Decomposed | MemoryRecalled | MemoryWritten | VerdictReached
    | ResponseStarted | ClaimsExtracted | ResponseJudged,
    Field(discriminator="event"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(record: dict[str, Any]) -> Event:
    """A trace line back into its model (raises ``pydantic.ValidationError`` on an unknown kind)."""
    return EVENT_ADAPTER.validate_python(record)


def doc_refs(documents: list[Any]) -> list[DocRef]:
    return [DocRef(id=d.id, title=d.title, source=d.source, score=round(d.score, 4)) for d in documents]
