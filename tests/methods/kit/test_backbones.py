"""One exact backbone check per paper (kit/backbones.py), walked over every run of papers.toml: each run
passes on every model the paper reports it with, and is declared on the embedded model, on a model of the
same family that is not the paper's, and on a backbone of another of the paper's rows."""

from __future__ import annotations

import pytest

from factdebate.eval.reproduce.differences import cell_deviations, cell_settings, cells
from factdebate.eval.reproduce.spec import Paper, papers
from factdebate.methods.base import Method
from factdebate.methods.kit.backbones import SERVED, served_name

CELLS = [(paper, run, dataset) for paper in papers().values() for run, dataset in
         {run: dataset for run, dataset in reversed(cells(paper))}.items()]
NEVER = ["llama-cpp:builtin", "openai:gpt-4.1", "openai:deepseek-r1:8b", "openai:llama-3.3-70b-instruct-awq",
         "openai:gpt-4o-mini-search-preview", "scripted:mermaid"]


def figure_models(paper: Paper, run: str) -> set[str]:
    """The backbones the paper reports ``run``'s rows with (kit/backbones.py's keys)."""
    return {key.replace("_", ".") for table in paper.tables for row in table.rows if row.run == run
            for key in row.paper if key != "unstated"}


def backbone(paper: Paper, run: str, dataset: str, model: str) -> list[str]:
    settings = cell_settings(paper, run, dataset, {"llm": model})
    found = [d for d in Method.named(settings.method).paper_deviations(settings) if d.key == "backbone"]
    assert len(found) <= 1
    return [d.restore for d in found]


@pytest.mark.parametrize(("paper", "run", "dataset"), CELLS, ids=[f"{p.key}/{r}" for p, r, _ in CELLS])
def test_every_run_is_checked_against_its_papers_backbones(paper: Paper, run: str, dataset: str) -> None:
    method = Method.named(paper.runs[run].method)
    for model in figure_models(paper, run):
        for name in SERVED[model]:
            assert backbone(paper, run, dataset, f"openai:{name}") == [], f"{name} is the paper's {model}"
    if not method.roles:  # WeCheck's stand-in asks no model
        assert all(backbone(paper, run, dataset, model) == [] for model in NEVER)
        return
    for model in NEVER:
        (restore,) = backbone(paper, run, dataset, model)
        assert restore.startswith("--llm openai:") and served_name(restore.split()[-1]) in {
            name for key in figure_models(paper, run) | accepted_elsewhere(paper, run) for name in SERVED[key]}
    # A backbone of the same paper's other rows is no backbone of this one's, unless the paper ran this
    # method on it too (Tool-MAD's ablations ran on GPT-4o-mini, its main row on Llama-3.3-70B as well).
    others = {m for r in paper.runs for m in figure_models(paper, r)} - accepted_elsewhere(paper, run)
    for model in others:
        assert backbone(paper, run, dataset, f"openai:{SERVED[model][0]}"), f"{run} passed on {model}"


def accepted_elsewhere(paper: Paper, run: str) -> set[str]:
    """The backbones the paper ran this run's method (and row kind) on in any of its rows, or any version of
    the paper did (the ACL draft's runs are declared against the journal's backbones)."""
    method = paper.runs[run].method
    versions = [p for p in papers().values() if p.method == paper.method]
    return {m for version in versions for r, spec in version.runs.items()
            if spec.method == method and (spec.method != "single" or r == run) for m in figure_models(version, r)}


def test_factool_is_checked_against_the_row_it_stands_for() -> None:
    mermaid, dpd = papers()["mermaid"], papers()["dpd"]
    assert backbone(mermaid, "factool", "factool-qa", "openai:gpt-4o") == []
    assert backbone(mermaid, "factool", "factool-qa", "openai:gpt-3.5-turbo") == ["--llm openai:gpt-4o"]
    assert backbone(dpd, "factool", "factool-qa", "openai:gpt-4o") == ["--llm openai:gpt-3.5-turbo"]


def test_mermaid_on_a_model_the_paper_did_not_run_says_so() -> None:
    paper = papers()["mermaid"]
    settings = cell_settings(paper, "mermaid", "factool-qa", {"llm": "openai:gpt-4o-mini"})
    (found,) = [d for d in Method.named("mermaid").paper_deviations(settings) if d.key == "backbone"]
    assert found.here == "the model is openai:gpt-4o-mini" and "GPT-4o" in found.paper
    assert found.restore == "--llm openai:gpt-5-mini"
    assert "backbone" in {d["key"] for d in cell_deviations(paper, "mermaid", "factool-qa")}  # offline: embedded


@pytest.mark.parametrize(("spec", "name"), [
    ("openai:meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b-instruct"), ("openai:GPT-4o", "gpt-4o"),
    ("openai:llama3.3:70b", "llama3.3:70b"), ("llama-cpp:/models/llama-3.3-70b-instruct.gguf", None)])
def test_the_name_checked_is_the_served_one(spec: str, name: str | None) -> None:
    assert served_name(spec) == name


def _keyed(method: str, llm: dict[str, object], key: str) -> list[str]:
    from factdebate.settings.load import load_settings

    settings = load_settings(overrides={"method": method, "llm": llm}, environ={})
    return [d.here for d in Method.named(method).paper_deviations(settings) if d.key == key]


def test_mixed_backbones_are_declared_even_when_each_is_the_papers() -> None:
    """A Llama-3.3-70B debater with a GPT-4o-mini judge: each is a Tool-MAD backbone, the pair is no row of
    the paper's."""
    mixed = {"debater": "openai:llama-3.3-70b-instruct", "judge": "openai:gpt-4o-mini",
             "scorer": "openai:gpt-4o-mini"}
    (here,) = _keyed("tool-mad", mixed, "backbone")
    assert "debater openai:llama-3.3-70b-instruct" in here and "judge openai:gpt-4o-mini" in here
    assert _keyed("tool-mad", {**mixed, "judge": "openai:Llama-3.3-70B-Instruct-Turbo"}, "backbone") == []
    assert _keyed("mad", {"debater": "openai:gpt-4o-mini", "judge": "openai:llama-3.3-70b-instruct"}, "backbone")


def test_the_toolmad_scorer_model_is_checked() -> None:
    """The papers name no scorer model; the authors' code scores with RAGAS on GPT-4o-mini, also under the
    Llama backbone. The scorer is not held to the debaters' backbone."""
    llama = {"debater": "openai:llama-3.3-70b-instruct"}
    (here,) = _keyed("tool-mad", llama, "scorer_model")
    assert "openai:llama-3.3-70b-instruct" in here
    assert _keyed("tool-mad", {**llama, "scorer": "openai:gpt-4o-mini"}, "scorer_model") == []
    assert _keyed("tool-mad", {**llama, "scorer": "openai:gpt-4o-mini"}, "backbone") == []
    assert _keyed("tool-mad", {"debater": "openai:gpt-4o-mini"}, "scorer_model") == []


def test_the_dpd_claim_extractor_is_checked() -> None:
    """DPD's ChatGPT extracts the claims too (Section 4.1), as FacTool's does."""
    chatgpt = {"debater": "openai:gpt-3.5-turbo"}
    assert _keyed("dpd", chatgpt, "backbone") == []
    (here,) = _keyed("dpd", {**chatgpt, "roles": {"extractor": "openai:gpt-4o"}}, "backbone")
    assert "openai:gpt-4o" in here
