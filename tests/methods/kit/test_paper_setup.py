"""The deviations Tool-MAD's baselines share with it: the paper's backbones and three documents per query,
each on the baseline the Tool-MAD paper ran beside it; the vote baseline's budget and evidence."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.core.deviations import keys
from factdebate.methods.base import get_method
from factdebate.settings.load import load_settings

PAPER_MODEL = "openai:gpt-4o-mini"


def deviations(method: str, **sections: Any) -> list[str]:
    settings = load_settings(overrides={"method": method, "llm": {"debater": PAPER_MODEL}, **sections}, environ={})
    return keys(get_method(method).paper_deviations(settings))


@pytest.mark.parametrize("method", ["cot", "single", "mad", "madke", "react"])
def test_each_baseline_ran_on_the_papers_backbones(method: str) -> None:
    assert deviations(method) == []
    assert deviations(method, llm={"debater": "openai:Llama-3.3-70B-Instruct-Turbo"}) == []
    assert deviations(method, llm={"debater": "llama-cpp:builtin"}) == ["backbone"]


def test_a_judge_on_another_model_is_named() -> None:
    settings = load_settings(overrides={"method": "mad", "llm": {"debater": PAPER_MODEL, "judge": "openai:o3"}},
                             environ={})
    (found,) = get_method("mad").paper_deviations(settings)
    assert found.key == "backbone" and found.here == "the model is openai:o3"


def test_react_reads_three_documents_as_the_papers_rag_module() -> None:
    assert deviations("react", retrieval={"k": 5}) == ["top_k"]
    assert deviations("cot", retrieval={"k": 5}) == []  # no retrieval, nothing to depart from


def test_vote_matches_tool_mads_budget_and_evidence() -> None:
    assert deviations("vote", retrieval={"search": "tavily"}) == []
    assert deviations("vote", retrieval={"search": "local"}) == ["tools_homogeneous"]
    assert deviations("vote", retrieval={"search": "tavily"}, methods={"vote": {"samples": 5}}) == ["budget"]
    assert deviations("vote", retrieval={"search": "tavily"}, methods={"vote": {"samples": 29}}) == []
