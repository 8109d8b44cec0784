"""Check-response as a policy of the one guard check: a whole text checked claim by claim with the configured
method and no deadline.

It is :class:`~factdebate.guard_engine.check.Check` with only the ``deep`` tier; what its readers get beyond
the guard's answer (each claim's whole verdict, the extraction, usage by role and model, the settings) is the
result's :class:`~factdebate.guard_engine.types.CheckRecord`, and ``ResponseVerdict`` is read from the two by
:func:`factdebate.guard_engine.response_view.response_verdict`.

Unlike the chat guard: a text that is not clean or longer than ``response.max_response_chars`` is refused
(``InputError``), not checked in part; every check-worthy sentence goes to the extractor and, with
``response.drop_subjective``, its subjective filter; a failed extraction is the check's error; a dataset's own
claims may be given instead; a refuted claim gets no correction; and an ``in_order`` method checks claims in
order in an evaluation."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from factdebate.core.claim_context import binary_task, current_position, given_evidence, sub_claim
from factdebate.core.events import ClaimsExtracted, ResponseJudged, ResponseStarted
from factdebate.core.runtime import EventSink, RunRecorder, charged, recording, span
from factdebate.core.types import (
    ClaimCheck,
    ClaimExtraction,
    Document,
    Label,
    ModelUsage,
    ResponseVerdict,
    Span,
    Usage,
    Verdict,
    add_model_usage,
    add_reply_counts,
)
from factdebate.guard_engine.check import Check, Shown, drawn_from, place_in, sentence_counts
from factdebate.guard_engine.gate import Sentence
from factdebate.guard_engine.response_view import claim_check, response_verdict
from factdebate.guard_engine.tiers import Progress
from factdebate.guard_engine.types import (
    CheckRecord,
    GuardClaim,
    GuardResult,
    GuardUsage,
    ResolvedGuardOptions,
    SkippedSentence,
)
from factdebate.llm.calls import counting
from factdebate.llm.near_chance import CLAIMS, model_warnings
from factdebate.methods.base import Method
from factdebate.methods.resources import Resources
from factdebate.response_level.aggregate import response_label
from factdebate.response_level.extract import aextract_claims
from factdebate.response_level.offload import read_text
from factdebate.response_level.recheck import relabelled, with_claim
from factdebate.response_level.spans import claim_spans, find_span, sentences
from factdebate.response_level.unchecked import unchecked_sentences
from factdebate.run.claim import public_config, run_claim
from factdebate.settings.model import Settings
from factdebate.util.textsafe import checked_input

UNREADABLE_EXTRACTION = "the claims could not be read from the extractor's reply"


def response_options(settings: Settings, question: str | None) -> ResolvedGuardOptions:
    """The check's options under this policy: the deep tier only, no deadline, no given evidence."""
    return ResolvedGuardOptions(policy="annotate", deadline_s=0.0, tier="deep", max_tier="deep", method=settings.method,
                                evidence=[], evidence_mode=settings.retrieval.evidence, conversation_id=None,
                                on_unchecked="pass", question=question)


def _context(context: str | None, settings: Settings) -> str | None:
    """What the response continues (a dialogue's history), checked as the response is; a blank one is none."""
    if context is None or not context.strip():
        return None
    return checked_input(context, what="context", empty="", limit=settings.response.max_response_chars,
                         setting="response.max_response_chars")


def _worthy(check: Check, text: str) -> Shown:
    """The check-worthy sentences of ``text`` as the extractor is given them, the others recorded as skipped."""
    worthy: list[Sentence] = check.skip(check.gate(text))
    return check.extractor_text(worthy, text, check.headings_in(0, len(text)))


async def _extract(check: Check, text: str, question: str | None, context: str | None,
                   given_claims: Sequence[str] | None) -> tuple[ClaimExtraction, Shown | None]:
    """The claims of ``text`` and what the extractor was shown of it (None: it was not asked)."""
    if given_claims is not None:
        return ClaimExtraction(claims=[c.strip() for c in given_claims if c.strip()], source="given"), None
    # Only the sentences the gate passes are extracted from; a long response is read in a worker thread.
    worthy = await read_text(len(text), _worthy, check, text)
    if not worthy.strip():
        return ClaimExtraction(), None  # nothing states a fact (greetings, questions): no extractor call
    cfg = check.settings.response
    with span("claims", "extraction"):
        return await aextract_claims(str(worthy), question=question, llm=check.context.resources.llm("extractor"),
                                     max_claims=cfg.max_claims, drop_subjective=cfg.drop_subjective, context=context,
                                     units=worthy.units), worthy


def _places(extraction: ClaimExtraction, shown: Shown | None, text: str) -> list[tuple[Span | None, str | None]]:
    """Each claim's place in ``text``: the sentence the extractor named, else where its words are."""
    found = claim_spans(extraction.claims, text)
    if shown is None or extraction.subjective_removed:  # the filter's text is not what was shown numbered
        return found
    out: list[tuple[Span | None, str | None]] = []
    for n, (claim, place) in enumerate(zip(extraction.claims, found, strict=True)):
        drawn = drawn_from(extraction.sentences[n] if n < len(extraction.sentences) else [], shown.sentences)
        out.append(place_in(claim, text, drawn, None) if drawn else place)
    return out


