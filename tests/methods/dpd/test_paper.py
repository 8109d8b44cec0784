"""Where DPD's settings depart from the paper, and the referees as independent models: one model per
referee (``judge_llms`` or ``llm.roles``), each answering from its own scripted backend, and the agreement of
the panel over a run in the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.deviations import keys
from factdebate.eval.datasets import BINARY_LABELS, Dataset, Sample
from factdebate.eval.runner import Plan, execute
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.base import Method
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from factdebate.util.errors import ConfigError
from tests.helpers import CLAIM, BagOfWordsEncoder, StaticTool
from tests.methods.dpd.test_method import ballot, dpd_script

MODELS = ["openai:gpt-4o", "openai:gpt-4o-mini", "openai:gpt-3.5-turbo"]
PAPER = {"llm": {"debater": "openai:gpt-3.5-turbo"}, "retrieval": {"search": "tavily"},
         "methods": {"dpd": {"judge_llms": MODELS}}}


def settings(**sections: Any) -> Settings:
    return load_settings(overrides={"method": "dpd", **sections}, environ={})


def deviations(dpd: dict[str, Any] | None = None, **sections: Any) -> list[str]:
    chosen = settings(**{**PAPER, **sections, "methods": {"dpd": {"judge_llms": MODELS, **(dpd or {})}}})
    return keys(Method.named("dpd").paper_deviations(chosen))


def test_one_model_per_referee_from_the_flag_or_the_roles_map() -> None:
    bound = settings(methods={"dpd": {"judge_llms": MODELS}})
    assert [bound.llm_for(f"judge-{n}") for n in ("factual", "logical", "rhetorical")] == MODELS
    roles = {f"judge-{n}": m for n, m in zip(("factual", "logical", "rhetorical"), MODELS, strict=True)}
    assert [settings(llm={"roles": roles}).llm_for(r) for r in roles] == MODELS
    with pytest.raises(ConfigError, match="judge_llms names 2 model"):
        settings(methods={"dpd": {"judge_llms": MODELS[:2]}})
    clash = settings(llm={"roles": {"judge-logical": "openai:o3"}}, methods={"dpd": {"judge_llms": MODELS}})
    with pytest.raises(ConfigError, match=r"judge 'logical'.*set it in one place"):
        Method.named("dpd").check(clash)


def test_one_model_for_every_referee_is_a_deviation() -> None:
    shared = keys(Method.named("dpd").paper_deviations(settings()))
    assert "judges_one_model" in shared
    (found,) = [d for d in Method.named("dpd").paper_deviations(settings()) if d.key == "judges_one_model"]
    assert "factual, logical, rhetorical are one model (llama-cpp:builtin) at temperature 0.0" in found.here
    assert found.restore.startswith("--dpd-judge-llms MODEL_1,MODEL_2,MODEL_3")
    assert "judges_one_model" not in deviations()


def test_the_papers_setting_and_each_departure() -> None:
    # Tavily for Google; rounds counted after the opening; no attention to scale.
    assert deviations() == ["search_engine", "min_rounds_counted", "summarizer_uncertainty"]
    assert deviations(retrieval={"search": "local"}) == [
        "tools_homogeneous", "search_engine", "min_rounds_counted", "summarizer_uncertainty"]
    assert deviations({"min_rounds": 1, "transition": "always-trust", "snippets": 5, "summarizers": False,
                       "query_generation": False}) == [
        "search_engine", "min_rounds", "min_rounds_counted", "transition", "snippets", "query_generation", "modules"]
    assert "min_rounds_counted" not in deviations({"min_rounds": 0})
    assert deviations(llm={"debater": "llama-cpp:builtin"})[0] == "backbone"


def test_the_local_index_is_declared_when_the_gatherers_search_it_alone() -> None:
    """The paper's FacTool runs search Google; ours with one tool (the paper run's dpd_tools = [search])
    on the local BM25 index must say so, though no second tool makes them homogeneous."""
    chosen = settings(**{**PAPER, "retrieval": {"search": "local"},
                         "methods": {"dpd": {"judge_llms": MODELS, "tools": ["search"]}}})
    found = {d.key: d for d in Method.named("dpd").paper_deviations(chosen)}
    assert "tools_homogeneous" not in found
    assert "BM25 over the 'builtin' corpus" in found["search_engine"].here
    assert "Google" in found["search_engine"].paper


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4o", "gpt-4.1", "gpt-4", "my-chatgpt-clone",
                                   "gpt-3.5-turbo-instruct"])
def test_only_the_chatgpt_models_by_name_count_as_the_papers_backbone(model: str) -> None:
    assert "backbone" in deviations(llm={"debater": f"openai:{model}"})


@pytest.mark.parametrize("model", ["gpt-3.5-turbo", "GPT-3.5-Turbo-0125", "gpt-3.5-turbo-16k"])
def test_chatgpt_by_its_exact_names(model: str) -> None:
    assert "backbone" not in deviations(llm={"debater": f"openai:{model}"})


def test_heterogeneity_follows_the_gatherers_tools() -> None:
    dpd = Method.named("dpd")
    assert dpd.tools_heterogeneous(settings(retrieval={"search": "local"})) is False
    assert dpd.tools_heterogeneous(settings(retrieval={"search": "tavily"})) is True
    assert dpd.tools_heterogeneous(settings(methods={"dpd": {"tools": ["rag"]}})) is None
    # HaluEval's modes debate the dataset's own evidence: nothing is searched, so nothing is compared.
    qa = Dataset(kind="halueval-qa", labels=BINARY_LABELS, samples=[])
    local = settings(retrieval={"search": "local"})
    assert dpd.tools_heterogeneous(dpd.sample_settings(local, qa)) is None
    assert "tools_homogeneous" not in keys(dpd.paper_deviations(dpd.sample_settings(local, qa)))


def referee(vote: str, seen: list[str]) -> ScriptedBackend:
    """A referee of its own: it always votes ``vote`` and notes which judge it served."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        seen.append(call.agent)
        return ballot(vote, 0.9)

    return ScriptedBackend(respond)


