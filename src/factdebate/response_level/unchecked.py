"""The sentences of a checked response that no claim covers, each with why it was not checked, so that a
reader sees what the verdict says nothing about (an opinion or a greeting the extractor dropped would
otherwise leave its sentence unmarked, as if it had been checked).

A sentence is covered when the extractor said a claim was drawn from it (the claim's sources), or a claim was
placed in it (its span), and only then: a claim placed on another sentence, or on none, does not cover a
sentence whose words it holds, which would then have neither a mark nor a note. The reason of one that is not,
first that applies: the worthiness rules' (``question``, ``greeting``, ``instruction``, ``opinion``, ``no
content``); ``subjective`` when DPD's subjective filter removed it; ``opinion`` by the grounding rules
(advice, judging words); ``ungrounded`` when the extractor wrote a claim for it that named what the text does
not (the claim is the note); ``unplaced`` when a checked claim holds most of its words but could not be placed
in it with confidence (the claim is the note: its verdict may be about this sentence, but the page cannot say
so); ``unresolved`` when it opens with a pronoun no claim resolved (never checked with a guessed subject);
``repeated`` when it says word for word what a checked sentence says (it is checked once); ``claim limit``
when the response already had as many claims as it may; ``table header`` for a table's header row (it states
nothing); else ``no claim``: a statement the extractor took no claim from. Coverage fails closed: a sentence
the gate passed is a statement, and one no claim covers is listed as not checked, whatever it names.

At the claim limit, and in an extraction whose call's limit may have cut it short (the extractor filled the
room of its call: response_level/room.py), a sentence with claims placed on it
is covered only when they hold it by the grounding
rule (:func:`~factdebate.response_level.grounding.holds`: most of its words, every name and number): the
extractor may have split it into several claims of which the limit kept only some ("... built in 1889 and
repainted in 1900." with only the 1889 claim kept). Such a sentence is ``claim limit`` too, its note the
claims that were checked of it. Below the limit the extractor's reading covers it: a sentence stating a fact
its claims do not hold is added as a claim of its own (grounding.uncovered_sentences).
"""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.types import ClaimExtraction, Span, UncheckedSentence
from factdebate.response_level.grounding import PRONOUN_OPENING, content_words, holds, is_opinion
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


def _dropped_here(start: int, end: int, dropped: Sequence[tuple[str, Sequence[Span]]]) -> str | None:
    """The extractor's dropped claim that was taken from this sentence (drawn from it, as it said, or found in
    it by its words), if any."""
    for claim, places in dropped:
        if any(place.start < end and start < place.end for place in places):
            return claim
    return None


def unchecked_sentences(text: str, claims: Sequence[str], spans: Sequence[Span | None], extraction: ClaimExtraction,
                        max_claims: int, *, asked: bool = False, sources: Sequence[Sequence[Span]] = (),
                        dropped: Sequence[Sequence[Span]] = (),
                        cut: Sequence[Span] = ()) -> list[UncheckedSentence]:
    """Every sentence of ``text`` that none of ``claims`` (placed at ``spans``, drawn from ``sources``, as the
    extractor said) covers, with its reason (see the module docstring). None for an extraction that could not
    be read: then nothing was checked at all, which the verdict already says. ``dropped``: the sentences each of
    the extraction's ungrounded claims was drawn from, where the extractor said. ``cut``: the sentences whose
    claims a limit of the extraction may have cut short (response_level/room.py): held to their claims as at
    the claim limit."""
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
    # At the limit, the sentences whose claims there do not hold them: checked in part (the module docstring).
    limited = {start for start, end, _ in gates if at_limit or _covered(start, end, [cut])}
    partly = {start: placed for start, end, reason in gates
              if reason is None and start in limited and _covered(start, end, about)
              and not holds(text[start:end], placed := _placed(start, end, claims, about))}
    checked = {" ".join(text[start:end].split()).casefold() for start, end, _ in gates
               if _covered(start, end, about) and start not in partly}
    out = []
    for start, end, reason in gates:  # the gate's reason first: the extractor was not given these
        sentence = text[start:end]
        if start in partly:
            out.append(UncheckedSentence(span=Span(start=start, end=end), text=sentence, reason="claim limit",
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