def _sources(extraction: ClaimExtraction, shown: Shown | None) -> list[list[Span]]:
    """The spans of the sentences each claim is drawn from (empty where the extractor did not say)."""
    if shown is None or extraction.subjective_removed:
        return [[] for _ in extraction.claims]
    return [[s.span for s in drawn_from(extraction.sentences[n] if n < len(extraction.sentences) else [],
                                         shown.sentences)] for n in range(len(extraction.claims))]


def _cut(extraction: ClaimExtraction, shown: Shown | None) -> list[Span]:
    """The spans of the sentences whose claims a limit of the extraction may have cut short."""
    if shown is None or extraction.subjective_removed:
        return []
    return [s.span for s in drawn_from(extraction.cut, shown.sentences)]


def _dropped(extraction: ClaimExtraction, shown: Shown | None) -> list[list[Span]]:
    """The spans of the sentences each dropped claim was drawn from (empty where the extractor did not say)."""
    if shown is None or extraction.subjective_removed:
        return [[] for _ in extraction.ungrounded]
    return [[s.span for s in drawn_from(numbers, shown.sentences)] for numbers in extraction.ungrounded_sentences]


async def _decide(check: Check, progress: Progress) -> Verdict | None:
    """One claim decided by the deep tier, and the method's whole verdict (None when its check failed)."""
    with sub_claim(progress.claim.index):
        await check.decide(progress)
    if progress.verdict is None:
        return None
    progress.verdict.config = {}  # the response's record holds the settings once
    return progress.verdict


def _total(recorder: RunRecorder, verdicts: Sequence[Verdict]) -> tuple[Usage, dict[str, Usage],
                                                                       dict[str, ModelUsage]]:
    """Extraction and claim usage, by role and by model; seconds are wall time (claims overlap)."""
    by_role: dict[str, Usage] = {role: u.model_copy() for role, u in recorder.usage_by_role.items()}
    by_model: dict[str, ModelUsage] = {model: u.model_copy() for model, u in recorder.usage_by_model.items()}
    for verdict in verdicts:
        for role, usage in verdict.usage_by_role.items():
            by_role.setdefault(role, Usage()).add(usage)
        add_model_usage(by_model, verdict.usage_by_model)
    total = Usage()
    for usage in by_role.values():
        total.add(usage)
    total.seconds = recorder.total().seconds
    return total, by_role, by_model


async def check_response_text(response: str, settings: Settings, resources: Resources, *,
                              question: str | None = None, given_claims: Sequence[str] | None = None,
                              gold_labels: Sequence[str | None] | None = None, sinks: list[EventSink] | None = None,
                              context: str | None = None) -> GuardResult:
    """Check ``response`` under check-response's policy. ``given_claims`` (with aligned ``gold_labels``) are
    checked instead of extracting; ``context`` (a dialogue's history) is read by the extractor only."""
    text, question = settings.response.checked_answer(response, question)
    context = _context(context, settings)
    check = Check(settings, resources, response_options(settings, question), question=question, sinks=sinks,
                  reviser=None, caller=None)
    check.asked = question is not None or context is not None  # a short answer is a statement in its context
    check.context.whole = True
    recorder = check.recorder
    with recording(recorder), charged(recorder), counting(check.calls):  # a failure carries the extraction's spend
        recorder.emit(ResponseStarted(response=text, question=question, method=settings.method))
        extraction, shown = await _extract(check, text, question, context, given_claims)
        recorder.emit(ClaimsExtracted(claims=extraction.claims, source=extraction.source, parsed=extraction.parsed,
                                      subjective_removed=extraction.subjective_removed,
                                      ungrounded=extraction.ungrounded))
        places = await read_text(len(text), _places, extraction, shown, text)  # offsets into ``text``
        sources = _sources(extraction, shown)
        check.progress = [Progress(GuardClaim(index=i, claim=claim, span=place, span_note=note, sources=sources[i]))
                          for i, (claim, (place, note)) in enumerate(zip(extraction.claims, places, strict=True))]
        work = [_decide(check, progress) for progress in check.progress]
        if current_position() is not None and Method.named(settings.method).in_order(settings):
            # In an evaluation, a method whose claims read what earlier ones left checks them in order.
            kept = [await one for one in work]
        else:
            kept = list(await asyncio.gather(*work))
        claims = [progress.final(timed_out=False) for progress in check.progress]
        verdicts = {claim.index: verdict for claim, verdict in zip(claims, kept, strict=True) if verdict is not None}
        unchecked = await read_text(len(text), unchecked_sentences, text, extraction.claims,
                                    [c.span for c in claims], extraction, settings.response.max_claims,
                                    asked=check.asked, sources=sources,
                                    dropped=_dropped(extraction, shown),
                                    cut=_cut(extraction, shown)) if extraction.source == "extracted" else []
        label, decided_by = response_label([c.label for c in claims], extracted=extraction.parsed,
                                           binary=binary_task())
        recorder.emit(ResponseJudged(label=label, decided_by=decided_by, claim_labels=[c.label for c in claims]))
        usage, by_role, by_model = _total(recorder, list(verdicts.values()))
        counts = {what: count.model_copy() for what, count in recorder.parse_counts.items()}
        for verdict in verdicts.values():
            add_reply_counts(counts, verdict.parse_counts)
    golds = list(gold_labels) if gold_labels is not None and given_claims is not None else []
    record = CheckRecord(decided_by=decided_by, extraction=extraction, verdicts=verdicts,
                         golds={i: gold for i, gold in enumerate(golds) if gold is not None and i < len(claims)},
                         unchecked=unchecked, usage=usage, usage_by_role=by_role, usage_by_model=by_model,
                         parse_counts=counts, config=public_config(settings))
    _, checked = sentence_counts(text, claims)
    return GuardResult(
        label=label, degraded=not extraction.parsed,
        degraded_reason=None if extraction.parsed else UNREADABLE_EXTRACTION,
        usage=GuardUsage(model_calls=check.calls.sent, cached_calls=check.calls.cached,
                         tool_calls=check.usage.tool_calls, seconds=usage.seconds),
        claims=claims, skipped=[SkippedSentence(span=s.span, text=s.text, reason=s.reason) for s in unchecked],
        policy="annotate", tier="deep", deadline_s=0.0, original_text=text, text=text,
        sentences=len(sentences(text)) if extraction.source == "extracted" else None,
        sentences_checked=checked if extraction.source == "extracted" else None, question=question,
        method=settings.method, models=check.models(), warnings=model_warnings(by_model, CLAIMS),
    ).with_record(record)


