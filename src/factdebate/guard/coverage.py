"""Which check-worthy sentences of a reply no checked claim covers, and why: a reply is SUPPORTS only when
every sentence that states something was checked, so such a sentence is an ``unchecked`` claim of the
result (its own words as the claim, its span, the reason) and ``on_unchecked`` applies to it.

A sentence the gate passed is covered when a claim was placed in it (its span overlaps), or when one claim the
span search could not place (a reworded one) holds nearly all its content words (``COVERED``, by stem) and every
name and number it writes ("The Eiffel Tower is in Berlin." is not covered by "The Eiffel Tower is in Paris.";
issue 49: the claims' words, names and numbers pooled covered "... repainted in 1900." with a claim about 1889
and another that wrote 1900, as a response check's coverage did), or when it says word for word what a sentence
a claim was placed on says (a reply that repeats itself is checked once).
One that is not is unchecked, first reason that applies:

- ``claim cap``: the reply had ``response.max_claims`` claims already (the extractor takes no more). At the
  cap, a sentence with claims placed on it is covered only when they hold it by the grounding rule
  (``grounding.holds``: most of its words, every name and number, as a response check's unchecked sentences
  count it): the extractor may split one sentence into several claims of which the cap kept only some
  ("... built in 1889 and repainted in 1900." with only the 1889 claim kept), and the rest is unchecked;
- ``grounding filter``: the extractor's claim for it was dropped as an opinion or for naming what the text
  does not write (the dropped claim is quoted), or the sentence reads as an opinion by the grounding rules
  ("Honestly, the tower is in Berlin.");
- ``unresolved``: it opens with a pronoun ("It is 9,500 m tall.") and no claim resolved whom it means, from the
  reply or the conversation: never checked with a guessed subject (issue 65, item 2);
- ``no claim``: it names something (a name or a number; a short answer or a list item by its first word too)
  and the extractor made no claim of it.

A sentence with neither a name nor a number that no claim covers ("That sounds like a plan.") states nothing
to look up: it is listed in ``skipped`` as ``no fact``, as a response check's ``unchecked`` lists it.
"""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.guard.gate import Sentence
from factdebate.guard.types import GuardClaim
from factdebate.response_level.grounding import PRONOUN_OPENING, content_words, holds, is_opinion, names, numbers, stem
from factdebate.response_level.worthiness import LIST_MARKER, without_urls


def states(sentence: str) -> bool:
    """Whether a check-worthy ``sentence`` no claim covers names something to look up: a number or a name (after
    its first word; a short one, "Sydney.", "Yes.", or a list item, "- Sweden: Bergen", by its first word too:
    it is a statement in its question's or heading's context)."""
    text = without_urls(LIST_MARKER.sub("", sentence.strip(), count=1))
    if numbers(text):
        return True
    short = len(text.split()) < 3 or LIST_MARKER.match(sentence) is not None
    return bool(names(text if short else " ".join(text.split()[1:])))

# Share of a sentence's content words (by stem) the claims must hold: higher than a response check's 0.6, as
# one changed word is a different statement ("City Alpha has 2 towers." is not "... 2 bridges.").
COVERED = 0.8


def _overlaps(sentence: Sentence, claim: GuardClaim) -> bool:
    return claim.span is not None and claim.span.start < sentence.end and sentence.start < claim.span.end


def _stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def _words(text: str) -> str:
    return " ".join(text.split()).casefold()


def _held(sentence: str, claim: str) -> bool:
    """Whether the unplaced ``claim`` says what ``sentence`` says."""
    own = _stems(sentence)
    if not own or len(own & _stems(claim)) / len(own) < COVERED:
        return False
    # A name of the sentence is held when the claim writes it in any case (a list item's key, "- Wrote: Hamlet",
    # is capitalised by its place only).
    written = {w.casefold() for w in claim.split()} | {stem(w) for w in content_words(claim)} | names(claim)
    text = LIST_MARKER.sub("", sentence.strip(), count=1)
    return all(n in written or stem(n) in written for n in names(text)) and numbers(sentence) <= numbers(claim)


def uncovered(worthy: Sequence[Sentence], claims: Sequence[GuardClaim], *, ungrounded: Sequence[str],
              capped: bool, max_claims: int) -> tuple[list[tuple[Sentence, str]], list[Sentence]]:
    """(each uncovered sentence that states something, with why it is unchecked; those that state nothing to
    look up, for ``skipped`` as ``no fact``)."""
    unplaced = [c.claim for c in claims if c.span is None]
    on = {id(s): [c.claim for c in claims if _overlaps(s, c)] for s in worthy}
    partly = {id(s) for s in worthy if capped and on[id(s)] and not holds(s.text, on[id(s)])}
    # A sentence said again word for word is covered by the claims placed on its first saying, when they hold
    # it (a reply that repeats itself is checked once).
    placed = {_words(s.text) for s in worthy if on[id(s)] and id(s) not in partly}
    dropped = [(claim, content_words(claim)) for claim in ungrounded]
    out: list[tuple[Sentence, str]] = []
    no_fact: list[Sentence] = []
    for sentence in worthy:
        on_it = on[id(sentence)]
        if id(sentence) in partly:
            out.append((sentence, f"only partly checked: at most {max_claims} claims are taken from one reply "
                                  "(response.max_claims), and the claims kept of this sentence leave the rest of it "
                                  "unchecked"))
            continue
        if on_it or any(_held(sentence.text, c) for c in unplaced) or _words(sentence.text) in placed:
            continue
        own = content_words(sentence.text)
        source = next((claim for claim, seen in dropped if own and len(own & seen) / len(own) >= 0.5), None)
        if capped:
            out.append((sentence, f"beyond the claim cap: at most {max_claims} claims are taken from one reply "
                                  "(response.max_claims); this sentence was not checked"))
        elif source is not None:
            out.append((sentence, f"dropped by the grounding filter (an opinion, or a name or number the text "
                                  f"does not write): the extractor's claim \"{source[:200]}\" was not checked"))
        elif is_opinion(sentence.text):
            out.append((sentence, "dropped by the grounding filter: it reads as an opinion, but what it states "
                                  "was not checked"))
        elif PRONOUN_OPENING.match(LIST_MARKER.sub("", sentence.text.strip(), count=1)) and states(sentence.text):
            out.append((sentence, f"its subject (\"{sentence.text.split()[0].strip('-*')}\"...) could not be "
                                  "resolved from the reply or the conversation: it was not checked"))
        elif states(sentence.text):
            out.append((sentence, "no claim was extracted from it: it was not checked"))
        else:
            no_fact.append(sentence)
    return out, no_fact
