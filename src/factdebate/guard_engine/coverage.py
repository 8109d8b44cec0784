"""Which check-worthy sentences of a reply no checked claim covers, and why: a reply is SUPPORTS only when
every sentence that states something was checked, so such a sentence is an ``unchecked`` claim of the
result (its own words as the claim, its span, the reason) and ``on_unchecked`` applies to it. Coverage fails
closed: every sentence the gate passed (response_level/worthiness.py lists what it leaves out) is a
statement, and one no claim covers is unchecked, never passed as stating nothing.

A sentence the gate passed is covered when the extractor said claims were drawn from it (the claims'
``sources``), or claims were placed in it (their spans overlap), and those claims leave none of it out
(``partly`` below), or, for a claim whose source the extractor did
not say and the span search could not place (a reworded one), when that claim holds nearly all its content
words (``COVERED``, by lemma and stem) and every name and number it writes ("The Eiffel Tower is in Berlin."
is not covered by "The Eiffel Tower is in Paris."; the claims' words, names and numbers pooled
covered "... repainted in 1900." with a claim about 1889 and another that wrote 1900), or when it says word
for word what a covered sentence says (a reply that repeats itself is checked once).
One that is not is unchecked, first reason that applies:

- ``deadline``: the deadline ended before its claims were extracted (a stream's later part, or the whole
  reply's one extraction): each such sentence is unchecked on its own, and the sentences decided before it keep
  their verdicts;
- ``claim cap``: the reply had ``response.max_claims`` claims already (the extractor takes no more). A
  sentence with claims on it is covered only when they hold it by the grounding rule (``grounding.holds``:
  most of its words, every name and number, as a response check's unchecked sentences count it): the
  extractor may split one sentence into several claims of which the cap kept only some ("... built in 1889
  and repainted in 1900." with only the 1889 claim kept), and the rest is unchecked;
- ``room``: the extractor filled the room its call was given (counted from the units it was shown, one more
  than they were counted to state: response_level/room.py), so it may have stopped before the end: a sentence
  with claims on it is covered only when they hold it by the grounding rule, as at the claim cap ("The Eiffel
  Tower, in Paris, opened in 1889, is 330 metres tall and remained the tallest ... until 1950." with three claims kept
  is only partly checked), and one without is beyond the room;
- ``partly``: no limit cut its extraction, but the claims drawn from it leave out a number it writes or a
  joined part of it (``grounding.left_unsaid``: "It was finished in 1899 and is made of wrought iron." with
  only the 1899 claim): its reason quotes what was left out, and the claims keep their verdicts;
- ``grounding filter``: the extractor's claim for it (drawn from it, as it said, or else sharing half its
  words) was dropped as an opinion or for naming what the text does not write (the dropped claim is quoted;
  one that is the prompt's worked example is said to be that), or the sentence reads as an opinion by the
  grounding rules ("Honestly, the tower is in Berlin.");
- ``unresolved``: it opens with a pronoun ("It is 9,500 m tall."), names something, and no claim resolved whom
  it means, from the reply or the conversation: never checked with a guessed subject;
- ``no claim``: the extractor made no claim of it ("The latter." as much as "Sydney is the capital.").

The one sentence that is left out here rather than marked is a table's header row ("| Fact | Value |" above
"|---|---|"): it states nothing, and whether a row is one is known only once the row after it is read (a
stream gates each line alone), so the check asks at its end and lists it in ``skipped`` as ``table header``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from factdebate.guard_engine.gate import Sentence
from factdebate.guard_engine.types import GuardClaim
from factdebate.response_level.grounding import (
    PRONOUN_OPENING,
    among,
    content_words,
    echoes_example,
    forms,
    holds,
    is_opinion,
    left_unsaid,
    names,
    numbers,
)
from factdebate.response_level.worthiness import LIST_MARKER, table_header, without_urls


def states(sentence: str) -> bool:
    """Whether a check-worthy ``sentence`` no claim covers names something to look up: a number or a name (after
    its first word; a short one, "Sydney.", "Yes.", or a list item, "- Sweden: Bergen", by its first word too:
    it is a statement in its question's or heading's context)."""
    text = without_urls(LIST_MARKER.sub("", sentence.strip(), count=1))
    if numbers(text):
        return True
    short = len(text.split()) < 3 or LIST_MARKER.match(sentence) is not None
    return bool(names(text if short else " ".join(text.split()[1:])))

# Share of a sentence's content words (by lemma and stem) the claims must hold: higher than a response check's 0.6, as
# one changed word is a different statement ("City Alpha has 2 towers." is not "... 2 bridges.").
COVERED = 0.8


def _overlaps(sentence: Sentence, claim: GuardClaim) -> bool:
    """Whether ``claim`` is about ``sentence``: drawn from it, as the extractor said, or placed in it."""
    if any(s.start < sentence.end and sentence.start < s.end for s in claim.sources):
        return True
    return claim.span is not None and claim.span.start < sentence.end and sentence.start < claim.span.end


def _words(text: str) -> str:
    return " ".join(text.split()).casefold()


def _held(sentence: str, claim: str) -> bool:
    """Whether the unplaced ``claim`` says what ``sentence`` says."""
    own = content_words(sentence)
    said = forms(content_words(claim))
    if not own or sum(among(w, said) for w in own) / len(own) < COVERED:
        return False
    # A name of the sentence is held when the claim writes it in any case (a list item's key, "- Wrote: Hamlet",
    # is capitalised by its place only).
    written = forms(claim.split()) | said | names(claim)
    text = LIST_MARKER.sub("", sentence.strip(), count=1)
    return all(among(n, written) for n in names(text)) and numbers(sentence) <= numbers(claim)


def _dropped_from(sentence: Sentence, dropped: Sequence[tuple[str, Sequence[Sentence]]]) -> str | None:
    """The extractor's dropped claim that was taken from ``sentence``: drawn from it, as it said, or (where it
    did not say) sharing half its content words."""
    own = content_words(sentence.text)
    for claim, drawn in dropped:
        if drawn and any(s.start < sentence.end and sentence.start < s.end for s in drawn):
            return claim
        if not drawn and own and len(own & content_words(claim)) / len(own) >= 0.5:
            return claim
    return None


# A sentence past the reply's claim cap: its reason starts with these words (the footnote gathers such sentences
# into one line, policy.py; the page and the metrics read them too).
BEYOND_CAP = "beyond the claim cap"
_CAP_OF = re.compile(rf"^{BEYOND_CAP}: at most (\d+) claims")


def beyond_cap(max_claims: int) -> str:
    """Why a check-worthy sentence past the claim cap is unchecked."""
    return (f"{BEYOND_CAP}: at most {max_claims} claims are taken from one reply (response.max_claims); this "
            "sentence was not checked")


def cap_of(reason: str | None) -> int | None:
    """The claim cap a :func:`beyond_cap` reason names; None for any other reason."""
    found = _CAP_OF.match(reason or "")
    return int(found.group(1)) if found else None


# Why a sentence in an extraction the call's limit cut short is unchecked (or only partly checked).
_FILLED = ("the extractor gave as many claims as one call allows (its room, counted from the sentences, table "
           "rows and items it was shown), so it may have stopped before the end")


def uncovered(worthy: Sequence[Sentence], claims: Sequence[GuardClaim], text: str, *,
              dropped: Sequence[tuple[str, Sequence[Sentence]]], capped: bool,
              max_claims: int, unresolved: Sequence[tuple[str, Sequence[Sentence]]] = (),
              cut: Collection[int] = (), late: Mapping[int, str] | None = None,
              ) -> tuple[list[tuple[Sentence, str]], list[Sentence]]:
    """(each uncovered sentence, with why it is unchecked; the table header rows among them, which state
    nothing: ``text`` is the reply, read for the row under each). ``unresolved``: the extractor's claims set
    aside because their subject is still a pronoun, with the sentences each is drawn from. ``cut``: the
    sentences (by their start) whose claims the limit of their extraction's call may have cut short: such a
    sentence is covered only by claims that hold all it says, as at the reply's claim cap. ``late``: the
    sentences (by their start) whose claims the deadline left unextracted, with why."""
    late = late or {}
    unplaced = [c.claim for c in claims if c.span is None and not c.sources]
    on = {id(s): [c.claim for c in claims if _overlaps(s, c)] for s in worthy}
    # Claims cut short by a limit must hold their sentence; any others must leave nothing of it out.
    unsaid = {id(s): left_unsaid(s.text, on[id(s)]) for s in worthy if on[id(s)]}
    partly = {id(s) for s in worthy if on[id(s)] and (not holds(s.text, on[id(s)]) if capped or s.start in cut
                                                      else bool(unsaid[id(s)]))}
    # A sentence said again word for word is covered by the claims placed on its first saying, when they hold
    # it (a reply that repeats itself is checked once).
    placed = {_words(s.text) for s in worthy if on[id(s)] and id(s) not in partly}
    out: list[tuple[Sentence, str]] = []
    headers: list[Sentence] = []
    for sentence in worthy:
        on_it = on[id(sentence)]
        if id(sentence) in partly and sentence.start in cut and not capped:
            out.append((sentence, f"only partly checked: {_FILLED}, and the claims kept of this sentence leave "
                                  "the rest of it unchecked"))
            continue
        if id(sentence) in partly and capped:
            out.append((sentence, f"only partly checked: at most {max_claims} claims are taken from one reply "
                                  "(response.max_claims), and the claims kept of this sentence leave the rest of it "
                                  "unchecked"))
            continue
        if id(sentence) in partly:
            left = "; ".join(f'"{part}"' for part in unsaid[id(sentence)][:4])
            out.append((sentence, f"only partly checked: the claims drawn from this sentence leave out what it "
                                  f"also says ({left}), and that was not checked"))
            continue
        if on_it or any(_held(sentence.text, c) for c in unplaced) or _words(sentence.text) in placed:
            continue
        if table_header(text, sentence.end):  # it states nothing, at any limit
            headers.append(sentence)
        elif sentence.start in late:
            out.append((sentence, late[sentence.start]))
        elif capped:
            out.append((sentence, beyond_cap(max_claims)))
        elif (source := _dropped_from(sentence, dropped)) is not None and echoes_example(source, ""):
            out.append((sentence, "the extractor answered with the prompt's worked example instead of a claim of "
                                  "this sentence: it was not checked"))
        elif source is not None and PRONOUN_OPENING.match(LIST_MARKER.sub("", sentence.text.strip(), count=1)):
            # "It was finished in 1931." written as a claim about a name only the evidence gives: whom "It"
            # means is not known from the conversation, which is why the claim's name is not the text's.
            out.append((sentence, f"its subject (\"{sentence.text.split()[0].strip('-*')}\"...) could not be "
                                  f"resolved from the reply or the conversation: the extractor's claim "
                                  f"\"{source[:200]}\" names what neither writes, and it was not checked"))
        elif source is not None:
            out.append((sentence, f"dropped by the grounding filter (an opinion, or a name or number the text "
                                  f"does not write): the extractor's claim \"{source[:200]}\" was not checked"))
        elif is_opinion(sentence.text):
            out.append((sentence, "dropped by the grounding filter: it reads as an opinion, but what it states "
                                  "was not checked"))
        elif PRONOUN_OPENING.match(LIST_MARKER.sub("", sentence.text.strip(), count=1)) and states(sentence.text):
            out.append((sentence, f"its subject (\"{sentence.text.split()[0].strip('-*')}\"...) could not be "
                                  "resolved from the reply or the conversation: it was not checked"))
        elif (vague := _dropped_from(sentence, unresolved)) is not None:
            # "Yes, in 1931." read as "It was completed in 1931.": the sentence states something, but whom it
            # is about is known neither from the reply nor from the conversation.
            out.append((sentence, f"its subject could not be resolved from the reply or the conversation (the "
                                  f"extractor's claim \"{vague[:200]}\" does not say whom it is about): it was "
                                  "not checked"))
        elif sentence.start in cut:
            out.append((sentence, f"beyond the extractor's room: {_FILLED}, and gave none of this sentence: "
                                  "it was not checked"))
        else:
            out.append((sentence, "no claim was extracted from it: it was not checked"))
    return out, headers
