"""The sentences of a checked response that no claim covers, each with why it was not checked, so that a
reader sees what the verdict says nothing about.

A sentence is covered only when a claim was drawn from it or placed in it. The reason of one that is not,
first that applies: the worthiness rules' (``question``, ``greeting``, ``instruction``, ``opinion``, ``no
content``); ``subjective`` (DPD's filter removed it); ``opinion`` by the grounding rules; ``ungrounded`` (its
claim named what the text does not); ``unplaced`` (a checked claim holds most of its words but could not be
placed in it); ``unresolved`` (a pronoun no claim resolved); ``repeated``; ``claim limit``; ``table header``;
else ``no claim``. Coverage fails closed.

A sentence with claims drawn from it or placed in it is covered only when they leave none of it out
(grounding.left_unsaid: a number it writes, or a joined part of it): an extractor may write one of the
sentence's two facts as a claim and leave the other ("It was finished in 1899 and is made of wrought iron."
with only the 1899 claim). Such a sentence is ``partly checked``, its note the claims checked of it. At the
claim limit, or when the call's limit may have cut the extraction short (response_level/room.py), its claims
must hold it (grounding.holds: most of its content words, each name and number), and one they do not is
``claim limit``, as the limit may have kept only some of the claims split from it."""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.types import ClaimExtraction, Span, UncheckedSentence
from factdebate.response_level.grounding import PRONOUN_OPENING, content_words, holds, is_opinion, left_unsaid
from factdebate.response_level.spans import TextIndex, find_span
from factdebate.response_level.worthiness import LIST_MARKER, gated, table_header

COVERED = 0.6  # share of a sentence's content words an unplaced claim must hold to be named in its note


def _covered(start: int, end: int, spans: Sequence[Sequence[Span]]) -> bool:
    return any(s.start < end and start < s.end for places in spans for s in places)


def _placed(start: int, end: int, claims: Sequence[str], spans: Sequence[Sequence[Span]]) -> list[str]:
    return [claim for claim, places in zip(claims, spans, strict=False)
            if any(s.start < end and start < s.end for s in places)]


def _unplaced_here(sentence: str, unplaced: Sequence[tuple[str, set[str]]]) -> str | None:
    """The unplaced claim that holds most of this sentence's content words, if any."""
    words = content_words(sentence)
    if not words:
        return None
    share, claim = max(((len(words & held) / len(words), claim) for claim, held in unplaced), default=(0.0, ""))
    return claim if share >= COVERED else None


def _partly(sentence: str, placed: Sequence[str], limited: bool) -> bool:
    """Whether the claims ``placed`` on ``sentence`` check only part of it (the module docstring)."""
    return not holds(sentence, placed) if limited else bool(left_unsaid(sentence, placed))


def _dropped_here(start: int, end: int, dropped: Sequence[tuple[str, Sequence[Span]]]) -> str | None:
    """The extractor's dropped claim that was taken from this sentence, if any."""
    for claim, places in dropped:
        if any(place.start < end and start < place.end for place in places):
            return claim
    return None


def unchecked_sentences(text: str, claims: Sequence[str], spans: Sequence[Span | None], extraction: ClaimExtraction,
                        max_claims: int, *, asked: bool = False, sources: Sequence[Sequence[Span]] = (),
                        dropped: Sequence[Sequence[Span]] = (),
                        cut: Sequence[Span] = ()) -> list[UncheckedSentence]:
    """Every sentence of ``text`` that none of ``claims`` (placed at ``spans``, drawn from ``sources``) covers,
    with its reason; None for an extraction that could not be read. ``dropped``: the sentences the ungrounded
    claims were drawn from. ``cut``: those whose claims a limit may have cut short."""
    if not extraction.parsed:
        return []
    # A claim is about the sentences it was drawn from and the one it is placed in.
    about = [[*(sources[n] if n < len(sources) else ()), *([place] if place is not None else [])]
             for n, place in enumerate(spans)]
    unplaced = [(claim, content_words(claim)) for claim, places in zip(claims, about, strict=False) if not places]
    kept = extraction.checked_text if extraction.subjective_removed else None
    index = TextIndex(text)  # read once for every dropped claim, not once per sentence and claim
    drops = [(claim, list(dropped[n]) if n < len(dropped) and dropped[n] else
              [place] if (place := find_span(claim, text, index=index)[0]) is not None else [])
             for n, claim in enumerate(extraction.ungrounded)]
    gates = gated(text, asked=asked)  # the gate the extractor's text was read with
    at_limit = len(claims) >= max_claims
    # The sentences whose claims do not hold them: checked in part (the module docstring).
    limited = {start for start, end, _ in gates if at_limit or _covered(start, end, [cut])}
    partly = {start: placed for start, end, reason in gates
              if reason is None and _covered(start, end, about)
              and _partly(text[start:end], placed := _placed(start, end, claims, about), start in limited)}
    checked = {" ".join(text[start:end].split()).casefold() for start, end, _ in gates
               if _covered(start, end, about) and start not in partly}
    out = []
    for start, end, reason in gates:  # the gate's reason first: the extractor was not given these
        sentence = text[start:end]
        if start in partly:
            out.append(UncheckedSentence(span=Span(start=start, end=end), text=sentence,
                                         reason="claim limit" if start in limited else "partly checked",
                                         note=" / ".join(partly[start]), partly=True))
            continue
        if _covered(start, end, about):
            continue
        note = None
        if reason is None and kept is not None and sentence.strip() not in kept:
            reason = "subjective"
        if reason is None and is_opinion(sentence):
            reason = "opinion"
        if reason is None and (note := _dropped_here(start, end, drops)) is not None:
            reason = "ungrounded"
        if reason is None and (note := _unplaced_here(sentence, unplaced)) is not None:
            reason = "unplaced"
        if reason is None and " ".join(sentence.split()).casefold() in checked:
            reason = "repeated"  # the same words as a checked sentence: the claim's verdict is about them too
        if reason is None and not at_limit and PRONOUN_OPENING.match(LIST_MARKER.sub("", sentence.strip(), count=1)):
            reason = "unresolved"  # whom its pronoun means is not known: never checked with a guessed subject
        if reason is None and table_header(text, end):
            reason = "table header"
        if reason is None:
            reason = "claim limit" if start in limited else "no claim"
        out.append(UncheckedSentence(span=Span(start=start, end=end), text=sentence, reason=reason, note=note))
    return out
