"""Where Tool-MAD's settings depart from the paper: the heterogeneous tools (Tavily by default when its key
is set, a recorded Tavily response here), the answer length, the ablations; each listed on the verdict."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from rich.console import Console

from factdebate.cli.render import render_verdict
from factdebate.core.deviations import keys
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.base import Method
from factdebate.run.build import build_resources, make_tool
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from factdebate.tools.tavily import TavilyTool
from tests.helpers import CLAIM, BagOfWordsEncoder, StaticTool, debate_script, make_resources
from tests.http_support import fixture, no_sleep  # noqa: F401  (autouse fixture)
from tests.recorded_http import RecordedServer, answer

AGREE = {("rag", 1): "SUPPORTS", ("search", 1): "SUPPORTS"}
# The paper's main setting: its backbone, its tools (Tavily), T = 3, k = 3, the judge reads whole documents.
PAPER = {"llm": {"debater": "openai:gpt-4o-mini"}, "retrieval": {"search": "tavily"},
         "methods": {"tool-mad": {"judge_evidence_chars": 1200}}}


def settings(**sections: Any) -> Settings:
    return load_settings(overrides=sections, environ={})


def deviations(**sections: Any) -> list[str]:
    return keys(Method.named("tool-mad").paper_deviations(settings(**{**PAPER, **sections})))


async def test_with_a_tavily_key_the_search_agent_reads_the_web_by_default(recorded: RecordedServer,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    monkeypatch.setattr(TavilyTool, "default_url", recorded.url)  # the engine the settings build, served here
    route = recorded.post("/search", answer(json=fixture("tavily_search.json")))
    chosen = load_settings(overrides={"llm": {"cache": False}, "methods": {"tool-mad": {"speculate": False}}},
                           environ={})  # nothing says which engine
    rag = StaticTool("rag")
    resources = build_resources(chosen, backends={"debater": ScriptedBackend(debate_script(AGREE))},
                                tool_factory=lambda kind: rag if kind == "rag" else make_tool(kind, chosen),
                                encoder_factory=BagOfWordsEncoder)
    verdict = await run_claim(CLAIM, chosen, resources)
    assert route.called and verdict.rounds[0].turns[1].tool == "tavily"
    assert verdict.rounds[0].turns[1].evidence[0].source == "https://www.nasa.gov/image-article/great-wall/"
    assert verdict.tools_heterogeneous is True and "tools_homogeneous" not in keys(verdict.deviations)
    assert verdict.config["retrieval"]["search"] == "tavily"  # the engine that searched, not "auto"


async def test_without_the_key_both_agents_read_the_corpus_and_the_terminal_says_so() -> None:
    resources, _, _ = make_resources(debate_script(AGREE))
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.tools_heterogeneous is False and "tools_homogeneous" in keys(verdict.deviations)
    out = StringIO()
    # every deviation, as --deviations prints them (more than three fold into one line by default)
    render_verdict(verdict, Console(file=out, width=400), rounds=False, all_deviations=True)
    lines = [line for line in out.getvalue().splitlines() if "tools not heterogeneous" in line]
    assert len(lines) == 1 and "the rag and search tools both read the 'builtin' corpus" in lines[0]
    assert "set TAVILY_API_KEY" in lines[0]


def test_an_agent_without_a_tool_leaves_nothing_to_compare() -> None:
    local = settings(methods={"tool-mad": {"agents": ["rag", "none"]}})
    assert Method.named("tool-mad").tools_heterogeneous(local) is None


def test_the_papers_setting_departs_only_where_declared_and_each_change_is_named() -> None:
    # Listed on every run: the built-in corpus for the paper's Wikipedia index, the encoder, answers held to
    # a format, and the judge explains before its label. The threshold test (each round's
    # own scores, strictly above) is the authors' code's: not listed.
    # The authors' code's settings: their RAG encoder, their scoring library, how they
    # query Tavily (methods/toolmad/authors_code.py).
    authors = ["rag_encoder", "scoring_library", "search_depth"]
    later = ["relevance_encoder", "answer_format", "judge_explains", "answer_tokens"]
    always = ["rag_corpus", *authors, *later]
    assert deviations() == always
    # The in-process model's debaters read the number note (llm.number_notes: auto)
    assert deviations(llm={"debater": "llama-cpp:builtin"}) == ["backbone", "rag_corpus", "number_notes", *authors,
                                                                "scorer_model", *later]
    assert deviations(retrieval={"search": "local"}) == ["tools_homogeneous", "search_engine", "rag_corpus",
                                                         *authors[:2], *later]
    assert deviations(retrieval={"search": "wikipedia"}) == ["search_engine", "rag_corpus", *authors[:2], *later]
    assert deviations(retrieval={"search": "tavily", "k": 5}) == ["rag_corpus", "top_k", *authors, *later]
    assert deviations(llm={"debater": "openai:gpt-4o-mini", "temperature": 0.7}) == [
        "rag_corpus", *authors, "temperature", *later]
    assert deviations(methods={"tool-mad": {"judge_evidence_chars": 1200, "threshold_on": "sum"}},
                      llm={"debater": "openai:gpt-4o-mini", "one_call_verdict": False}) == [
        "rag_corpus", *authors, "relevance_encoder", "stability_sum", "judge_explains", "answer_tokens"]
    assert deviations(methods={"tool-mad": {"judge_evidence_chars": 1200, "threshold_pass": "at_least",
                                            "threshold_on": "average"}}) == [
        "rag_corpus", *authors, "relevance_encoder", "threshold_comparison", "stability_sum", "answer_format",
        "judge_explains", "answer_tokens"]
    changed = {"agents": ["rag", "rag"], "rounds": 2, "faithfulness_threshold": 0.5, "query_formulation": False,
               "scoring": False, "answer_sentences": 3, "judge_evidence_chars": 300}
    assert deviations(methods={"tool-mad": changed}) == [
        "tools_homogeneous", "rag_corpus", "agents", "rounds", "rag_encoder", "thresholds", "query_formulation",
        "scoring", "answer_format", "judge_explains", "answer_tokens", "answer_cap",
        "judge_evidence"]  # no scores: no threshold or encoder
    assert deviations(methods={"tool-mad": {"judge_evidence_chars": 1200, "scoring_variant": "consistency"}}) == [
        "rag_corpus", "rag_encoder", "search_depth", "scoring_variant", "answer_format", "judge_explains",
        "answer_tokens"]


def test_a_single_search_agent_on_the_local_index_says_so() -> None:
    """SEARCH + VANILLA on the local index: no second tool to compare, yet not the paper's web search."""
    found = {d.key: d for d in Method.named("tool-mad").paper_deviations(
        settings(**{**PAPER, "retrieval": {"search": "local"},
                    "methods": {"tool-mad": {"agents": ["search", "none"], "judge_evidence_chars": 1200}}}))}
    assert "tools_homogeneous" not in found and "BM25" in found["search_engine"].here


