"""The JSON contract: documents, turns, steps, rounds, judgements, verdicts and usage.

Every method returns a :class:`Verdict`; the CLI, the service and the evaluation harness read and write
exactly these models, so a results file written by one can be opened by the others. The shape is versioned
(``schema_version``); :mod:`factdebate.core.schema` brings older records to the current version."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from factdebate.core.deviations import Deviation
from factdebate.core.schema import SCHEMA_VERSION, upgrade
from factdebate.util.textsafe import safe_text


class Label(StrEnum):
    SUPPORTS = "SUPPORTS"
    REFUTES = "REFUTES"
    NOT_ENOUGH_INFO = "NOT ENOUGH INFO"
    # AVeriTeC's fourth label, offered only on a four-label task (core/claim_context.py's ``four_labels``):
    # the guard, ``verify`` and every three-label dataset never see it.
    CONFLICTING = "CONFLICTING EVIDENCE/CHERRYPICKING"


# The three labels every task but a four-label one offers, in table order.
THREE_LABELS: tuple[Label, ...] = (Label.SUPPORTS, Label.REFUTES, Label.NOT_ENOUGH_INFO)


# Other spellings of the labels in files written elsewhere (a dataset's gold labels, another tool's results),
# upper case, spaces as "_"; the web page's results viewer reads them from the service (GET /v1/views).
LABEL_ALIASES: dict[str, Label] = {
    "SUPPORTED": Label.SUPPORTS, "SUPPORT": Label.SUPPORTS, "TRUE": Label.SUPPORTS,
    "REFUTED": Label.REFUTES, "REFUTE": Label.REFUTES, "FALSE": Label.REFUTES,
    "NEI": Label.NOT_ENOUGH_INFO, "NOT_ENOUGH_INFO": Label.NOT_ENOUGH_INFO, "NOTENOUGHINFO": Label.NOT_ENOUGH_INFO,
    "CONFLICTING": Label.CONFLICTING, "CONFLICTING_EVIDENCE": Label.CONFLICTING, "CHERRYPICKING": Label.CONFLICTING,
    "CONFLICTING_EVIDENCE_CHERRYPICKING": Label.CONFLICTING,
}


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
    # Calls of speculative work that was discarded, any method's (methods/kit/speculation.py): not in llm_calls.
    speculative_calls: int = 0
    speculative_tokens: int = 0
    # Of completion_tokens, those a reasoning model spent thinking before it answered (OpenAI's o-series, GPT-5).
    reasoning_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.llm_calls += other.llm_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.tool_calls += other.tool_calls
        self.seconds += other.seconds
        self.cached_calls += other.cached_calls
        self.speculative_calls += other.speculative_calls
        self.speculative_tokens += other.speculative_tokens
        self.reasoning_tokens += other.reasoning_tokens


class ModelUsage(BaseModel):
    """What one model was asked to do in a run, for pricing it at its own rate (``factdebate compare
    --price``). Calls cancelled in flight count in ``speculative_calls`` with no tokens."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0  # of completion_tokens
    cached_calls: int = 0  # answered from the response cache (their tokens are those the answer first cost)
    speculative_calls: int = 0
    speculative_prompt_tokens: int = 0
    speculative_completion_tokens: int = 0

    def add(self, other: ModelUsage) -> None:
        for name in type(self).model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def discarded(self) -> ModelUsage:
        """This usage as the work of a discarded speculation: every call and token speculative."""
        return ModelUsage(speculative_calls=self.llm_calls + self.speculative_calls,
                          speculative_prompt_tokens=self.prompt_tokens + self.speculative_prompt_tokens,
                          speculative_completion_tokens=self.completion_tokens + self.speculative_completion_tokens)


def add_model_usage(into: dict[str, ModelUsage], usage: dict[str, ModelUsage]) -> None:
    for model, used in usage.items():
        into.setdefault(model, ModelUsage()).add(used)


