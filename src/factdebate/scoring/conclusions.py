"""Which of an answer's statements are its conclusion rather than facts taken from its documents.

"The claim is false" follows from a document without being in it: a 1.5B scorer marks it unsupported.
``conclusion`` picks out statements about the claim or the verdict, and the claim negated, so faithfulness is
taken over the rest; the claim stated plainly is kept."""

from __future__ import annotations

import re

# Words that make a statement about the debate rather than about the world.
# "The documents state that the tower is in Paris" is not among them: it is a fact the documents must hold.
# The comparison the label guide asks for ("these locations are different") is the answer's reasoning about
# the claim, whose words it rarely repeats.
_META = re.compile(r"\b(claims?|verdict|supports|refutes|not enough info|match(es|ed)?|differ(s|ent)?|the same|"
                   r"contradicts?|(in)?consistent)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(not|no|never|neither|nor|cannot)\b|n't\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
# Words that carry no content of their own; the negations (and the stems "isn't" splits into) are among
# them, so "is not in Rome" and "is in Rome" have the same content words.
_FUNCTION_WORDS = frozenset([
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "has", "have",
    "had", "of", "in", "on", "at", "to", "from", "by", "for", "with", "as", "and", "or", "but", "that", "this",
    "these", "those", "it", "its", "there", "their", "not", "no", "never", "neither", "nor", "cannot", "t", "s",
    "isn", "aren", "wasn", "weren", "doesn", "don", "didn", "hasn", "haven", "hadn", "can", "couldn", "won",
    "wouldn"])
# The share of a negated statement's content words the claim must hold for it to be the claim negated.
RESTATED = 0.8
# Or: the claim's every content word, and at most this many more, the value that replaces the claim's
# ("The Eiffel Tower is located in Paris, France, not Rome." for "... located in Rome.": "paris", "france").
REPLACING = 3


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _FUNCTION_WORDS}


def conclusion(statement: str, claim: str) -> bool:
    """Whether ``statement`` speaks about the claim or the verdict, compares, or is ``claim`` negated."""
    if _META.search(statement):
        return True
    if not _NEGATION.search(statement) or _NEGATION.search(claim):
        return False
    # Most content words from the claim: "the tower is in Paris, not Rome" is the claim negated with the value
    # that replaces it, and a 1.5B scorer marks it unsupported as often as not (no document says "not Rome").
    words, claimed = _content(statement), _content(claim)
    if not words:
        return False
    return len(words & claimed) >= RESTATED * len(words) or (claimed <= words and len(words - claimed) <= REPLACING)


def facts(statements: list[str], claim: str) -> tuple[list[str], list[str]]:
    """``statements`` split into facts to check and conclusions left out (all kept when all are conclusions)."""
    left_out = [s for s in statements if conclusion(s, claim)]
    kept = [s for s in statements if not conclusion(s, claim)]
    return (kept, left_out) if kept else (statements, [])
