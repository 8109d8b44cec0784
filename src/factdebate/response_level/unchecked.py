"""The sentences of a checked response that no claim covers, each with why it was not checked, so that a
reader sees what the verdict says nothing about (issue 40: an opinion or a greeting the extractor dropped
used to leave its sentence unmarked, as if it had been checked).

A sentence is covered when a claim was placed in it (its span) or when the claims hold most of its content
words (a reworded claim the span search could not place). The reason of one that is not, first that
applies: the worthiness rules' (``question``, ``greeting``, ``instruction``, ``opinion``, ``no content``);
``subjective`` when DPD's subjective filter removed it; ``opinion`` by the grounding rules (advice, judging
words); ``ungrounded`` when the extractor wrote a claim for it that named what the text does not (the
claim is the note); ``claim limit`` when the response already had as many claims as it may; else
``no fact`` (no name or number to check).
"""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.types import ClaimExtraction, Span, UncheckedSentence
from factdebate.response_level.grounding import content_words, is_opinion
from factdebate.response_level.spans import TextIndex, find_span, sentences
from factdebate.response_level.worthiness import reason_to_skip

COVERED = 0.6  # share of a sentence's content words the claims must hold for it to count as checked


def _covered(start: int, end: int, text: str, spans: Sequence[Span | None], claim_words: set[str]) -> bool:
    if any(s is not None and s.start < end and start < s.end for s in spans):
        return True
    words = content_words(text[start:end])
    return bool(words) and len(words & claim_words) / len(words) >= COVERED


def _dropped_here(start: int, end: int, dropped: Sequence[tuple[str, Span | None]]) -> str | None:
    """The extractor's dropped claim that was taken from this sentence, if any."""
    for claim, place in dropped:
        if place is not None and place.start < end and start < place.end:
            return claim
    return None


def unchecked_sentences(text: str, claims: Sequence[str], spans: Sequence[Span | None],
                        extraction: ClaimExtraction, max_claims: int) -> list[UncheckedSentence]:
    """Every sentence of ``text`` that none of ``claims`` (placed at ``spans``) covers, with its reason (see
    the module docstring). None for an extraction that could not be read: then nothing was checked at all,
    which the verdict already says."""
    if not extraction.parsed:
        return []
    claim_words = set().union(*(content_words(c) for c in claims)) if claims else set()
    kept = extraction.checked_text if extraction.subjective_removed else None
    index = TextIndex(text)  # read once for every dropped claim, not once per sentence and claim
    dropped = [(claim, find_span(claim, text, index=index)[0]) for claim in extraction.ungrounded]
    out = []
    for start, end in sentences(text):
        if _covered(start, end, text, spans, claim_words):
            continue
        sentence = text[start:end]
        note = None
        reason = reason_to_skip(sentence)
        if reason is None and kept is not None and sentence.strip() not in kept:
            reason = "subjective"
        if reason is None and is_opinion(sentence):
            reason = "opinion"
        if reason is None and (note := _dropped_here(start, end, dropped)) is not None:
            reason = "ungrounded"
        if reason is None:
            reason = "claim limit" if len(claims) >= max_claims else "no fact"
        out.append(UncheckedSentence(span=Span(start=start, end=end), text=sentence, reason=reason, note=note))
    return out
