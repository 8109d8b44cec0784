"""The guard's contract: what a face hands the checking module and what it gets back.

A face turns its request into :class:`GuardOptions` (checked here, with the same bounds for every face),
:meth:`GuardOptions.resolve` applies the operator's defaults and caps, and
:func:`factdebate.guard_engine.check.check_text` (or :class:`factdebate.guard_engine.stream.StreamingCheck`
while an answer is still arriving) returns a :class:`GuardResult`: each claim's place, verdict, deciding tier,
evidence and correction, and the text the client gets once the policy is applied. A claim that could not be
decided is ``unchecked``, never supported; a text whose claims were not extracted in time is ``degraded``. The
entry points, with ``evidence_from_messages`` and ``with_conversation``, are importable from
:mod:`factdebate.guard_engine`."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from factdebate.core.types import (  # Span: the offsets /v1/check-response gives too
    ClaimExtraction,
    Document,
    Label,
    ModelUsage,
    ReplyCounts,
    Span,
    UncheckedSentence,
    Usage,
    Verdict,
    VerdictWarning,
)
from factdebate.corpus.chunking import chunk_text
from factdebate.util.errors import InputError
from factdebate.util.textsafe import unsafe_reason

if TYPE_CHECKING:
    from factdebate.settings.model import Settings

Policy = Literal["annotate", "flag", "hold", "rewrite", "block"]
Tier = Literal["fast", "standard", "deep"]
EvidenceMode = Literal["given", "both", "retrieved"]
OnUnchecked = Literal["pass", "block"]
OnNotEnoughInfo = Literal["pass", "flag", "block"]
# What the caller asked the answer to be: "json" for a chat request's response_format json_object or json_schema,
# whose text no policy may turn into something that is not JSON (guard_engine/policy.py).
AnswerFormat = Literal["text", "json"]
ActionTaken = Literal["none", "annotated", "flagged", "held", "rewritten", "blocked"]
ClaimStatus = Literal["checked", "unchecked", "error"]

TIERS: tuple[Tier, ...] = ("fast", "standard", "deep")  # cheapest first: a claim escalates along this order

# Hard bounds of one evidence item, whatever the operator allows (guard.max_evidence_chars bounds the total).
MAX_TITLE_CHARS = 300
MAX_URL_CHARS = 2000
MAX_EVIDENCE_TEXT_CHARS = 200_000
MAX_QUESTION_CHARS = 20_000  # the question a caller names (the extractor reads its last response.max_question_chars)


def _clean(value: str, what: str) -> str:
    if reason := unsafe_reason(value):
        raise ValueError(f"the {what} cannot be used: {reason}")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GuardEvidence(_Strict):
    """One passage the bot itself used (a retrieved chunk, a tool result, a document)."""

    title: str = Field(default="", max_length=MAX_TITLE_CHARS, description="Where the passage comes from.")
    text: str = Field(min_length=1, max_length=MAX_EVIDENCE_TEXT_CHARS, description="The passage itself.")
    url: str | None = Field(default=None, max_length=MAX_URL_CHARS, description="Its address, if it has one.")

    @field_validator("title", "text", "url")
    @classmethod
    def _safe(cls, value: str | None, info: object) -> str | None:
        if value is None:
            return None
        name = getattr(info, "field_name", "field")
        value = _clean(value, f"evidence {name}")
        if name == "text" and not value.strip():
            raise ValueError("the evidence text is empty")
        return value

    def passages(self, number: int) -> list[Document]:
        """This item as one passage or, when long, several (every word kept, in order), titled by it;
        ``number``: its place among the items (guard_engine/evidence.py's ``passages``)."""
        title = self.title.strip() or f"given evidence {number}"
        pieces = chunk_text(self.text) or [self.text.strip()]
        return [Document(id=f"given-{number}" + (f".{part}" if len(pieces) > 1 else ""), title=title, text=text,
                         source=self.url or "given") for part, text in enumerate(pieces, start=1)]


class GivenEvidence(BaseModel):
    """The caller's own passages and how a check reads them: the guard's options and the service's claim and
    answer checks take these two fields alike. ``MAX_EVIDENCE_ITEMS`` bounds a request's list before the
    operator's ``guard.max_evidence_items`` does. No config of its own: a request model that mixes it in keeps
    its own (the claim's options accept the options of methods registered later)."""

    MAX_EVIDENCE_ITEMS: ClassVar[int] = 500

    evidence: list[GuardEvidence] | None = Field(
        default=None, max_length=MAX_EVIDENCE_ITEMS,
        description="Passages the caller already has (a RAG bot's retrieved chunks, tool results, documents), "
                    "each {title, text, url}, read before any retrieval and ranked for each query; long ones are "
                    "split into passages, never cut. At most guard.max_evidence_items items and "
                    "guard.max_evidence_chars characters in all.")
    evidence_mode: EvidenceMode | None = Field(
        default=None, description="given: only the evidence sent; both (the default when evidence is sent): it "
                                  "first, then the configured retrieval; retrieved: ignore it.")

    def applied(self, settings: Settings) -> tuple[Settings, list[Document] | None]:
        """``settings`` serving these passages to a claim's or an answer's check (``retrieval.evidence`` set to
        the mode, for this check only: the given-evidence tool reads them, with ``both`` before the configured
        retrieval), and the passages, split (None when none were sent, or ``retrieved`` ignores them). Raises
        ``InputError`` for passages beyond the operator's bounds, or ``given`` without any."""
        if not self.evidence and self.evidence_mode is None:
            return settings, None
        resolved = GuardOptions(evidence=self.evidence, evidence_mode=self.evidence_mode).resolve(settings)
        if resolved.evidence_mode == "retrieved":
            return settings, None
        retrieval = settings.retrieval.model_copy(update={"evidence": resolved.evidence_mode})
        return settings.model_copy(update={"retrieval": retrieval}), resolved.passages()


class GuardOptions(GivenEvidence):
    """What a caller may choose per request (all optional: ``None`` takes the operator's default).
    ``MAX_EVIDENCE_ITEMS`` and ``CONVERSATION_ID_PATTERN`` are a request's bounds, for a door that reads them
    outside these options too (a form's evidence list, a conversation named in a URL)."""

    model_config = ConfigDict(extra="forbid")
    CONVERSATION_ID_PATTERN: ClassVar[str] = r"^[A-Za-z0-9._:-]{1,128}$"

    policy: Policy | None = Field(default=None, description="annotate, flag, hold, rewrite or block (default: the "
                                  "operator's guard.policy, flag unless set).")
    deadline_s: float | None = Field(default=None, gt=0, description="Seconds to decide every claim; a service's "
                                     "caller lowers, never raises, the operator's guard.max_deadline_s (a Python "
                                     "caller's own check has it, up to 3600).")
    tier: Tier | None = Field(default=None, description="fast (one call per claim), standard (one debate round) "
                              "or deep (the full method); never above guard.max_tier.")
    max_tier: Tier | None = Field(default=None, description="The highest tier a claim may climb to (its cost's cap): "
                                  "lowers, never raises, the operator's guard.max_tier.")
    method: str | None = Field(default=None, max_length=64, description="The method of the standard and deep "
                               "tiers (default guard.method).")
    conversation_id: str | None = Field(default=None, pattern=CONVERSATION_ID_PATTERN,
                                        description="Shares evidence memory and model cache between the checks "
                                        "of one conversation (of one caller only).")
    on_unchecked: OnUnchecked | None = Field(default=None, description="pass (default): a reply with unchecked "
                                             "claims goes through, said so; block: it is refused.")
    question: str | None = Field(default=None, min_length=1, max_length=MAX_QUESTION_CHARS,
                                 description="The person's question the reply answers, when the conversation's "
                                 "last user turn is not it (default: read from the messages, "
                                 "guard_engine/messages.py).")
    # The conversation's tool results (set by the faces, never by a caller's JSON): never refused for size,
    # unlike ``evidence``, but ranked per claim and trimmed.
    _conversation: list[GuardEvidence] = PrivateAttr(default_factory=list)
    # The conversation's turns before the reply, (role, text), for the extractor (guard_engine/window.py).
    _dialogue: list[tuple[str, str]] = PrivateAttr(default_factory=list)
    # What the caller asked the answer to be (set by a face from its request, never by a caller's options).
    _answer_format: AnswerFormat = PrivateAttr(default="text")

    def with_answer_format(self, answer_format: AnswerFormat) -> GuardOptions:
        """These options for an answer asked for as ``answer_format`` (a chat request's ``response_format``)."""
        out = self.model_copy()
        out._answer_format = answer_format
        return out

    @field_validator("question")
    @classmethod
    def _question_text(cls, value: str | None) -> str | None:
        return None if value is None else _clean(value, "question")

    @field_validator("deadline_s")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("deadline_s must be a finite number of seconds")
        return value

    @field_validator("method")
    @classmethod
    def _method_text(cls, value: str | None) -> str | None:
        return None if value is None else _clean(value, "method")

    def deadline_within(self, settings: Settings) -> float:
        """The seconds a check of these options has: ``deadline_s`` when asked, else the operator's default
        (guard_engine/deadline.py: one that fits where the checker runs), never past ``guard.max_deadline_s``."""
        from factdebate.guard_engine.deadline import default_deadline_s

        asked = self.deadline_s if self.deadline_s is not None else default_deadline_s(settings)
        return min(asked, settings.guard.max_deadline_s)

    def resolve(self, settings: Settings) -> ResolvedGuardOptions:
        """These options within the operator's ``settings``: defaults from ``settings.guard``
        (:meth:`deadline_within` fits an unset deadline); a caller may lower the deadline, not raise it past the
        cap, nor ask for a tier above ``guard.max_tier`` (an ``InputError``)."""
        from factdebate.guard_engine.deadline import reads_in_process

        guard = settings.guard
        deadline = self.deadline_within(settings)
        local = reads_in_process(settings)
        tier = self.tier or (guard.tier if "tier" in guard.model_fields_set or not local else "fast")
        if TIERS.index(tier) > TIERS.index(guard.max_tier):
            raise InputError(f"tier '{tier}' is above what this server allows (guard.max_tier = "
                             f"{guard.max_tier}); ask for {' or '.join(TIERS[:TIERS.index(guard.max_tier) + 1])}")
        # A caller's max_tier caps the climb below the operator's (never above it): a tier asked above it is
        # refused, the operator's default tier is lowered to it.
        max_tier = TIERS[min(TIERS.index(self.max_tier or guard.max_tier), TIERS.index(guard.max_tier))]
        if self.tier is not None and TIERS.index(tier) > TIERS.index(max_tier):
            raise InputError(f"tier '{tier}' is above the max_tier '{max_tier}' asked for: ask for a tier at or "
                             "below it")
        tier = TIERS[min(TIERS.index(tier), TIERS.index(max_tier))]
        if local and self.max_tier is None and "max_tier" not in guard.model_fields_set:
            # An in-process checker's debate round did not end within the deadline, and read the evidence worse
            # than the fast tier (docs/guard.md, "What the guard catches").
            max_tier = tier
        evidence = list(self.evidence or [])
        if len(evidence) > guard.max_evidence_items:
            raise InputError(f"{len(evidence)} evidence passages sent; the limit is {guard.max_evidence_items} "
                             "(guard.max_evidence_items)")
        total = sum(len(item.text) + len(item.title) for item in evidence)
        if total > guard.max_evidence_chars:
            raise InputError(f"the evidence sent is {total} characters long; the limit is "
                             f"{guard.max_evidence_chars} (guard.max_evidence_chars): send the passages that "
                             "matter, they are ranked per claim")
        method = self.method or guard.method or settings.method
        from factdebate.methods.base import Method

        if method not in Method.registered():
            raise InputError(f"no method named '{method}'; methods: {', '.join(Method.registered())}")
        conversation = list(self._conversation)
        mode = self.evidence_mode or ("both" if evidence or conversation else "retrieved")
        if mode == "given" and not (evidence or conversation):
            raise InputError("evidence_mode 'given' needs evidence: send it as evidence: [{title, text, url}]")
        return ResolvedGuardOptions(policy=self.policy or guard.policy, deadline_s=deadline, tier=tier,
                                    max_tier=max_tier, method=method, evidence=evidence, evidence_mode=mode,
                                    conversation_id=self.conversation_id,
                                    on_unchecked=self.on_unchecked or guard.on_unchecked,
                                    question=self.question, conversation_evidence=conversation,
                                    dialogue=list(self._dialogue), on_not_enough_info=guard.on_not_enough_info,
                                    answer_format=self._answer_format)


class ResolvedGuardOptions(_Strict):
    """:class:`GuardOptions` with the operator's defaults and caps applied: every field has its value."""

    policy: Policy
    deadline_s: float
    tier: Tier
    max_tier: Tier
    method: str
    evidence: list[GuardEvidence]
    evidence_mode: EvidenceMode
    conversation_id: str | None
    on_unchecked: OnUnchecked
    question: str | None = None
    # ranked per claim (guard_engine/session.py)
    conversation_evidence: list[GuardEvidence] = Field(default_factory=list)
    dialogue: list[tuple[str, str]] = Field(default_factory=list)  # the turns before the reply (guard_engine/window.py)
    on_not_enough_info: OnNotEnoughInfo = "flag"  # the operator's guard.on_not_enough_info
    answer_format: AnswerFormat = "text"  # "json": the policy keeps the answer JSON (guard_engine/policy.py)

    def passages(self) -> list[Document]:
        """The caller's evidence as the passages a run is given (guard_engine/evidence.py's ``passages``)."""
        return [doc for number, item in enumerate(self.evidence, start=1) for doc in item.passages(number)]


class Correction(_Strict):
    """One sentence that would make a refuted claim true, grounded in a quoted passage."""

    text: str
    quote_source: str  # the quote it rests on


class ClaimEvidence(_Strict):
    title: str
    url: str | None = None
    quote: str
    injection: str | None = Field(default=None, description="The words of the passage that read as an "
                                  "instruction to the model (a prompt injection: core/injection.py), when it holds "
                                  "one. The passage was read as data, never obeyed; null when it holds none.")
    cited: bool = Field(default=False, description="Whether the verdict rests on this passage: the fast tier's "
                        "checker named it, or the debate's deciding answers cite it (by number, by a quoted "
                        "phrase or by six words in a row: guard_engine/citations.py). False: retrieved and read, not "
                        "cited; such a passage may be about something else entirely.")


class GuardClaim(_Strict):
    """One claim of the checked text. ``status``: checked (``label`` set by ``tier``), unchecked (no verdict
    in time, or an unreadable one: ``reason`` says which; never a label) or error (``reason``)."""

    index: int
    claim: str
    span: Span | None = None
    span_note: str | None = None  # why span is None
    sources: list[Span] = Field(default_factory=list, description="The sentences of the reply this claim was "
                                "drawn from, as the claim extractor said (its span lies in the first); empty when "
                                "the extractor did not say and the claim was placed by its words. A sentence a "
                                "claim was drawn from is covered by it.")
    label: Label | None = None
    decided_by: str | None = None
    tier: Tier | None = None  # the tier whose verdict this is
    evidence: list[ClaimEvidence] = Field(default_factory=list)
    correction: Correction | None = None
    correction_note: str | None = None  # why the checker's correction was not shown (its quote does not support it)
    status: ClaimStatus = "unchecked"
    reason: str | None = None

    def places(self) -> list[Span]:
        """Every place the claim is marked and withheld, in the text's order: its ``span`` and each sentence of
        ``sources`` the span does not reach (a claim drawn from a header row and the row below it, from two
        sentences, or from a sentence broken across lines is on each of them)."""
        own = [self.span] if self.span is not None else []
        others = [s for s in self.sources if not any(p.start < s.end and s.start < p.end for p in own)]
        return sorted([*own, *others], key=lambda s: s.start)

    def stance(self, evidence: ClaimEvidence) -> Literal["supports", "contradicts", "neither"]:
        """A quote's stance toward this claim, from the verdict that rests on it: a passage the verdict cites
        (guard_engine/citations.py) supports a SUPPORTED claim and contradicts a REFUTED one; one it does not cite
        was read, not relied on, and says nothing either way that the check found."""
        if not evidence.cited or self.status != "checked":
            return "neither"
        return "supports" if self.label == Label.SUPPORTS else "contradicts" if self.label == Label.REFUTES \
            else "neither"


class GuardUsage(_Strict):
    model_calls: int = 0  # calls sent to a model, retries and those the deadline cut included
    cached_calls: int = 0  # answers taken from the model cache: nothing sent, not in model_calls
    tool_calls: int = 0
    seconds: float = 0.0  # from the request's arrival on the service (guard_engine/clock.py)


class SkippedSentence(_Strict):
    """A sentence the check-worthiness step left out, and why: greeting, opinion, instruction, question..."""

    span: Span
    text: str
    reason: str


class CheckRecord(BaseModel):
    """What a check keeps beside its result for check-response's records, never part of the wire answer."""

    decided_by: str
    extraction: ClaimExtraction
    verdicts: dict[int, Verdict] = Field(default_factory=dict)  # by claim index; none for a claim that failed
    golds: dict[int, str] = Field(default_factory=dict)
    unchecked: list[UncheckedSentence] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    usage_by_role: dict[str, Usage] = Field(default_factory=dict)
    usage_by_model: dict[str, ModelUsage] = Field(default_factory=dict)
    parse_counts: dict[str, ReplyCounts] = Field(default_factory=dict)
    config: dict[str, object] = Field(default_factory=dict)


class GuardResult(_Strict):
    """The check of one text. ``text`` is what the client gets after the policy (``original_text`` as it was
    checked); ``passed_through`` names what was not checked at all (tool calls, non-text content)."""

    label: Label | None = None
    action_taken: ActionTaken = "none"
    action_reason: str | None = Field(default=None, description="Why the policy did not do what it names: a "
                                      "rewrite whose revision was not sent (it still states a refuted claim, "
                                      "could not be checked again, or none came) and what it became instead.")
    revision_claims: list[GuardClaim] = Field(default_factory=list, description="Under rewrite, the revision's "
                                              "own claims as they were checked again before it was sent.")
    check_id: str | None = None
    degraded: bool = False
    degraded_reason: str | None = None
    deadline_missed: bool = Field(default=False, description="Whether the deadline ended the check before it "
                                  "was done: the claims not extracted in time, or a claim left unchecked with no "
                                  "tier's verdict. A reply admitted and not checked within its deadline; its "
                                  "reasons say the same in words, this is what a program counts.")
    usage: GuardUsage = Field(default_factory=GuardUsage)
    claims: list[GuardClaim] = Field(default_factory=list)
    skipped: list[SkippedSentence] = Field(default_factory=list)
    passed_through: list[str] = Field(default_factory=list)
    evidence_dropped: int = Field(default=0, description="How many of the conversation's tool results were left "
                                  "out of a claim's check (the most for any claim) because they were over the "
                                  "evidence limits; each claim got those that share most words with it. Said in "
                                  "passed_through too.")
    policy: Policy = "flag"
    on_unchecked: OnUnchecked = "pass"
    on_not_enough_info: OnNotEnoughInfo = Field(default="flag", description="What a NOT ENOUGH INFO claim does "
                                                "(the operator's guard.on_not_enough_info): pass, flag (a footnote "
                                                "under flag and hold) or block (the reply is refused).")
    answer_format: AnswerFormat = Field(default="text", description="What the caller asked the answer to be: "
                                        "json (a chat request's response_format json_object or json_schema) "
                                        "or text. A JSON answer keeps its text under flag (the mark is "
                                        "action_taken, and the X-Factdebate-Action header of a whole answer); "
                                        "under hold one that states a refuted claim is refused whole, as "
                                        "under block; under rewrite a revision that is not JSON is not sent.")
    tier: Tier = "standard"
    deadline_s: float = 0.0
    original_text: str = ""
    text: str = ""
    sentences: int | None = Field(default=None, description="How many sentences (or lines) the checked text has "
                                  "(response_level/spans.py's split).")
    sentences_checked: int | None = Field(default=None, description="How many of them hold a checked claim: the "
                                          "rest were left out by the gate, the claim limit, the deadline or a "
                                          "degraded check ('3 of 8 sentences checked').")
    question: str | None = Field(default=None, description="The person's question the reply was read with (the "
                                 "option, or the conversation's last message from the person); null when none.")
    method: str | None = Field(default=None, description="The method of the standard and deep tiers (guard.method "
                               "or the option), which a claim the fast tier could not settle went up to.")
    models: list[str] = Field(default_factory=list, description="The models that answered for this check (the "
                              "extraction's, each tier's), as the settings name them: 'openai:gpt-4o-mini'.")
    warnings: list[VerdictWarning] = Field(default_factory=list, description="Cautions with a code a program can "
                                           "act on: 'embedded_model' (the embedded model answers near chance) or "
                                           "'scripted_model' (a script's answers): the labels are no finding.")
    # Check-response's records of this check (:class:`CheckRecord`), where the check kept them; never sent.
    _record: CheckRecord | None = PrivateAttr(default=None)

    @property
    def record(self) -> CheckRecord | None:
        return self._record

    def with_record(self, record: CheckRecord) -> GuardResult:
        self._record = record
        return self

    def with_caution(self, code: str, message: str, **update: object) -> GuardResult:
        """A copy with one more caution (``code``, ``message``) after its warnings, and the fields in ``update``."""
        return self.model_copy(update={**update, "warnings": [*self.warnings, VerdictWarning(code=code,
                                                                                         message=message)]})


# Asked for ``rewrite``: the answer and its refuted claims (with evidence and corrections) -> a revised answer.
Reviser = Callable[[str, list[GuardClaim]], Awaitable[str]]
# The model that wrote an answer, asked for its revision: the messages that follow the conversation (the answer,
# then what the check found: guard_engine/policy.py's revise_instruction) -> its revised answer.
Chat = Callable[[list[dict[str, str]]], Awaitable[str]]