class ReplyCounts(BaseModel):
    """How the replies of one kind (``what`` in ``llm.ask``) went: asked, re-asked, recovered or lost."""

    asked: int = 0
    reasked: int = 0
    recovered: int = 0
    lost: int = 0
    # These three are left out of a dump while zero. Replies that stopped at their token limit:
    cut: int = 0
    # Replies whose free field only echoed the prompt (dropped: methods/kit/fields.free_field), or whose
    # reasoning repeated its instructions (asked again: methods/kit/common.read_answer):
    echoed: int = 0
    # A tool-using agent's repeated actions, not run again:
    repeated: int = 0

    @model_serializer(mode="wrap")
    def _cut_when_any(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for rare in ("cut", "echoed", "repeated"):
            if not data.get(rare):
                data.pop(rare, None)
        return data

    def add(self, other: ReplyCounts) -> None:
        self.asked += other.asked
        self.reasked += other.reasked
        self.recovered += other.recovered
        self.lost += other.lost
        self.cut += other.cut
        self.echoed += other.echoed
        self.repeated += other.repeated


def add_reply_counts(into: dict[str, ReplyCounts], counts: dict[str, ReplyCounts]) -> None:
    for what, count in counts.items():
        into.setdefault(what, ReplyCounts()).add(count)


class Step(BaseModel):
    """One thought → tool call → observation of a tool-using agent (ReAct, MERMAID's executor)."""

    thought: str = ""
    tool: str  # the tool's name, "finish" for the closing action, "" when the reply named no valid action
    arguments: dict[str, Any] = Field(default_factory=dict)
    observation: str = ""
    evidence: list[Document] = Field(default_factory=list)
    # The earlier step whose action this one repeated, so it was not run again; left out of a dump while None.
    repeats: int | None = Field(default=None, exclude_if=lambda value: value is None)


class Turn(BaseModel):
    """One agent's contribution in one round. ``scores`` is open; ``None`` means "could not be scored" (with
    ``score_errors`` saying why), and a score never computed is absent."""

    agent: str
    role: str = "debater"
    team: str | None = None  # DPD's affirmative/negative teams; None: no teams
    tool: str = "none"
    query: str | None = None
    query_changed: bool | None = None
    # The part of the claim this turn checked, where a method splits it (FacTool); None: the verdict's claim,
    # and left out of a dump.
    claim: str | None = Field(default=None, exclude_if=lambda value: value is None)
    evidence: list[Document] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)
    response: str = ""
    label: Label | None = None  # None: no parseable label (never counted as consensus)
    parse_retries: int = 0
    scores: dict[str, float | None] = Field(default_factory=dict)
    # The label came from an answer the backend held to a label format (grammar, schema or choices);
    # None: unknown (files written before this field) or no label.
    label_constrained: bool | None = None
    score_errors: list[str] = Field(default_factory=list)

    @property
    def faithfulness(self) -> float | None:
        return self.scores.get("faithfulness")

    @property
    def answer_relevance(self) -> float | None:
        return self.scores.get("answer_relevance")

    @property
    def consistency(self) -> float | None:
        return self.scores.get("consistency")


class Judgement(BaseModel):
    """A decision over others' answers: a final judge, one of a panel (DPD), or a per-round moderator (MAD).
    ``vote`` is ``None`` when the judge abstained (``parsed`` true) or could not be read (``parsed`` false)."""

    agent: str = "judge"
    role: str = "judge"
    response: str = ""
    vote: Label | None = None
    confidence: float | None = None
    weight: float = 1.0
    parsed: bool = True
    parse_retries: int = 0
    label_constrained: bool | None = None  # as in Turn
    # A panel judge's scores of each side, "<side>.<dimension>" in [0, 1] (DPD: affirmative.E ...).
    scores: dict[str, float] = Field(default_factory=dict)

    @property
    def label(self) -> Label | None:
        """The vote (the name of this field before schema 2)."""
        return self.vote


JudgeDecision = Judgement  # the name before schema 2, kept for importers


