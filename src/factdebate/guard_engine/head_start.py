"""A head start for a streamed sentence's fast verdict (``policy: hold``): a part that is one sentence reading
as one claim goes to the fast tier as written while the extractor still reads it.

The verdict is used only when the extractor returns that sentence word for word as the part's one claim
(:func:`same_claim`); otherwise it is cancelled. So the claims checked are always the extractor's, and a wrong
guess by :func:`stands_alone` costs one fast call thrown away. The extractor is not skipped because it also
reads the question ("The tower opened in 1889." answering a question about the Eiffel Tower), which no rule
on the sentence alone can tell."""

from __future__ import annotations

import re

# Words that point at something said elsewhere (the question, an earlier sentence), or join a second statement
# to the first, or frame the statement as the writer's: the extractor rewrites or splits such a sentence.
_POINTING = frozenset((
    "it", "its", "it's", "itself", "they", "them", "their", "theirs", "themselves", "he", "him", "his", "himself",
    "she", "her", "hers", "herself", "this", "that", "these", "those", "there", "here", "such", "former",
    "latter", "same", "other", "another", "also", "too", "both", "either", "neither", "each", "then", "thus",
    "which", "who", "whom", "whose", "where", "when", "while", "we", "us", "our", "you", "your", "i", "me", "my",
    "and", "or", "nor", "but", "because", "although", "though", "whereas", "unless", "if", "so", "yet", "as"))
# The subject opens with a name: a capitalised word other than these (capitalised here only as the first word).
_NOT_A_NAME = frozenset(("a", "an", "the", "some", "many", "most", "all", "every", "each", "one", "no", "after",
                         "before", "during", "in", "on", "at", "by", "for", "from", "of", "to", "with", "since",
                         "until", "today", "yesterday", "now", "later", "earlier", "originally", "however",
                         "instead", "meanwhile", "still", "yes", "indeed", "well", "sure", "several", "others",
                         "few", "any", "not", "never", "only"))
# A first word with one of these endings is an ordinary word ("Construction began in 1887.": of what?).
_ORDINARY = ("ed", "ing", "ion", "ions", "ment", "ments", "ly", "ity", "ness", "ous", "ful", "ance", "ence")
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d[\d.,]*")
_JOINS = re.compile(r"[,;:?!()\[\]\"“”—–]| - ")
MAX_WORDS = 30


def stands_alone(sentence: str) -> bool:
    """Whether ``sentence`` is a short statement opening with a name, with no word pointing elsewhere, no
    second clause and no quotation. Conservative: a "no" costs only time."""
    text = sentence.strip()
    if not text.endswith(".") or text.endswith("..") or _JOINS.search(text):
        return False
    words = _WORD.findall(text[:-1])
    if not 3 <= len(words) <= MAX_WORDS or any(w.lower() in _POINTING for w in words):
        return False
    article = words[0].lower() in ("the", "a", "an")
    first = words[1] if article else words[0]
    if not first[0].isupper() or first.lower() in _NOT_A_NAME:
        return False
    return article or not first.lower().endswith(_ORDINARY)  # after "The", a capital is a name's


def same_claim(claim: str, sentence: str) -> bool:
    """Whether the extractor's ``claim`` is ``sentence`` as written, spacing aside."""
    return " ".join(claim.split()) == " ".join(sentence.split())
