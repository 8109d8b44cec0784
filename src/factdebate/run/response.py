"""Checking a whole response: extract its atomic claims, verify each with the configured method (any
registered plug-in), and call the response false as soon as one claim is false.

Each claim is verified by :func:`factdebate.run.claim.run_claim`, so it is one run of the trace with its own
verdict and usage, nested in a ``subclaim`` span of the response's run; the response's run holds the
extraction (``claims_extracted``) and the final ``response_verdict``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

from factdebate.core.claim_context import binary_task, current_position, sub_claim
from factdebate.core.errors import FactDebateError
from factdebate.core.events import ClaimsExtracted, ResponseJudged, ResponseStarted
from factdebate.core.runtime import EventSink, RunRecorder, charged, recording, span
from factdebate.core.textsafe import checked_input
from factdebate.core.types import (
    ClaimCheck,
    ClaimExtraction,
    ModelUsage,
    ResponseVerdict,
    Usage,
    Verdict,
    add_model_usage,
    add_reply_counts,
)
from factdebate.llm.near_chance import CLAIMS, model_warnings
from factdebate.methods.base import get_method
from factdebate.methods.resources import Resources
from factdebate.response_level.aggregate import factual, response_label
from factdebate.response_level.extract import aextract_claims
from factdebate.response_level.offload import read_text
from factdebate.response_level.spans import claim_spans, find_span, sentences
from factdebate.response_level.unchecked import unchecked_sentences
from factdebate.response_level.worthiness import worthy_text
from factdebate.run.claim import public_config, run_claim
from factdebate.settings.model import Settings


def validate_response(response: str, settings: Settings) -> str:
    return checked_input(response, what="response", empty="give the text to check",
                         limit=settings.response.max_response_chars, setting="response.max_response_chars")


def validate_question(question: str | None, settings: Settings) -> str | None:
    """The question a response answers goes into the extraction prompt: it is checked as the response is
    (clean text, bounded length); a missing or blank question is no question."""
    if question is None or (isinstance(question, str) and not question.strip()):
        return None
    return checked_input(question, what="question", empty="", limit=settings.response.max_question_chars,
                         setting="response.max_question_chars")


async def _check_claim(index: int, claim: str, settings: Settings, resources: Resources,
                       sinks: list[EventSink] | None, gate: asyncio.Semaphore, gold: str | None) -> ClaimCheck:
    async with gate:
        with sub_claim(index), span(f"claim {index + 1}", "subclaim", index=index, claim=claim[:300]):
            try:
                verdict = await run_claim(claim, settings, resources, sinks=sinks)
            except FactDebateError as exc:
                return ClaimCheck(index=index, claim=claim, gold=gold, error=str(exc))
    verdict.config = {}  # the response's record holds the settings once
    return ClaimCheck(index=index, claim=claim, label=verdict.label, verdict=verdict, gold=gold)


async def check_one_claim(response: str, index: int, claim: str, settings: Settings, resources: Resources, *,
                          sinks: list[EventSink] | None = None) -> ClaimCheck:
    """One claim of an already-checked ``response`` checked again on its own (a claim whose check failed,
    retried alone), placed in the response as :func:`run_response` places it."""
    recorder = RunRecorder(sinks, run_id=uuid.uuid4().hex[:12])
    with recording(recorder):
        check = await _check_claim(index, claim, settings, resources, sinks, asyncio.Semaphore(1), None)
    check.span, check.span_note = find_span(claim, response)
    return check


def _total(recorder: RunRecorder, verdicts: Sequence[Verdict]) -> tuple[Usage, dict[str, Usage],
                                                                       dict[str, ModelUsage]]:
    """Extraction usage plus every claim's, by role and by model; seconds are the response's wall time
    (claims overlap)."""
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


async def run_response(response: str, settings: Settings, resources: Resources, *, question: str | None = None,
                       given_claims: Sequence[str] | None = None, gold_labels: Sequence[str | None] | None = None,
                       sinks: list[EventSink] | None = None, context: str | None = None) -> ResponseVerdict:
    """Check ``response`` with already-built resources (what the CLI, the service and ``eval`` call).
    ``given_claims``: a dataset's own atomic claims, checked instead of extracting them (``gold_labels``,
    aligned with them, are copied into the result for claim-level metrics). ``context``: what the response
    continues (a dialogue's history), read by the claim extractor only."""
    text = validate_response(response, settings)
    question = validate_question(question, settings)
    if context is not None and context.strip():  # checked as the response is; a blank context is none
        context = checked_input(context, what="context", empty="", limit=settings.response.max_response_chars,
                                setting="response.max_response_chars")
    else:
        context = None
    cfg = settings.response
    asked = question is not None or context is not None  # a short answer is a statement in its question's context
    recorder = RunRecorder(sinks, run_id=uuid.uuid4().hex[:12])
    with recording(recorder), charged(recorder):  # a failure carries the extraction's spend
        recorder.emit(ResponseStarted(response=text, question=question, method=settings.method))
        if given_claims is not None:
            extraction = ClaimExtraction(claims=[c.strip() for c in given_claims if c.strip()], source="given")
        elif not (worthy := await read_text(len(text), worthy_text, text, asked=asked)).strip():
            extraction = ClaimExtraction()  # nothing states a fact (greetings, questions): no extractor call
        else:
            # Only the sentences the check-worthiness gate passes are extracted from, as in the guard (issue
            # 49, item 2): the others are listed in ``unchecked`` with the gate's reason.
            with span("claims", "extraction"):
                extraction = await aextract_claims(worthy, question=question, llm=resources.llm("extractor"),
                                                   max_claims=cfg.max_claims, drop_subjective=cfg.drop_subjective,
                                                   context=context)
        recorder.emit(ClaimsExtracted(claims=extraction.claims, source=extraction.source, parsed=extraction.parsed,
                                      subjective_removed=extraction.subjective_removed,
                                      ungrounded=extraction.ungrounded))
        golds = list(gold_labels) if gold_labels is not None and given_claims is not None else []
        gate = asyncio.Semaphore(cfg.claim_concurrency)
        work = [_check_claim(i, claim, settings, resources, sinks, gate, golds[i] if i < len(golds) else None)
                for i, claim in enumerate(extraction.claims)]
        if current_position() is not None and get_method(settings.method).in_order(settings):
            # In an evaluation, a method whose claims read what earlier ones left checks them in order.
            checks = [await check for check in work]
        else:
            checks = list(await asyncio.gather(*work))
        # A long response is read in a worker thread: the event loop answers other requests meanwhile.
        places = await read_text(len(text), claim_spans, [c.claim for c in checks], text)
        for check, (place, note) in zip(checks, places, strict=True):
            check.span, check.span_note = place, note  # offsets into the response as returned (``response``)
        unchecked = await read_text(len(text), unchecked_sentences, text, extraction.claims,
                                    [c.span for c in checks], extraction,
                                    cfg.max_claims, asked=asked) if extraction.source == "extracted" else []
        label, decided_by = response_label([c.label for c in checks], extracted=extraction.parsed,
                                           binary=binary_task())
        recorder.emit(ResponseJudged(label=label, decided_by=decided_by, claim_labels=[c.label for c in checks]))
        usage, by_role, by_model = _total(recorder, [c.verdict for c in checks if c.verdict is not None])
        counts = {what: count.model_copy() for what, count in recorder.parse_counts.items()}
        for check in checks:
            if check.verdict is not None:
                add_reply_counts(counts, check.verdict.parse_counts)
    return ResponseVerdict(response=text, question=question, method=settings.method, label=label,
                           factual=factual(label), decided_by=decided_by, extraction=extraction, claims=list(checks),
                           unchecked=unchecked,
                           sentences=len(sentences(text)) if extraction.source == "extracted" else None,
                           usage=usage, usage_by_role=by_role, usage_by_model=by_model,
                           parse_counts=counts, config=public_config(settings),
                           warnings=model_warnings(by_model, CLAIMS))


class Runner:
    """The run layer as a :class:`factdebate.methods.base.ClaimRunner` (what ``eval`` hands to methods)."""

    async def claim(self, claim: str, settings: Settings, resources: Resources, *,
                    sinks: list[EventSink] | None = None) -> Verdict:
        return await run_claim(claim, settings, resources, sinks=sinks)

    async def response(self, response: str, settings: Settings, resources: Resources, *, question: str | None = None,
                       sinks: list[EventSink] | None = None, context: str | None = None) -> ResponseVerdict:
        return await run_response(response, settings, resources, question=question, sinks=sinks, context=context)


RUNNER = Runner()
