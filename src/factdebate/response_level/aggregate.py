"""The response's label from its claims' labels: one false claim makes the response false."""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.claim_context import THIRD_LABEL_ANSWER
from factdebate.core.types import Label, ResponseVerdict, Span, UncheckedSentence

# How each rule (a response verdict's ``decided_by``) reads, for the terminal and the web page (GET /v1/views).
RULES: dict[str, str] = {
    "any-false": "at least one claim is false",
    "all-true": "every claim is supported",
    "unverified": "no claim is false, but not every claim could be verified (in a two-label task: non-factual, "
                  "as it was not verified)",
    "no-claims": "no checkable claim was found in the answer (in a two-label task: factual, as no claim is false)",
    "unparsed": "no label: a claim without one might be the false one, or the claims could not be read",
}


def response_label(labels: Sequence[Label | None], *, extracted: bool = True,
                   binary: bool = False) -> tuple[Label | None, str]:
    """(label, decided_by). A REFUTES decides even when other claims have no label; otherwise an unlabelled
    claim might be the false one, so the response stays unlabelled (``unparsed``).

    No claims (``no-claims``) is NOT ENOUGH INFO, SUPPORTS in a two-label task (``binary``: a response is
    non-factual when a claim is found false, DPD Section 4.1). A NOT ENOUGH INFO claim and none false
    (``unverified``) is NOT ENOUGH INFO, REFUTES in a two-label task (core/claim_context.py)."""
    if not extracted:
        return None, "unparsed"
    if not labels:
        return (Label.SUPPORTS if binary else Label.NOT_ENOUGH_INFO), "no-claims"
    if any(label == Label.REFUTES for label in labels):
        return Label.REFUTES, "any-false"
    if any(label is None for label in labels):
        return None, "unparsed"
    if all(label == Label.SUPPORTS for label in labels):
        return Label.SUPPORTS, "all-true"
    return (Label(THIRD_LABEL_ANSWER) if binary else Label.NOT_ENOUGH_INFO), "unverified"


def factual(label: Label | None) -> bool | None:
    return {Label.SUPPORTS: True, Label.REFUTES: False}.get(label) if label is not None else None


def _tally(unchecked: Sequence[UncheckedSentence]) -> str:
    """Why ``unchecked`` were not (wholly) checked: "claim limit", or "147 claim limit, 1 greeting"."""
    why: dict[str, int] = {}
    for sentence in unchecked:
        # A partly checked sentence's own reason says only that: what it means here is said instead.
        reason = "a part left out" if sentence.reason == "partly checked" else sentence.reason
        why[reason] = why.get(reason, 0) + 1
    return next(iter(why)) if len(why) == 1 else ", ".join(
        f"{count} {reason}" for reason, count in sorted(why.items(), key=lambda item: -item[1]))


def _holds_a_claim(sentence: UncheckedSentence, places: Sequence[Span]) -> bool:
    return any(place.start < sentence.span.end and sentence.span.start < place.end for place in places)


def coverage_line(verdict: ResponseVerdict) -> str | None:
    """How much of the response its claims checked ("12 claims from 12 of 160 sentences; 148 not checked: 147
    claim limit, 1 greeting"); None when its sentences were not read. A sentence its claims check only in part
    is one the claims come from, named apart, never as checked ("2 claims from 2 of 2 sentences; 1 partly
    checked: claim limit"); so is one that holds a claim left unchecked (a guard's check read as a response's
    lists the sentence of a claim its deadline left undecided: "2 claims from 2 of 2 sentences; 1 not checked:
    deadline")."""
    if verdict.sentences is None:
        return None
    claims, total = len(verdict.extraction.claims), verdict.sentences
    places = [check.span for check in verdict.claims if check.span is not None]
    whole = [sentence for sentence in verdict.unchecked if not sentence.partly]
    partly = [sentence for sentence in verdict.unchecked if sentence.partly]
    # The sentences the claims come from: all but those listed whole that hold none of them.
    source = total - sum(not _holds_a_claim(sentence, places) for sentence in whole)
    line = (f"{claims} claim{'' if claims == 1 else 's'} from {source} of {total} "
            f"sentence{'' if total == 1 else 's'}; ")
    if not verdict.unchecked:
        return line + "every sentence checked"
    said = [f"{len(whole)} not checked: {_tally(whole)}"] if whole else []
    return line + "; ".join(said + ([f"{len(partly)} partly checked: {_tally(partly)}"] if partly else []))
