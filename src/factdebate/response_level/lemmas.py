"""A word's dictionary forms (lemmas), so that a claim's words meet a text's by meaning: "sank" and "sink" are
one word. LemmInflect gives every lemma a word can have, from its wheel; the dictionary (about 0.2 s) loads on
first use."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

_LONGEST = 40  # a longer "word" is no dictionary word: looked up, it only fills the cache


@cache
def _lemmatizer() -> Any:
    from lemminflect import getAllLemmas  # the dictionary loads on first use (module docstring)

    return getAllLemmas


@lru_cache(maxsize=16384)  # the same words again for every claim and sentence of a reply
def _by_kind(word: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    found: dict[str, tuple[str, ...]] = _lemmatizer()(word) if word.isalpha() and len(word) <= _LONGEST else {}
    return tuple((kind, tuple(w.casefold() for w in forms)) for kind, forms in found.items())


@lru_cache(maxsize=16384)  # asked of each word of every claim and passage; the answer is immutable
def lemmas(word: str) -> frozenset[str]:
    """Every lemma ``word`` may have, and the word itself, folded ("sank": {"sank", "sink"})."""
    folded = word.casefold()
    return frozenset((folded, *(w for _, forms in _by_kind(folded) for w in forms)))


def inflected_verb(word: str) -> bool:
    """Whether ``word`` is a form of a verb other than its base ("sank", "built", "studied", "stands")."""
    folded = word.casefold()
    return any(kind in ("VERB", "AUX") and folded not in forms for kind, forms in _by_kind(folded))

