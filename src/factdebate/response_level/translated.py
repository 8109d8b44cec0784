"""The names of a claim the extractor wrote in English of a sentence in another language (a translation's
claim), held to the text's names.

A translated claim cannot be held to the text's words (they are the translation's), but its names can be, by
the letters they are written in:

- each name of the claim (a run of capitalised words: "Berlin Wall", "Queen Victoria") is held when one of
  its words meets a word the text or its conversation writes in Latin letters: the same first four letters,
  or the whole of the shorter word, accents folded. A name keeps its core across languages that write Latin
  letters ("Berlin" meets "Berliner", "Atlantic" meets "Atlantique", "Everest" meets "L'Everest"), so a claim
  about a name the text does not write ("The Statue of Liberty is in Rome." of "La tour Eiffel est à Rome.")
  is dropped;
- a name none of whose words the text writes in Latin letters is held only when the text writes letters of
  another script (Japanese, Chinese, Thai, Cyrillic...): it is then taken as the translation of a name written
  in that script ("Mount Fuji" of "富士山"), which only a dictionary could compare, so the claim is held to
  the text's numbers (written in digits) alone there.

What a name that meets no word costs is the sentence's check, never a pass: a dropped claim leaves its sentence
unchecked (guard_engine/coverage.py). The names whose translation shares no four letters ("Germany" of
"Allemagne", "Cologne" of "Köln") are such a cost.
"""

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
    """Whether every name of ``claim`` is held by ``source`` (the text and its conversation), by the module
    docstring's rule. ``names``: the claim's names as the grounding filter reads them (folded words), so a word
    capitalised by position only ("Located") names nothing here either."""
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
