"""The deviations Tool-MAD's baselines share with it: the paper's backbones and three documents per query,
each on the baseline the Tool-MAD paper ran beside it; the vote baseline's budget and evidence."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.core.deviations import keys
from factdebate.methods.base import Method
from factdebate.settings.load import load_settings

PAPER_MODEL = "openai:gpt-4o-mini"


def deviations(method: str, **sections: Any) -> list[str]:
    """The keys, less ``answer_format`` (a served model's answers are held to a format: its own test below)."""
    settings = load_settings(overrides={"method": method, "llm": {"debater": PAPER_MODEL}, **sections}, environ={})
    return [key for key in keys(Method.named(method).paper_deviations(settings)) if key != "answer_format"]


@pytest.mark.parametrize("method", ["cot", "single", "mad", "madke", "react"])
def test_each_baseline_ran_on_the_papers_backbones(method: str) -> None:
    web = {"search": "tavily"}
    # ReAct's RAG module and MADKE's pool read our corpus, not the paper's; ReAct skips a repeated search
    corpus = ["rag_corpus"] if method in ("react", "madke") else []
    corpus += ["repeat_skip"] if method == "react" else []
    assert deviations(method, retrieval=web) == corpus
    assert deviations(method, retrieval=web, llm={"debater": "openai:Llama-3.3-70B-Instruct-Turbo"}) == corpus
    # MADKE's debaters read the number note with the in-process model (llm.number_notes: auto)
    noted = ["number_notes"] if method == "madke" else []
    assert deviations(method, retrieval=web, llm={"debater": "llama-cpp:builtin"}) == ["backbone", *corpus, *noted]
    assert deviations(method, retrieval=web, llm={"debater": "llama-cpp:builtin", "number_notes": False}) == [
        "backbone", *corpus]


def test_madkes_pool_on_the_local_index_is_declared() -> None:
    assert deviations("madke", retrieval={"search": "local"}) == ["tools_homogeneous", "search_engine", "rag_corpus"]


def test_a_judge_on_another_model_is_named() -> None:
    settings = load_settings(overrides={"method": "mad", "llm": {"debater": PAPER_MODEL, "judge": "openai:o3"}},
                             environ={})
    (found,) = [d for d in Method.named("mad").paper_deviations(settings) if d.key != "answer_format"]
    assert found.key == "backbone" and found.here == "the model is openai:o3"


def test_react_reads_three_documents_as_the_papers_rag_module() -> None:
    assert deviations("react", retrieval={"k": 5}) == ["top_k", "rag_corpus", "repeat_skip"]


def test_reacts_rag_module_declares_the_corpus_it_reads() -> None:
    settings = load_settings(overrides={"method": "react", "llm": {"debater": PAPER_MODEL}}, environ={})
    (found,) = [d for d in Method.named("react").paper_deviations(settings) if d.key == "rag_corpus"]
    assert "10,033" in found.here and "Wikipedia" in found.paper
    assert deviations("cot", retrieval={"k": 5}) == []  # no retrieval, nothing to depart from


def test_vote_matches_tool_mads_budget_and_evidence() -> None:
    assert deviations("vote", retrieval={"search": "tavily"}) == []
    assert deviations("vote", retrieval={"search": "local"}) == ["tools_homogeneous", "search_engine"]
    assert deviations("vote", retrieval={"search": "tavily"}, methods={"vote": {"samples": 5}}) == ["budget"]
    assert deviations("vote", retrieval={"search": "tavily"}, methods={"vote": {"samples": 31}}) == []


CHATGPT = "openai:gpt-3.5-turbo"


def dpd_baseline(method: str, model: str = CHATGPT, **sections: Any) -> list[str]:
    settings = load_settings(overrides={"method": method, "llm": {"debater": model}, **sections}, environ={})
    return keys(Method.named(method).paper_deviations(settings))


@pytest.mark.parametrize("method", ["selfcheck", "halueval-fewshot", "factool"])
def test_the_dpd_papers_baselines_ran_on_chatgpt_by_its_exact_name(method: str) -> None:
    web = {"retrieval": {"search": "tavily"}}
    assert "backbone" not in dpd_baseline(method, **web)
    assert "backbone" in dpd_baseline(method, "openai:gpt-4o-mini", **web)
    assert "backbone" in dpd_baseline(method, "openai:gpt-4.1", **web)


def test_factool_declares_its_evidence_and_its_backbone() -> None:
    # GPT-4o is MERMAID's FacTool backbone (Table 1), ChatGPT the DPD paper's: the row decides.
    own = "prompt_own_words"  # FacTool's prompts are ours, said on every run
    assert dpd_baseline("factool", "openai:gpt-4o", retrieval={"search": "tavily"}) == [
        "backbone", "search_engine", own]
    assert dpd_baseline("factool", "openai:gpt-4o", retrieval={"search": "tavily"},
                        methods={"factool": {"paper": "mermaid"}}) == ["search_engine", own]
    local = load_settings(overrides={"method": "factool", "llm": {"debater": CHATGPT},
                                     "retrieval": {"search": "local"}}, environ={})
    (found, _) = Method.named("factool").paper_deviations(local)
    assert found.key == "search_engine" and "BM25" in found.here and "Google" in found.paper
    assert dpd_baseline("factool", retrieval={"search": "local", "evidence": "given"}) == ["evidence_given", own]
    assert dpd_baseline("factool", retrieval={"search": "tavily"}, methods={"factool": {"tool": "rag"}}) == [
        "evidence_source", own]


def test_self_checks_prompt_is_declared_ours() -> None:
    assert dpd_baseline("selfcheck") == ["prompt_own_words"]


def test_wecheck_is_always_a_stand_in() -> None:
    assert dpd_baseline("wecheck", retrieval={"search": "tavily"}) == ["stand_in", "search_engine"]
    assert dpd_baseline("wecheck", retrieval={"search": "tavily"}, methods={"wecheck": {"threshold": 0.6}}) == [
        "stand_in", "threshold", "search_engine"]


@pytest.mark.parametrize("method", ["single", "cot", "react", "mad", "madke", "vote", "tool-mad"])
def test_every_toolmad_paper_method_declares_its_answer_format_as_its_backend_holds_it(method: str) -> None:
    """A grammar (the in-process model, a llama.cpp server) holds an answer to five
    sentences; a JSON schema (OpenAI, vLLM, Ollama) holds it to reasoning and a verdict, with no sentence
    limit; with no constraint nothing is declared."""
    from factdebate.core.deviations import Deviation
    from factdebate.methods.base import Method
    from factdebate.settings.load import load_settings

    def found(**llm: object) -> list[Deviation]:
        settings = load_settings(overrides={"method": method, "llm": llm}, environ={})
        return [d for d in Method.named(method).paper_deviations(settings) if d.key == "answer_format"]

    (embedded,) = found()
    assert "at most five sentences" in embedded.here and "in-process" in embedded.here
    (schema,) = found(debater="openai:gpt-4o-mini", constrain="json_schema")
    assert "no sentence limit" in schema.here and "five sentences" not in schema.here
    (auto,) = found(debater="openai:gpt-4o-mini")
    assert "llama.cpp server" in auto.here and "no sentence limit" in auto.here
    assert found(debater="openai:gpt-4o-mini", constrain="none") == []
    assert found(one_call_verdict=False) == []
    assert ("faithfulness is scored on the rendered text" in embedded.here) is (method == "tool-mad")


def test_madkes_pool_declares_its_sources_and_that_the_paper_names_none() -> None:
    """The pool's RAG corpus and two tools on one source are declared; the Tool-MAD paper
    never says where MADKE's pool comes from, so no entry claims the paper used Tavily."""
    settings = load_settings(overrides={"method": "madke", "llm": {"debater": PAPER_MODEL},
                                        "retrieval": {"search": "local"}}, environ={})
    found = {d.key: d for d in Method.named("madke").paper_deviations(settings)}
    assert {"search_engine", "tools_homogeneous", "rag_corpus"} <= set(found)
    for key in ("search_engine", "tools_homogeneous", "rag_corpus"):
        assert "does not say where MADKE's pool comes from" in found[key].paper
    assert "10,033" in found["rag_corpus"].here
    assert deviations("madke", retrieval={"search": "tavily"}) == ["rag_corpus"]


def test_madke_with_the_offline_model_says_what_tells_the_labels_apart_as_tool_mad_does() -> None:
    offline = {"debater": "llama-cpp:qwen2.5-coder-1.5b"}
    for method in ("madke", "tool-mad"):
        assert {"label_guide", "number_notes"} <= set(deviations(method, llm=offline))
    assert "label_guide" not in deviations("madke", llm=offline, methods={"madke": {"label_guide": False}})
    assert not {"label_guide", "number_notes"} & set(deviations("madke", retrieval={"search": "tavily"}))
