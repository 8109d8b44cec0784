"""The names of a claim written in English of a sentence in another language, held to the text's names by
the letters they are written in.

A name is held when one of its words meets a word the text writes in Latin letters: the same first four
letters, or the whole of the shorter word, accents folded ("Berlin" meets "Berliner"). A name none of whose
words the text writes is held only when the text writes another script, as the translation of a name in it
("Mount Fuji" of "富士山"). A name that meets no word ("Germany" of "Allemagne") drops the claim, leaving its
sentence unchecked, never passed."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["names_held"]

# A name as a claim writes it: capitalised words, with the particles that join a name's parts between them.
_NAME = re.compile(r"[A-Z][\w'-]*(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w'-]*)*")
_WORD = re.compile(r"[^\W\d_]+")
MEETS = 4  # letters two spellings of one name share at their start


def _fold(word: str) -> str:
    """``word`` in lower case without accents ("Königin" -> "konigin")."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


@lru_cache(maxsize=4096)
def _latin(character: str) -> bool:
    return unicodedata.name(character, "").startswith("LATIN")


def _meets(word: str, written: set[str]) -> bool:
    head = word[:MEETS]
    return any(w.startswith(head) or (len(w) < MEETS and word.startswith(w)) for w in written if len(w) >= 3)


def names_held(claim: str, source: str, names: set[str]) -> bool:
    """Whether every one of ``names`` (the claim's, as grounding.names reads them) is held by ``source``."""
    if not names:
        return True
    written = {_fold(w) for w in _WORD.findall(source) if all(_latin(c) for c in w)}
    other_script = any(c.isalpha() and not _latin(c) for c in source)
    for match in _NAME.finditer(claim):
        words = [_fold(w) for w in _WORD.findall(match.group(0)) if w.casefold() in names]
        if not words or any(_meets(w, written) for w in words if len(w) >= 3):
            continue
        if not other_script:
            return False
    return True
