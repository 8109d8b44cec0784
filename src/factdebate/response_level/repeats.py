"""Where a claims list may end before the model ends it: once the claims written so far hold every sentence
shown and the model writes one they already hold, what follows is rewording; once they hold every sentence and
the model writes one that says what no sentence shown says, what follows is taken from elsewhere (the passages
beside the answer). A small model goes on until it fills the call's room (three sentences about C# ran to a
twelfth claim, "It is a modern programming language.", past a two-minute deadline; a two-sentence answer about
the Eiffel Tower ran on to "The Eiffel Tower is a lattice tower." and "... a tall structure." from the
passages), and on two cores each token of it costs about 60 ms. Either claim is dropped by grounding
(grounding.py) if it is written; ending before it loses nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from factdebate.response_level.grounding import among, content_words, forms, holds, names, numbers

# Where a claim's object opens, whatever spacing the schema's grammar let the model write.
_ITEM = re.compile(r'\{\s*"claim"\s*:')
_DECODER = json.JSONDecoder()


def written_claims(text: str) -> list[tuple[str, int]]:
    """Each claim whose object ``text`` (a claims list still being written) closes, with where it closes."""
    out: list[tuple[str, int]] = []
    for match in _ITEM.finditer(text):
        try:
            item, end = _DECODER.raw_decode(text, match.start())
        except (ValueError, RecursionError):  # not closed yet, or nested past the parser: the whole reply's
            continue  # own reading (response_level/extract.py) says it is unreadable
        if isinstance(item, dict) and isinstance(item.get("claim"), str):
            out.append((item["claim"], end))
    return out


def repeats(claim: str, earlier: Sequence[str]) -> bool:
    """Whether ``earlier`` claims already say all ``claim`` says: each content word, number and name."""
    said = forms(set().union(*(content_words(c) for c in earlier)))
    written = forms(w for c in earlier for w in c.split()) | said
    return (all(among(w, said) for w in content_words(claim))
            and numbers(claim) <= set().union(*(numbers(c) for c in earlier))
            and all(among(n, written) for n in names(claim)))


def beyond(claim: str, words: set[str], written: set[str], figures: set[object]) -> bool:
    """Whether ``claim`` says what the sentences do not: a content word, number or name none of them writes
    (``words``: their content words' forms; ``written``: the forms of all their words; ``figures``: their
    numbers)."""
    return (any(not among(w, words) for w in content_words(claim))
            or not numbers(claim) <= figures
            or any(not among(n, written) for n in names(claim)))


def end_when_repeating(sentences: Sequence[str]) -> Callable[[str], str | None]:
    """A reply's end (``GenParams.ended``) for a claims list of ``sentences``: the list closed after the last
    claim that said something new of the sentences, once the claims before one that repeats them or says what no
    sentence says hold every sentence."""
    words = forms(set().union(*(content_words(s) for s in sentences)))
    written = forms(w for s in sentences for w in s.split()) | words
    figures: set[object] = set().union(*(numbers(s) for s in sentences))

    def ended(text: str) -> str | None:
        claims = written_claims(text)
        if len(claims) < 2:
            return None
        said = [claim for claim, _ in claims[:-1]]
        last = claims[-1][0]
        if not (repeats(last, said) or beyond(last, words, written, figures)) \
                or not all(holds(s, said) for s in sentences):
            return None
        return text[:claims[-2][1]] + "]}"

    return ended
