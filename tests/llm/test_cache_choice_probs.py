"""The response cache keeps a scored choice call's probabilities, so a verdict decided on them is the same when
the answer comes from the cache; and a file written before the column existed gains it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from factdebate.llm.base import Completion, GenParams
from factdebate.llm.cache import ResponseCache


def test_a_cached_answer_keeps_its_choice_probabilities(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.db")
    probs = {"states": 0.7, "contradicts": 0.2, "neither": 0.1}
    cache.put("scored", Completion(text="states", prompt_tokens=9, completion_tokens=1, choice_probs=probs))
    cache.put("plain", Completion(text="states", prompt_tokens=9, completion_tokens=1))
    assert cache.get("scored") == Completion(text="states", prompt_tokens=9, completion_tokens=1,
                                             choice_probs=probs)
    plain = cache.get("plain")
    assert plain is not None and plain.choice_probs is None
    cache.close()


def test_a_cache_file_from_before_the_column_opens_and_reads_no_probabilities(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, text TEXT NOT NULL, prompt_tokens INTEGER,"
               " completion_tokens INTEGER)")
    db.execute("INSERT INTO responses VALUES ('k', 'neither', 5, 1)")
    db.commit()
    db.close()
    cache = ResponseCache(path)
    old = cache.get("k")
    assert old is not None and old.text == "neither" and old.choice_probs is None
    cache.close()


def test_asking_for_the_scores_is_its_own_cache_entry() -> None:
    choices = ("states", "contradicts", "neither")
    assert GenParams(choices=choices).key() != GenParams(choices=choices, choice_scores=True).key()
    assert "choice_scores" not in GenParams(choices=choices).key()  # entries kept before still match