async def test_each_referee_asks_its_own_model_and_the_summary_reports_their_agreement(tmp_path: Path) -> None:
    chosen = settings(llm={"cache": False}, methods={"dpd": {"judge_llms": ["scripted:agree", "scripted:disagree",
                                                                          "scripted:agree@0.001"],
                                                           "min_rounds": 0, "max_rounds": 0}})
    seen: dict[str, list[str]] = {"factual": [], "logical": [], "rhetorical": []}
    backends = {"debater": ScriptedBackend(dpd_script(lambda judge, r: ("tie", 0.0))),
                "judge-factual": referee("affirmative", seen["factual"]),
                "judge-logical": referee("negative", seen["logical"]),
                "judge-rhetorical": referee("affirmative", seen["rhetorical"])}
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(chosen, backends=backends, tool_factory=lambda kind: tools[kind],
                                encoder_factory=BagOfWordsEncoder)
    assert resources.llm("judge-logical").backend is backends["judge-logical"]
    verdict = await run_claim(CLAIM, chosen, resources)
    assert {name: set(agents) for name, agents in seen.items()} == {n: {n} for n in seen}  # nobody else's calls
    assert [j.vote.value for j in verdict.judges if j.vote] == ["SUPPORTS", "REFUTES", "SUPPORTS"]
    assert "judges_one_model" not in keys(verdict.deviations)

    samples = [Sample(f"c{i}", CLAIM, "SUPPORTS") for i in range(2)]
    dataset = Dataset(kind="claims", labels=BINARY_LABELS, samples=samples, spec="claims")
    summary = await execute(Plan("t", chosen, dataset, samples, tmp_path, 0, None), resources, progress=False)
    agreement = summary["metrics"]["paper"]["judges_agreement"]
    # Every panel votes A, N, A: one pair of three agrees; kappa is below chance (P_e = 5/9).
    assert agreement["claims"] == 2 and agreement["pairwise"] == pytest.approx(1 / 3)
    assert agreement["fleiss_kappa"] == pytest.approx((1 / 3 - 5 / 9) / (1 - 5 / 9))
    assert agreement["pairs"] == {"factual/logical": 0.0, "factual/rhetorical": 1.0, "logical/rhetorical": 0.0}
    assert "referees' agreement over 2 claim(s): pairwise 0.333" in (tmp_path / "summary.md").read_text()
    assert json.loads((tmp_path / "run.json").read_text())["tools_heterogeneous"] is False
    assert "- tools heterogeneous: **no**" in (tmp_path / "summary.md").read_text()


def test_gatherers_with_fewer_tools_than_the_papers_say_so() -> None:
    """The paper's gatherers search Google and a RAG knowledge base (Section 3): one tool, or none on a claim,
    is declared; HaluEval's modes, which hand the teams the sample's knowledge, are not."""
    assert "tools" not in deviations()
    for tools, here in ((["rag"], "only the rag tool"), (["search"], "only the search tool")):
        (found,) = [d for d in Method.named("dpd").paper_deviations(settings(**{**PAPER, "methods": {"dpd": {
            "judge_llms": MODELS, "tools": tools}}})) if d.key == "tools"]
        assert here in found.here and found.restore == "--dpd-tools search,rag"
    assert "tools" in deviations({"tools": [], "task": "claim"})
    assert "tools" not in deviations({"tools": [], "task": "qa"})
    # The default task, auto, debates a claim as a claim: no tools there is declared too; where auto picks a
    # HaluEval mode, the mode's settings name it, so the knowledge handed to the teams is not "no evidence".
    assert "tools" in deviations({"tools": []})
    from factdebate.methods.dpd.tasks import task_settings

    qa = task_settings("qa", settings(**{**PAPER, "methods": {"dpd": {"judge_llms": MODELS, "tools": []}}}))
    assert qa.methods["dpd"].task == "qa"
    assert "tools" not in keys(Method.named("dpd").paper_deviations(qa))
