"""Trace events: one pydantic model per kind, a discriminated union on ``event``.

The kinds every method shares are here; a method's own are registered with it (``Method.events``). Every event
carries ``span_id`` (the innermost open span) and ``parent_id``, so a consumer can nest events; ``t`` and
``run`` are filled in by the recorder. docs/trace.md documents the format."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, TypeAdapter, model_serializer

from factdebate.core.types import Label


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

    def summary(self) -> str | None:
        """One line for the terminal's live view, for a kind it has no panel of its own for (DPD's tally)."""
        return None


class Where(BaseEvent):
    """Events about one agent's work in one round."""

    agent: str = ""
    round: int = 0


class RunStarted(BaseEvent):
    event: Literal["run_started"] = "run_started"
    claim: str
    method: str
    most_rounds: int | None = None  # the most rounds this run can take (Method.most_rounds); None: not counted


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
    # As in Turn: the part of the claim this turn checks, when not the whole; absent rather than null otherwise,
    # so other methods' trace lines stay as they were.
    claim: str | None = Field(default=None, exclude_if=lambda value: value is None)
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



class RoundEnded(BaseEvent):
    event: Literal["round"] = "round"
    round: int
    labels: list[Label | None] = Field(default_factory=list)
    consensus: bool = False
    final: bool = False  # no further round follows (the judge or the verdict comes next)