class VerdictWarning(BaseModel):
    """One caution about a verdict that still stands, with a code (``embedded_model``, ``scripted_model``,
    ``memory_write``, ``two_labels``); a plain sentence is read as ``note``."""

    code: str
    message: str
    model: str | None = None  # the model it is about, for the model cautions

    def __str__(self) -> str:
        return self.message


def read_warnings(value: Any) -> Any:
    """A verdict's ``warnings`` as given: each plain sentence (an older record's) becomes a ``note``."""
    if isinstance(value, list):
        return [VerdictWarning(code="note", message=w) if isinstance(w, str) else w for w in value]
    return value


class Round(BaseModel):
    round: int
    turns: list[Turn] = Field(default_factory=list)
    judges: list[Judgement] = Field(default_factory=list)  # per-round decisions (MAD's moderator)


class Verdict(BaseModel):
    schema_version: int = SCHEMA_VERSION
    claim: str
    method: str
    label: Label | None  # None only when even the final decision had no parseable label
    # How the label was reached. Open: consensus, judge, single, vote, moderator, panel...; "unparsed"
    # whenever ``label`` is None, for every method.
    decided_by: str
    rounds: list[Round] = Field(default_factory=list)
    judges: list[Judgement] = Field(default_factory=list)  # the final decision-makers, if any
    explanation: str = ""  # how the decision was reached when no judge wrote it (a vote tally, say)
    usage: Usage = Field(default_factory=Usage)
    usage_by_role: dict[str, Usage] = Field(default_factory=dict)
    # The same calls by the model that answered them (the settings' name for it: ``openai:gpt-4o-mini``).
    usage_by_model: dict[str, ModelUsage] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    unparsed_turns: int = 0
    # Every reply a parser read, by what was asked: re-asked, recovered, lost (llm/ask.py).
    parse_counts: dict[str, ReplyCounts] = Field(default_factory=dict)
    # A judge panel's agreement with its final outcome (DPD's confidence-weighted consensus); None: no panel.
    consensus: float | None = None
    error: str | None = None
    # What to be wary of in a verdict that still stands, each with a code (VerdictWarning): the model that
    # answered is the embedded one or a script, an evidence-memory write that failed (MERMAID).
    warnings: list[VerdictWarning] = Field(default_factory=list)
    # Where the settings this verdict ran with differ from the method's paper (Method.paper_deviations).
    deviations: list[Deviation] = Field(default_factory=list)
    # Whether the tools the method's paper pits against each other read different evidence (Tool-MAD's RAG
    # and search agents, DPD's gatherers' tools); False when two read the same corpus; None: nothing to compare.
    tools_heterogeneous: bool | None = None

    @field_validator("warnings", mode="before")
    @classmethod
    def plain_warnings(cls, value: Any) -> Any:
        return read_warnings(value)

    @property
    def judge(self) -> Judgement | None:
        """The last final judge (the only one for every method but a panel)."""
        return self.judges[-1] if self.judges else None

    @staticmethod
    def upgraded(record: dict[str, Any]) -> dict[str, Any]:
        """A copy of ``record`` (a verdict of any schema version, or a results-file row holding one) in the current
        schema; a record factdebate did not write is an ``InputError`` (:func:`factdebate.core.schema.upgrade`)."""
        return upgrade(record)

    @classmethod
    def read(cls, record: dict[str, Any]) -> Verdict:
        """A verdict of any schema version (a results row's other fields, such as ``gold``, are left out)."""
        data = upgrade(record)
        return cls.model_validate({k: v for k, v in data.items() if k in cls.model_fields})

    @property
    def reasons(self) -> str:
        """The text that justified the final label: the judge's answer, the explanation, or the last turn."""
        if self.judges:
            return self.judges[-1].response
        if self.explanation:
            return self.explanation
        if self.rounds and self.rounds[-1].turns:
            return self.rounds[-1].turns[0].response
        return ""


