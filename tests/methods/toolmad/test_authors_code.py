"""The Tool-MAD authors' code's settings each declared where a run differs from them:
methods/toolmad/authors_code.py, through Tool-MAD's paper_deviations."""

from __future__ import annotations

from typing import Any

from factdebate.methods.base import Method
from factdebate.settings.load import load_settings

PAPER = {"llm": {"debater": "openai:gpt-4o-mini"}, "retrieval": {"search": "tavily"}}


def declared(**sections: Any) -> dict[str, tuple[str, str, str]]:
    settings = load_settings(overrides={**PAPER, **sections}, environ={})
    return {d.key: (d.paper, d.here, d.restore) for d in Method.named("tool-mad").paper_deviations(settings)}


def test_each_setting_of_the_authors_code_is_named_where_a_run_differs() -> None:
    found = declared()
    paper, here, _ = found["rag_encoder"]
    assert "gte-large-en-v1.5" in paper and "inner product" in paper and "all-MiniLM-L6-v2" in here
    paper, here, _ = found["scoring_library"]
    assert all(words in paper for words in ("RAGAS", "0.3.0", "gpt-4o-mini", "default OpenAI embeddings"))
    assert "openai:gpt-4o-mini" in here
    paper, here, _ = found["search_depth"]
    assert "LangChain" in paper and "max_results=3" in paper and "advanced" in paper and "basic" in here
    assert "temperature" not in found
    assert declared(llm={"debater": "openai:gpt-4o-mini", "temperature": 0.3})["temperature"][1:] == (
        "the debaters' answers and the judge at temperature 0.3", "--temperature 0")


def test_a_run_without_the_tool_or_the_scores_is_not_told_of_them() -> None:
    found = declared(methods={"tool-mad": {"agents": ["search", "none"], "scoring": False}})
    assert {"rag_encoder", "scoring_library"}.isdisjoint(found) and "search_depth" in found
    assert "search_depth" not in declared(retrieval={"search": "local"})
