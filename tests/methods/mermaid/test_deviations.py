"""MERMAID's paper deviations: what each setting that departs from the paper reports, and that the defaults
report only the toolset (Google Search and Google Scholar have no stand-in here)."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.core.deviations import keys
from factdebate.methods.base import Method
from factdebate.settings.load import load_settings

PAPER_MODEL = {"debater": "openai:gpt-5-mini"}  # the paper's backbone: no `backbone` deviation


def deviation_keys(**mermaid: Any) -> list[str]:
    settings = load_settings(overrides={"method": "mermaid", "llm": PAPER_MODEL, "methods": {"mermaid": mermaid}},
                             environ={})
    return keys(Method.named("mermaid").paper_deviations(settings))


def test_the_defaults_are_the_papers_but_for_the_toolset_and_the_recall_caps() -> None:
    assert deviation_keys() == ["memory_record", "recall_caps", "toolset", "tools_all_failed", "repeat_skip"]
    embedded = load_settings(overrides={"method": "mermaid"}, environ={})
    assert keys(Method.named("mermaid").paper_deviations(embedded)) == [
        "backbone", "memory_record", "recall_caps", "toolset", "tools_all_failed", "repeat_skip"]
    settings = load_settings(overrides={"method": "mermaid", "llm": PAPER_MODEL}, environ={})
    [_, caps, toolset, _, _] = Method.named("mermaid").paper_deviations(settings)
    assert "at most 3 records per entity and 8 per claim" in caps.here
    assert "Wikipedia tools over the indexed corpus, offline" in toolset.here and "no scholarly search" in toolset.here


@pytest.mark.parametrize("mermaid, key", [
    ({"memory_semantic": True}, "semantic_recall"),
    ({"memory": "off"}, "memory_off"),
    ({"memory": "readonly"}, "memory_readonly"),
    ({"memory_path": "/tmp/shared.sqlite"}, "memory_shared"),
    ({"memory_from": "/tmp/earlier.sqlite"}, "memory_seeded"),
    ({"decomposer": False}, "no_decomposer"),
    ({"labels": "three-way"}, "three_way_labels"),
    ({"max_steps": 3}, "max_steps"),
])
def test_each_departure_is_reported_with_the_way_back(mermaid: dict[str, Any], key: str) -> None:
    memory = [] if mermaid.get("memory") == "off" else ["memory_record", "recall_caps"]
    assert deviation_keys(**mermaid) == [key, *memory, "toolset", "tools_all_failed", "repeat_skip"]
    settings = load_settings(overrides={"method": "mermaid", "llm": PAPER_MODEL, "methods": {"mermaid": mermaid}},
                             environ={})
    found = Method.named("mermaid").paper_deviations(settings)[0]
    assert found.paper and found.here and found.restore


def test_with_the_memory_off_its_other_settings_are_not_deviations() -> None:
    assert deviation_keys(memory="off", memory_semantic=True, memory_path="/tmp/x.sqlite") == [
        "memory_off", "toolset", "tools_all_failed", "repeat_skip"]


@pytest.mark.parametrize(("engine", "said", "engines"), [
    ("local", "web search: none, BM25 over the 'builtin' corpus on this machine", "local"),
    ("tavily", "web search on Tavily (the live web), with BM25 over the 'builtin' corpus beside it", "local,tavily")])
def test_the_toolset_names_the_search_engine_the_run_uses(engine: str, said: str, engines: str) -> None:
    """One engine, the one the settings resolved, said and started."""
    from factdebate.methods.mermaid.toolbox import shipped_config

    settings = load_settings(overrides={"method": "mermaid", "llm": PAPER_MODEL, "retrieval": {"search": engine},
                                        "methods": {"mermaid": {"servers": ["wikipedia", "search"]}}}, environ={})
    (toolset,) = [d for d in Method.named("mermaid").paper_deviations(settings) if d.key == "toolset"]
    assert said in toolset.here and "otherwise" not in toolset.here
    args = shipped_config("search", settings).args
    assert args[args.index("--engines") + 1] == engines


def test_the_memory_record_and_a_claim_whose_tools_all_failed_are_declared() -> None:
    """Section 3.4's memory values carry the search query; a claim with every tool call failed is an error
    here, where Algorithm 1's executor answers from what it has."""
    found = {d.key: d for d in Method.named("mermaid").paper_deviations(load_settings(
        overrides={"method": "mermaid", "llm": PAPER_MODEL}, environ={}))}
    assert "search query" in found["memory_record"].paper and "not stored" in found["memory_record"].here
    assert "error" in found["tools_all_failed"].here
    off = load_settings(overrides={"method": "mermaid", "llm": PAPER_MODEL, "methods": {"mermaid": {"memory": "off"}}},
                        environ={})
    assert "memory_record" not in keys(Method.named("mermaid").paper_deviations(off))