class ClaimExtraction(BaseModel):
    """The atomic claims a response was split into. ``parsed`` false: the extractor's reply could not be read
    even after one re-ask; ``claims`` is then empty and ``raw`` keeps the last reply."""

    claims: list[str] = Field(default_factory=list)
    source: str = "extracted"  # "extracted" by the model, or "given" (a dataset's own atomic claims)
    parsed: bool = True
    parse_retries: int = 0
    raw: str = ""
    # The subjective filter: None when it did not run; True when ``checked_text`` is what claims were taken
    # from; False when it could not be read and the whole response was used.
    subjective_removed: bool | None = None
    checked_text: str | None = None
    # Claims the extractor wrote that were not taken from the text (response_level/grounding.py): not checked.
    ungrounded: list[str] = Field(default_factory=list)
    # For each of ``claims`` (and ``ungrounded``), the numbers, from 1, of the sentences it was drawn from;
    # empty where the extractor did not say, and for given claims.
    sentences: list[list[int]] = Field(default_factory=list)
    ungrounded_sentences: list[list[int]] = Field(default_factory=list)
    # The numbers of the sentences whose claims the extraction's limit may have cut short (response_level/room.py).
    cut: list[int] = Field(default_factory=list)


class Span(BaseModel):
    """Character offsets into a checked text: ``text[start:end]`` is where a claim is said."""

    model_config = ConfigDict(extra="forbid")

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class ClaimCheck(BaseModel):
    """One atomic claim of a response and its own verdict (``None`` on an error); ``span``: where the response
    says it (``None`` with ``span_note`` when it cannot be found)."""

    index: int
    claim: str
    span: Span | None = None
    span_note: str | None = None
    label: Label | None = None
    verdict: Verdict | None = None
    gold: str | None = None  # a dataset's label for this claim, when it has one
    error: str | None = None


class UncheckedSentence(BaseModel):
    """A sentence of a checked response that no claim covers, and why (``reason``: the list in
    response_level/unchecked.py). ``note``: the dropped claim, for ``ungrounded``. ``partly``: some of the
    sentence was checked (``partly checked`` or ``claim limit``: ``note`` lists the claims kept, " / " between
    them)."""

    span: Span
    text: str
    reason: str
    note: str | None = None
    partly: bool = False


class ResponseVerdict(BaseModel):
    """The verdict on a whole response: REFUTES as soon as one claim is false, SUPPORTS when every claim is
    supported. ``decided_by``: ``any-false``, ``all-true``, ``unverified``, ``no-claims`` or ``unparsed``
    (response_level/aggregate.py)."""

    schema_version: int = SCHEMA_VERSION
    kind: str = "response"
    response: str
    question: str | None = None
    method: str
    label: Label | None
    factual: bool | None = None  # True: SUPPORTS, False: REFUTES, None: neither
    decided_by: str
    extraction: ClaimExtraction = Field(default_factory=ClaimExtraction)
    claims: list[ClaimCheck] = Field(default_factory=list)
    # The response's sentences no claim covers, each with why (an extraction that could not be read: none).
    unchecked: list[UncheckedSentence] = Field(default_factory=list)
    # How many sentences the response has ("12 of 160 sentences checked"); None for given claims.
    sentences: int | None = None
    usage: Usage = Field(default_factory=Usage)
    usage_by_role: dict[str, Usage] = Field(default_factory=dict)
    # The same calls by the model that answered them (the settings' name for it: ``openai:gpt-4o-mini``).
    usage_by_model: dict[str, ModelUsage] = Field(default_factory=dict)
    # The extraction's replies and every claim's, by what was asked (as in Verdict).
    parse_counts: dict[str, ReplyCounts] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    # The model cautions of the claims' verdicts and the extraction's (Verdict.warnings' codes): the
    # embedded model's labels or a script's are no finding about the answer.
    warnings: list[VerdictWarning] = Field(default_factory=list)
    @field_validator("warnings", mode="before")
    @classmethod
    def plain_warnings(cls, value: Any) -> Any:
        return read_warnings(value)
