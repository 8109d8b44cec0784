"""A guard check read as check-response's verdict: ``factdebate.check_response`` returns a
:class:`~factdebate.core.types.ResponseVerdict` whatever it is given, and for one release its old ``tier=`` and
``deadline_s=`` (a check within a deadline, ``factdebate.guard``'s) still run, their ``GuardResult`` given in
that shape (docs/guard.md). What the shape has no field for is said where a reader looks: a claim the deadline
left undecided is an unlabelled claim and its sentence is in ``unchecked`` with the reason; the policy's text
and the corrections are ``factdebate.guard``'s to give."""

from __future__ import annotations

from factdebate.core.types import ClaimCheck, ClaimExtraction, ResponseVerdict, UncheckedSentence, Usage
from factdebate.guard.types import GuardResult
from factdebate.response_level.aggregate import factual, response_label


def response_verdict(result: GuardResult) -> ResponseVerdict:
    """``result`` as check-response's verdict: each claim with its label, span and (for an error) why; the
    sentences the gate left out, and those of undecided claims, in ``unchecked``; the label by the same rule."""
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
