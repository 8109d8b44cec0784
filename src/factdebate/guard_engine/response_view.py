"""A guard check read as check-response's verdict: every door of check-response runs the guard's check under
check-response's policy (guard_engine/response_check.py) and gives its ``GuardResult`` as a
:class:`~factdebate.core.types.ResponseVerdict`, read here with the result's
:class:`~factdebate.guard_engine.types.CheckRecord`.

``factdebate.check_response``'s old ``tier=`` and ``deadline_s=`` still run for one release (docs/guard.md); their
result keeps no record. A claim the deadline left undecided is unlabelled, its sentence in ``unchecked`` with
the reason; the policy's text and the corrections are ``factdebate.guard``'s to give."""

from __future__ import annotations

from factdebate.core.types import ClaimCheck, ClaimExtraction, ResponseVerdict, UncheckedSentence, Usage, Verdict
from factdebate.guard_engine.types import CheckRecord, GuardClaim, GuardResult
from factdebate.response_level.aggregate import factual, response_label


def response_verdict(result: GuardResult) -> ResponseVerdict:
    """``result`` as check-response's verdict; undecided claims' sentences go in ``unchecked``."""
    if result.record is not None:
        return _recorded(result, result.record)
    checks = [ClaimCheck(index=c.index, claim=c.claim, span=c.span, span_note=c.span_note, label=c.label,
                         error=c.reason if c.status == "error" else None) for c in result.claims]
    unchecked = [UncheckedSentence(span=s.span, text=s.text, reason=s.reason) for s in result.skipped]
    for claim in result.claims:
        if claim.status == "unchecked" and claim.span is not None:
            text = result.original_text[claim.span.start:claim.span.end]
            unchecked.append(UncheckedSentence(span=claim.span, text=text, reason=claim.reason or "unchecked",
                                               note=claim.claim))
    unchecked.sort(key=lambda sentence: sentence.span.start)
    extracted = not result.degraded
    label, decided_by = response_label([c.label for c in checks], extracted=extracted)
    usage = Usage(llm_calls=result.usage.model_calls, cached_calls=result.usage.cached_calls,
                  tool_calls=result.usage.tool_calls, seconds=result.usage.seconds)
    return ResponseVerdict(response=result.original_text, question=result.question, method=result.method or "",
                           label=label, factual=factual(label), decided_by=decided_by,
                           extraction=ClaimExtraction(claims=[c.claim for c in result.claims], parsed=extracted),
                           claims=checks, unchecked=unchecked, sentences=result.sentences, usage=usage,
                           error=result.degraded_reason, warnings=list(result.warnings))


def claim_check(claim: GuardClaim, verdict: Verdict | None = None, gold: str | None = None) -> ClaimCheck:
    """One claim as check-response gives it, with the method's whole verdict where it was kept."""
    return ClaimCheck(index=claim.index, claim=claim.claim, span=claim.span, span_note=claim.span_note,
                      label=claim.label, verdict=verdict, gold=gold,
                      error=claim.reason if claim.status == "error" else None)


def _recorded(result: GuardResult, record: CheckRecord) -> ResponseVerdict:
    """``result`` under check-response's policy as its verdict, the rest read from its record."""
    checks = [claim_check(c, record.verdicts.get(c.index), record.golds.get(c.index)) for c in result.claims]
    return ResponseVerdict(response=result.original_text, question=result.question, method=result.method or "",
                           label=result.label, factual=factual(result.label), decided_by=record.decided_by,
                           extraction=record.extraction, claims=checks, unchecked=list(record.unchecked),
                           sentences=result.sentences, usage=record.usage, usage_by_role=record.usage_by_role,
                           usage_by_model=record.usage_by_model, parse_counts=record.parse_counts,
                           config=dict(record.config), warnings=list(result.warnings))