async def run_response(response: str, settings: Settings, resources: Resources, *, question: str | None = None,
                       given_claims: Sequence[str] | None = None, gold_labels: Sequence[str | None] | None = None,
                       sinks: list[EventSink] | None = None, context: str | None = None) -> ResponseVerdict:
    """:func:`check_response_text` read as a ``ResponseVerdict``, with already-built resources."""
    return response_verdict(await check_response_text(response, settings, resources, question=question,
                                                      given_claims=given_claims, gold_labels=gold_labels,
                                                      sinks=sinks, context=context))


class RecheckedClaim(ClaimCheck):
    """One claim of a checked answer checked again (:meth:`check`), and what it makes of the answer's verdict
    (response_level/recheck.py)."""

    @classmethod
    async def check(cls, response: str, index: int, claim: str, settings: Settings, resources: Resources, *,
                    sinks: list[EventSink] | None = None, given: Sequence[Document] | None = None) -> RecheckedClaim:
        """Claim ``index`` of an already-checked ``response`` checked again alone (``/v1/check-response/claim``),
        one claim decision of the same check; ``given``: the passages that came with it, as
        :func:`~factdebate.run.claim.run_claim` takes them."""
        if given is not None:
            with given_evidence(given):
                return await cls.check(response, index, claim, settings, resources, sinks=sinks)
        check = Check(settings, resources, response_options(settings, None), question=None, sinks=sinks,
                      reviser=None, caller=None)
        check.context.whole = True
        place, note = find_span(claim, response)
        progress = Progress(GuardClaim(index=index, claim=claim, span=place, span_note=note))
        with recording(check.recorder), counting(check.calls):
            verdict = await _decide(check, progress)
        checked = claim_check(progress.final(timed_out=False), verdict)
        return cls.model_construct(checked.model_fields_set, **dict(checked))

    def answer_label(self, labels: Sequence[Label | None]) -> tuple[Label | None, bool | None, str]:
        """The answer's label, whether it is factual, and the rule that decided it, from its claims' ``labels``
        (in claim order; empty: the answer is this one claim) with this claim's label in its place."""
        return relabelled(self, labels)

    def in_answer(self, verdict: ResponseVerdict) -> ResponseVerdict:
        """``verdict`` (changed in place and returned) with this check in its claim's place, its label worked
        out anew and what the new check spent added to its usage."""
        return with_claim(verdict, self)


class Runner:
    """The run layer and this check as the :class:`factdebate.methods.base.ClaimRunner` ``eval`` hands on."""

    async def claim(self, claim: str, settings: Settings, resources: Resources, *,
                    sinks: list[EventSink] | None = None) -> Verdict:
        return await run_claim(claim, settings, resources, sinks=sinks)

    async def response(self, response: str, settings: Settings, resources: Resources, *, question: str | None = None,
                       sinks: list[EventSink] | None = None, context: str | None = None) -> ResponseVerdict:
        return await run_response(response, settings, resources, question=question, sinks=sinks, context=context)


RUNNER = Runner()
