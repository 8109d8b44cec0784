"""What each MCP tool returns, as types: the SDK derives every tool's ``outputSchema`` from its return annotation,
so a client (and a model choosing a tool) sees each field, not only ``{"type": "object"}``.
server/mcp/tools.py builds these dicts; the SDK checks each result against its schema."""

from __future__ import annotations

from typing import Literal

from pydantic import ValidationError

# pydantic (which turns these into the schemas) reads TypedDicts only from typing_extensions before Python 3.12.
from typing_extensions import NotRequired, TypedDict  # noqa: UP035


class Excerpt(TypedDict):
    """A passage as a debate read it, cut to its first 400 characters."""

    title: str
    source: str
    text: str
    score: float


class Passage(Excerpt):
    """A passage ``search_evidence`` found (its first 2,000 characters), and the search that found it."""

    id: str
    tool: str
    note: NotRequired[str]  # how it was found when not as asked (the full-text index while the vectors build)


class Counts(TypedDict):
    llm_calls: int
    tool_calls: int
    seconds: float


class Turn(TypedDict):
    agent: str
    tool: str
    query: str | None
    label: str | None
    answer: str
    faithfulness: float | None
    answer_relevance: float | None
    evidence: list[Excerpt]


class Round(TypedDict):
    round: int
    turns: list[Turn]


class Caution(TypedDict):
    """A caution about a verdict with a code a client can act on: ``embedded_model`` (the embedded model, near
    chance) or ``scripted_model`` (a script's answers): then the label is no finding; ``memory_write``,
    ``two_labels`` or ``note`` otherwise."""

    code: str
    message: str
    model: str | None


class ClaimVerdict(TypedDict):
    """``verify_claim``: the label (SUPPORTS, REFUTES, NOT ENOUGH INFO; null when no reply could be read), how it
    was decided, the reasons, and each round's agents with their queries, answers and evidence."""

    claim: str
    label: str | None
    decided_by: str
    reasons: str
    method: str
    rounds: list[Round]
    usage: Counts
    models: list[str]  # the models that answered for it
    warnings: list[Caution]


class Span(TypedDict):
    """Character offsets into the checked text: ``text[start:end]`` says the claim."""

    start: int
    end: int


class ResponseClaim(TypedDict):
    claim: str
    label: str | None
    error: str | None
    span: Span | None
    span_note: str | None
    decided_by: str | None
    reasons: str


class ResponseCheck(TypedDict):
    """``check_response``: the answer's label (false as soon as one claim is), and each claim's."""

    label: str | None
    factual: bool | None
    decided_by: str
    method: str
    claims_extracted: bool
    claims: list[ResponseClaim]
    usage: Counts
    models: list[str]  # the models that answered for it
    warnings: list[Caution]


class Quote(TypedDict):
    """A quoted passage and its stance toward the claim: ``supports`` or ``contradicts`` when the verdict cites
    it (by the claim's label), ``neither`` when it was read, not cited, or the claim is undecided."""

    title: str
    url: str | None
    quote: str
    stance: Literal["supports", "contradicts", "neither"]
    injection: NotRequired[str]  # the words that read as an instruction to the model, when the passage has some


class AnswerClaim(TypedDict):
    claim: str
    label: str | None
    status: str
    reason: str | None
    span: Span | None
    span_note: str | None
    quotes: list[Quote]
    correction: str | None
    correction_quote: str | None
    correction_note: str | None
    tier: str | None
    decided_by: str | None


class GuardCounts(TypedDict):
    model_calls: int
    cached_calls: int
    tool_calls: int
    seconds: float


class AnswerCheck(TypedDict):
    """``check_answer``: per claim its label, span, quotes and correction; ``to_fix`` and ``unchecked`` index
    ``claims``; ``deadline_s`` is the deadline that applied."""

    label: str | None
    degraded: bool
    degraded_reason: str | None
    to_fix: list[int]
    unchecked: list[int]
    claims: list[AnswerClaim]
    passed_through: list[str]
    tier: str | None
    deadline_s: float
    usage: GuardCounts
    models: list[str]  # the models that answered for it
    warnings: list[Caution]
    note: NotRequired[str]  # why it was checked at less than asked (the fast tier while the vectors build)


def describe_errors(exc: ValidationError) -> str:
    """An argument error as the client reads it: ``field: problem`` pairs, without pydantic's documentation
    links or the input echoed back."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors())
