"""No method gives a two-label dataset a third label. Every run that papers.toml pairs with
a two-label column is run on it with a model that answers NOT ENOUGH INFO wherever it can
(``scripted:unsure``): the prompts offer two labels there, and what still comes back as the third is
answered REFUTES by the declared rule (core/claim_context.py), counted in the summary, so that accuracy and
the factual class's precision and recall read it alike. ``reproduce dpd --table table2 --limit 3`` with that
model writes no third label in any results file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.cli.main import run
from factdebate.core.claim_context import two_labels
from factdebate.eval.datasets import BINARY_LABELS, Dataset, Sample
from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.reproduce.differences import OFFLINE, cells
from factdebate.eval.reproduce.spec import papers
from factdebate.eval.runner import execute, make_plan
from factdebate.llm.scripted_library import scripted_backend
from factdebate.methods.mermaid.method import MermaidSettings, toolbox_key
from factdebate.methods.mermaid.toolbox import Toolbox
from factdebate.prompts import render
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings
from factdebate.settings.options import Option
from tests.eval.support import first_records
from tests.eval.test_response_eval import factool_file
from tests.helpers import BagOfWordsEncoder, StaticTool
from tests.methods.mermaid.support import FactToolset

NEI = "NOT ENOUGH INFO"
# Columns of papers.toml that are not two-label tasks: FEVER has NOT ENOUGH INFO, AVeriTeC four labels,
# MedQA and PubMedQA are multiple choice. Every other column is walked (a new one is walked by default).
NOT_TWO_LABELS = {"fever", "averitec", "medqa", "pubmedqa"}
CLAIMS = [Sample("true", "Paris is the capital of France", "SUPPORTS"),
          Sample("false", "Paris is the capital of Spain", "REFUTES")]


def pairs() -> list[tuple[str, str, str]]:
    """(paper, run, column) of every cell of papers.toml on a two-label column, one per distinct dataset."""
    seen: dict[tuple[str, str, str, str], tuple[str, str, str]] = {}
    for key, paper in papers().items():
        for run_name, column in cells(paper):
            spec = paper.datasets[column]
            if spec.name not in NOT_TWO_LABELS:
                seen.setdefault((key, run_name, spec.name, spec.unit), (key, run_name, column))
    return list(seen.values())


def dataset_for(name: str, unit: str, tmp_path: Path) -> Dataset:
    if name.startswith("halueval-"):  # DPD's task modes read the sample's own fields: the real records
        full = first_records(name, tmp_path)
        samples = [next(s for s in full.samples if s.gold == gold) for gold in BINARY_LABELS]
        return Dataset(kind=full.kind, labels=full.labels, samples=samples, max_claim_chars=full.max_claim_chars,
                       evidence=full.evidence)
    if unit == "response":
        return load_dataset(f"factool-qa-responses:{factool_file(tmp_path)}")
    return Dataset(kind=name, labels=BINARY_LABELS, samples=list(CLAIMS), spec=name)


async def run_cell(paper_key: str, run_name: str, column: str,
                   tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    paper = papers()[paper_key]
    spec, col = paper.runs[run_name], paper.datasets[column]
    options = {"method": spec.method, **OFFLINE, **col.options, **spec.options}
    options = {k: v.replace("{run_dir}", str(tmp_path)) if isinstance(v, str) else v for k, v in options.items()}
    overrides = Option.overrides(options)
    overrides["llm"] = {**overrides.get("llm", {}), "cache": False}
    settings = load_settings(overrides=overrides, environ={})
    dataset = dataset_for(col.name, col.unit, tmp_path)
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, backends={"debater": scripted_backend("unsure")},
                                tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
    if spec.method == "mermaid":  # an in-process toolset stands in for the MCP servers
        cfg = settings.methods["mermaid"]
        assert isinstance(cfg, MermaidSettings)
        facts = FactToolset({"paris": "Paris is the capital and largest city of France."})
        await resources.services.get(toolbox_key(settings, cfg), lambda: Toolbox([facts]))
    out = tmp_path / "out"
    plan = make_plan(settings, dataset, out, limit=None, seed=0, samples=dataset.samples)
    async with resources:
        await execute(plan, resources, progress=False)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return records, json.loads((out / "summary.json").read_text())


def labels_in(record: dict[str, Any]) -> list[Any]:
    """Every verdict label a results record holds: the sample's, each checked claim's, each annotated claim's."""
    found = [record.get("predicted"), record.get("label")]
    for check in record.get("claims") or []:
        found += [check.get("label"), (check.get("verdict") or {}).get("label")]
    found += [claim.get("predicted") for claim in record.get("claim_results") or []]
    return found


