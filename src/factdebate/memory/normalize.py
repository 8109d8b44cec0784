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
    """NFKC, case-folded, punctuation dropped, one leading English article dropped, spaces collapsed.

    Accents are kept: "Müller" and "Muller" can be different people. An empty result means the entity has
    nothing to key on (pure punctuation) and is not stored.
    """
    text = unicodedata.normalize("NFKC", entity or "").casefold()[:MAX_ENTITY_CHARS]
    text = _PUNCT.sub(" ", text.replace("'s ", " ").replace("’s ", " "))
    text = _SPACE.sub(" ", text).strip()
    stripped = _ARTICLE.sub("", text)
    return stripped or text