class ToolCall(Where):
    """An agent-level tool call (accounted in ``usage.tool_calls``)."""

    event: Literal["tool_call"] = "tool_call"
    tool: str
    query: str = ""
    # What the model wrote when the query was cleaned of numbering, quotes or a label (methods/kit/query_text.py).
    query_written: str | None = None
    k: int = 0
    results: list[DocRef] = Field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    @model_serializer(mode="wrap")
    def _written_when_cleaned(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Absent rather than null when the query was searched as written: a trace line stays as it was.
        data: dict[str, Any] = handler(self)
        if data.get("query_written") is None:
            data.pop("query_written", None)
        return data


class WebSearch(BaseEvent):
    """One request of an online search engine, nested in the agent's ``tool_call`` span."""

    event: Literal["web_search"] = "web_search"
    tool: str
    query: str
    k: int
    results: int
    seconds: float
    error: str | None = None


class TranscriptMessage(BaseModel):
    """One message of a model call's prompt, as sent (its content clipped, llm/transcript.py)."""

    model_config = ConfigDict(extra="forbid")

    role: str
    content: str


class LLMCall(Where):
    event: Literal["llm_call"] = "llm_call"
    model: str
    role: str
    prompt: str = ""
    sample: str = ""
    draw: str = ""  # which of several independent draws of the same call (DPD's summaries), else ""
    prompt_hash: str = ""
    cached: bool = False
    attempts: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0  # of the completion tokens, the hidden reasoning of a reasoning model
    # False: the server reported no token counts (a stream without usage): prompt_tokens 0 and completion_tokens
    # counted one a streamed chunk are no measurement. Absent (None) where they are the server's.
    usage_known: bool | None = None
    # The call's text, only when the caller asked for a transcript (llm/transcript.py); each text clipped.
    messages: list[TranscriptMessage] | None = None
    reply: str | None = None
    # Messages left out to keep the call's texts under their total (llm/transcript.py): those just after the first.
    messages_cut: int | None = None

    @model_serializer(mode="wrap")
    def _text_when_asked(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Absent rather than null without a transcript: a trace line stays as it was before the fields existed.
        data: dict[str, Any] = handler(self)
        for name in ("messages", "reply", "messages_cut", "usage_known"):
            if data.get(name) is None:
                data.pop(name, None)
        return data


class LLMStarted(Where):
    """A model call sent (not answered from the cache); its ``llm_call`` follows when it ends."""

    event: Literal["llm_started"] = "llm_started"
    model: str
    role: str
    prompt: str = ""
    sample: str = ""
    draw: str = ""


class LLMRetry(Where):
    event: Literal["llm_retry"] = "llm_retry"
    role: str
    attempt: int
    error: str
    delay: float


class ParseProblem(Where):
    """A reply that could not be read and was re-asked once (by ``llm.ask.ask``): ``parse_recovered`` if the
    re-ask was readable, else ``parse_failure``."""

    event: Literal["parse_failure", "parse_recovered"] = "parse_failure"
    what: str  # what was asked for: label, yes_no, query, ballot, claims...
    prompt: str = ""  # the template of the first ask
    problem: str = ""  # why the first reply could not be read (what the re-ask told the model)
    reply: str = ""  # the first reply, clipped
    reask_reply: str = ""  # the re-ask's reply, clipped
    constrained: bool | None = None  # the re-ask was held to a format by the backend
    reask_problem: str = ""  # why the re-ask's reply could not be read either (empty: it was read)

    @property
    def recovered(self) -> bool:
        return self.event == "parse_recovered"


class ReplyCut(Where):
    """A reply that stopped at its token limit (``finish_reason: length``), counted as ``cut`` under ``what``."""

    event: Literal["reply_cut"] = "reply_cut"
    what: str  # the kind of reply: label, query, ballot... or a free text's prompt (dpd_analyst)
    prompt: str = ""
    max_tokens: int = 0
    completion_tokens: int = 0


class ConstraintRejected(BaseEvent):
    """A server refused a constrained-output request; the backend falls back to a weaker mode."""

    event: Literal["constraint_rejected"] = "constraint_rejected"
    model: str
    mode: str
    fallback: str | None = None
    error: str = ""


class StreamsOff(BaseEvent):
    """A server cut a streamed answer for another request: under ``llm.stream: auto``, asked plainly from now."""

    event: Literal["streams_off"] = "streams_off"
    model: str
    note: str = ""


class LLMParamsAdjusted(BaseEvent):
    """A parameter renamed or dropped for a model that wants it so; once per run and model."""

    event: Literal["llm_params_adjusted"] = "llm_params_adjusted"
    model: str
    param: str
    change: str  # "renamed to max_completion_tokens", "dropped"
    reason: str = ""  # the server's refusal, or why it was known beforehand


class LLMThreads(BaseEvent):
    """The CPU threads an in-process model runs with, and why (llm/llama_threads.py); once per run and model, and
    again when the count changes."""

    event: Literal["llm_threads"] = "llm_threads"
    model: str
    threads: int
    reason: str = ""


class ModelLoading(BaseEvent):
    """A model starts loading inside a run, which the first claim waits for; ``model_loaded`` follows."""

    event: Literal["model_loading"] = "model_loading"
    what: str  # "embedded model", "offline model", "local model", "sentence encoder"
    model: str

    def summary(self) -> str | None:
        return f"loading the {self.what} ({self.model}): once per process…"


class ModelLoaded(BaseEvent):
    """The model of the ``model_loading`` before it is ready, and how long its load took."""

    event: Literal["model_loaded"] = "model_loaded"
    what: str
    model: str
    seconds: float

    def summary(self) -> str | None:
        return f"{self.what} loaded in {self.seconds:.1f} s"


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
    ungrounded: list[str] = Field(default_factory=list)  # written by the extractor, named nothing of the text


class ResponseJudged(BaseEvent):
    event: Literal["response_verdict"] = "response_verdict"
    label: Label | None
    decided_by: str
    claim_labels: list[Label | None] = Field(default_factory=list)


_BUILT_IN: tuple[type[BaseEvent], ...] = (
    RunStarted, RunFinished, SpanBegin, SpanEnd, TurnStarted, Answer, StepTaken, Scored, JudgementMade, RoundEnded,
    ToolCall, WebSearch, LLMStarted, LLMCall, LLMRetry, ParseProblem, ReplyCut, ConstraintRejected, StreamsOff,
    LLMParamsAdjusted, ToolError, LLMThreads, ModelLoading, ModelLoaded, LeakageNote, VerdictReached, ResponseStarted,
    ClaimsExtracted, ResponseJudged,
)
# Every known kind -> its model: the built-ins above, and each registered method's own (``Method.events``).
_KINDS: dict[str, type[BaseEvent]] = {}
_finders: list[Callable[[], object]] = []


def kinds_of(model: type[BaseEvent]) -> tuple[str, ...]:
    """The ``event`` values a model stands for (its ``Literal``; ``ParseProblem`` has two)."""
    return tuple(str(k) for k in get_args(model.model_fields["event"].annotation))


def register_event(model: type[BaseEvent]) -> None:
    """Make ``model``'s kind known to :func:`parse_event` and the events' JSON Schema (one model a kind)."""
    kinds = kinds_of(model)
    if not kinds:
        raise TypeError(f"{model.__name__} needs an 'event' field typed as a Literal of its kind")
    for kind in kinds:
        if _KINDS.get(kind, model) is not model:
            raise TypeError(f"event kind '{kind}' is already {_KINDS[kind].__name__}'s")
    for kind in kinds:
        _KINDS[kind] = model
    _adapter.cache_clear()


def unregister_event(model: type[BaseEvent]) -> None:
    for kind in kinds_of(model):
        if _KINDS.get(kind) is model:
            del _KINDS[kind]
    _adapter.cache_clear()


def add_event_finder(finder: Callable[[], object]) -> None:
    """Called once when a record of an unknown kind is parsed, before it is rejected (method discovery)."""
    _finders.append(finder)


def event_models() -> list[type[BaseEvent]]:
    return list(dict.fromkeys(_KINDS.values()))


@cache
def _adapter() -> TypeAdapter[Any]:
    union: Any = Annotated[Union[tuple(event_models())], Field(discriminator="event")]  # noqa: UP007
    return TypeAdapter(union)


def parse_event(record: dict[str, Any]) -> BaseEvent:
    """A trace line back into its model (raises ``pydantic.ValidationError`` on an unknown kind)."""
    if record.get("event") not in _KINDS:
        while _finders:
            _finders.pop()()
    event: BaseEvent = _adapter().validate_python(record)
    return event


def event_json_schema() -> dict[str, Any]:
    """The JSON Schema of one trace line: every built-in kind and every registered method's own."""
    return _adapter().json_schema()


def summary(record: dict[str, Any]) -> str | None:
    """The one line a terminal prints for an event it draws no panel for (``BaseEvent.summary``)."""
    model = _KINDS.get(str(record.get("event")))
    if model is None or model.summary is BaseEvent.summary:
        return None
    return model.model_validate(record).summary()


for _model in _BUILT_IN:
    register_event(_model)


def doc_refs(documents: list[Any]) -> list[DocRef]:
    return [DocRef(id=d.id, title=d.title, source=d.source, score=round(d.score, 4)) for d in documents]