async def test_answers_have_no_length_cap_unless_one_is_set() -> None:
    resources, backend, _ = make_resources(debate_script(AGREE))
    await run_claim(CLAIM, resources.settings, resources)
    asked = [m[0]["content"] for info, m in backend.calls if info.prompt == "debate_answer"]
    assert asked and not any("sentence" in text.split("\n", 1)[0] for text in asked)
    capped, backend, _ = make_resources(debate_script(AGREE), answer_sentences=2)
    verdict = await run_claim(CLAIM, capped.settings, capped)
    asked = [m[0]["content"] for info, m in backend.calls if info.prompt == "debate_answer"]
    assert asked and all("in at most 2 sentences" in text for text in asked)
    assert "answer_cap" in keys(verdict.deviations)


def test_a_calibrated_relevance_threshold_is_recorded_not_called_a_departure() -> None:
    calibrated = {d.key: d for d in Method.named("tool-mad").paper_deviations(settings(**{
        **PAPER, "methods": {"tool-mad": {"judge_evidence_chars": 1200, "relevance_threshold": 0.771,
                                          "relevance_calibrated_dataset": "fever",
                                          "relevance_calibrated_encoder": "all-MiniLM-L6-v2 (int8)",
                                          "relevance_calibrated_share": 0.8}}}))}
    assert "thresholds" not in calibrated and "relevance_calibration_encoder" not in calibrated
    assert "80% of round-1 debate answers on fever pass" in calibrated["relevance_encoder"].here
    plain = {d.key: d for d in Method.named("tool-mad").paper_deviations(settings(**PAPER))}
    assert plain["relevance_encoder"].restore.startswith("factdebate calibrate relevance --dataset")
    # the paper's test is strict (S > St, as threshold_comparison says): the entry must not say ">="
    assert plain["relevance_encoder"].paper.startswith("answer relevance above 0.8 (S > St)")
    assert ">=" not in plain["relevance_encoder"].paper


def test_the_stability_sum_entry_says_what_the_paper_writes_and_what_the_authors_code_does() -> None:
    """Declared only off the default, naming Algorithm 1's sum and the code's per-round test."""
    found = {d.key: d for d in Method.named("tool-mad").paper_deviations(
        settings(**{**PAPER, "methods": {"tool-mad": {"threshold_on": "sum"}}}))}
    entry = found["stability_sum"]
    assert "S <- S + (f, ar)" in entry.paper and "authors' code tests each round's own four scores" in entry.paper
    assert "running sum" in entry.here and entry.restore == "--threshold-on round"
