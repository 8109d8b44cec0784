"""Entity keys: the same entity written with different case, character widths, articles or punctuation maps to
one key, so "The Eiffel Tower" recalls what "eiffel tower" stored."""

from __future__ import annotations

import re
import unicodedata

MAX_ENTITY_CHARS = 200
_ARTICLE = re.compile(r"^(the|a|an)\s+")
_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")


def normalize_entity(entity: str) -> str:
    """NFKC, case-folded, punctuation and a leading article dropped, spaces collapsed; accents kept. Empty:
    nothing to key on."""
    text = unicodedata.normalize("NFKC", entity or "").casefold()[:MAX_ENTITY_CHARS]
    text = _PUNCT.sub(" ", text.replace("'s ", " ").replace("’s ", " "))
    text = _SPACE.sub(" ", text).strip()
    stripped = _ARTICLE.sub("", text)
    return stripped or text
