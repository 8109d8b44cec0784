"""Corpus names: one rule everywhere, and an injective mapping onto Milvus collection names (a name that
sanitising changes gets a hash of the original, so ``col-1`` and ``col_1`` stay apart)."""

from __future__ import annotations

import hashlib
import re
from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema

from factdebate.util.errors import ConfigError

MAX_CHARS = 64
PATTERN = rf"^[A-Za-z0-9][A-Za-z0-9_.-]{{0,{MAX_CHARS - 1}}}$"
_VALID = re.compile(PATTERN)
_HASHED = re.compile(r"_[0-9a-f]{12}$")


def check_corpus_name(name: str) -> str:
    """``name`` if it is a valid corpus name, else a ConfigError saying what is allowed."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError("the corpus name is empty: give a name such as 'builtin' or 'my-docs'")
    if len(name) > MAX_CHARS:
        raise ConfigError(f"the corpus name is {len(name)} characters long; the limit is {MAX_CHARS}")
    if not _VALID.fullmatch(name):
        raise ConfigError(f"invalid corpus name {name[:MAX_CHARS]!r}: use letters, digits, '_', '.' and '-', "
                          "starting with a letter or digit")
    return name


def _named(name: str) -> str:
    """:func:`check_corpus_name` in a model: its words as a ValueError, which the model reports with the field."""
    try:
        return check_corpus_name(name)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None


# A corpus name in a model (the settings' corpus, a service's corpora): checked by one rule, its JSON Schema the
# pattern a form or a request's schema shows.
CorpusName = Annotated[str, AfterValidator(_named), WithJsonSchema({"type": "string", "pattern": PATTERN})]


def collection_name(corpus: str) -> str:
    """The Milvus collection of ``corpus``; distinct names always get distinct collections."""
    check_corpus_name(corpus)
    clean = re.sub(r"[^A-Za-z0-9_]", "_", corpus)
    # Names left unchanged never end in _<12 hex>, so they cannot meet a hashed one.
    if clean != corpus or _HASHED.search(corpus):
        clean += "_" + hashlib.sha256(corpus.encode()).hexdigest()[:12]
    return "factdebate_" + clean