@pytest.mark.parametrize(("paper", "run_name", "column"), pairs())
async def test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label(paper: str, run_name: str, column: str,
                                                                           tmp_path: Path) -> None:
    records, summary = await run_cell(paper, run_name, column, tmp_path)
    assert len(records) == 2 and not [r["error"] for r in records if r.get("error")]
    for record in records:
        assert NEI not in labels_in(record), (run_name, column, record["id"])
        assert record["correct"] == (record["predicted"] == record["gold"])
    metrics = summary["metrics"]
    assert NEI not in metrics["confusion"]["predicted"] and set(metrics["per_class"]) <= set(BINARY_LABELS)
    # Accuracy and the factual class's precision and recall read the same answers: every right answer is on
    # the confusion matrix's diagonal, the true positives and true negatives of the factual class.
    matrix, gold, predicted = (metrics["confusion"][k] for k in ("matrix", "gold", "predicted"))
    diagonal = sum(matrix[i][predicted.index(g)] for i, g in enumerate(gold) if g in predicted)
    assert metrics["correct"] == diagonal == sum(r["correct"] for r in records)


def test_the_walk_covers_every_paper_and_what_the_issue_names() -> None:
    walked = {(p, r) for p, r, _ in pairs()}
    assert {("dpd", "selfcheck-0"), ("dpd", "selfcheck-3"), ("dpd", "halueval-fewshot"), ("toolmad", "single"),
            ("toolmad", "tool-mad"), ("mermaid", "mermaid"), ("mermaid", "factool"), ("dpd", "wecheck")} <= walked


def test_the_prompts_offer_two_labels_on_a_two_label_task() -> None:
    with two_labels(True):
        two = [render(name, claim="c", examples=[], failed="").text
               for name in ("single", "cot", "selfcheck", "label_reask")]
    three = render("single", claim="c").text
    assert not [text for text in two if NEI in text] and NEI in three


def test_reproduce_dpd_table2_with_a_model_that_answers_not_enough_info(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"prompt": f"Question {i}?", "response": f"Paris is the capital of France. Rome is in Italy {i}.",
             "label": i != 1, "claims": [{"claim": "Paris is the capital of France.", "label": True},
                                          {"claim": f"Rome is in Italy {i}.", "label": i != 1}]} for i in range(3)]
    data = tmp_path / "knowledge_qa.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    code = run(["reproduce", "dpd", "--table", "table2", "--limit", "3", "--data",
                f"factool-qa=factool-qa-responses:{data}", "--llm", "scripted:unsure", "--no-cache", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    results = sorted(out.glob("*/*/results.jsonl"))
    assert len(results) == 4
    answered = 0
    for path in results:
        records = [json.loads(line) for line in path.read_text().splitlines()]
        assert len(records) == 3
        for record in records:
            assert NEI not in labels_in(record), path
        summary = json.loads((path.parent / "summary.json").read_text())
        two = summary["metrics"]["two_labels"]
        answered += two["third_label"] + two["ties"]
        assert NEI not in json.dumps(summary["metrics"].get("claim_level", {}).get("per_class", {}))
        assert json.loads((path.parent / "run.json").read_text())["label_map"][NEI] == "REFUTES"
    assert answered > 0  # the model's third answers were met, answered in two labels and counted
