"""The number note a debater reads under its documents: which of the claim's numbers no document writes, and
the numbers the documents' closest sentences give instead.

Small models compare numbers poorly ("built from 1887 to 1889" read as agreeing with "finished in 1899"). The
note compares the digits and leaves the verdict to the model: a number the documents do not write is no proof
the claim is false, so it only says what is written. It is empty when every number of the claim is written."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

# A number as text writes it: digits with thousands separators or a decimal part ("4,776", "2.04", "1899").
_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,]*\d)|(?<![\w.,])\d+(?:\.\d+)?(?!\w)")
_WORD = re.compile(r"[^\W\d_]{4,}")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
# Words too common to tie a document's sentence to the claim.
_COMMON = frozenset({"about", "after", "also", "been", "before", "between", "built", "could", "does", "from", "have",
                     "into", "made", "more", "most", "other", "over", "since", "such", "than", "that", "their",
                     "them", "then", "there", "these", "they", "this", "those", "through", "under", "were", "what",
                     "when", "where", "which", "while", "with", "would", "year", "years"})
MOST_SHOWN = 4


def _value(token: str) -> str:
    return token.replace(",", "")


def _is_year(token: str) -> bool:
    return len(token) == 4 and token.isdigit() and 1000 <= int(token) <= 2199


def numbers_in(text: str) -> list[str]:
    """The numbers ``text`` writes, separators dropped, in order."""
    return [_value(token) for token in _tokens(text)]


def _tokens(text: str) -> list[str]:
    return [m.group(0) for m in _NUMBER.finditer(text)]


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _COMMON


def _text(document: Any) -> str:
    return str(getattr(document, "text", document))


def _closest(claim: str, documents: Sequence[Any]) -> Iterable[tuple[int, str]]:
    """(document number, sentence) of the sentences sharing words with the claim, most shared first."""
    words = _words(claim)
    found = []
    for number, document in enumerate(documents, start=1):
        for order, sentence in enumerate(_SENTENCE_END.split(_text(document))):
            shared = len(words & _words(sentence))
            if shared:
                found.append((-shared, number, order, sentence))
    return ((number, sentence) for _, number, _, sentence in sorted(found))


def number_note(claim: str, documents: Sequence[Any]) -> str:
    """One line on the claim's numbers that no document writes, or ``""``."""
    if not documents:
        return ""
    written = {value for document in documents for value in numbers_in(_text(document))}
    missing = list(dict.fromkeys(token for token in _tokens(claim) if _value(token) not in written))
    if not missing:
        return ""
    years = all(_is_year(_value(token)) for token in missing)
    given: dict[str, list[int]] = {}  # as the documents write it: the document numbers that do
    for number, sentence in _closest(claim, documents):
        for token in _tokens(sentence):
            if token in given:
                if number not in given[token]:
                    given[token].append(number)
            elif len(given) < MOST_SHOWN and not (years and not _is_year(_value(token))):
                given[token] = [number]
    named = _listed(missing)
    line = f"Check the numbers: the claim says {named}, and no document writes {named}."
    if given:
        shown = _listed([f"{token} [{', '.join(map(str, given[token]))}]" for token in given])
        verb = "is" if len(given) == 1 else "are"
        line += f" The documents' sentences closest to the claim say {shown}, which {verb} not {named}."
    return line


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
