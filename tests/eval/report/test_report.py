"""Reports: the table and every plot from real run directories; grids expand into named runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.eval.grid import load_grid
from factdebate.eval.report.side_by_side import build_report, load_run
from factdebate.eval.runner import execute, make_plan
from factdebate.settings.load import load_settings
from factdebate.util.errors import InputError
from tests.eval.support import resources_for, truthful

PNG = b"\x89PNG\r\n\x1a\n"


def claims(tmp_path: Path) -> str:
    rows = [{"id": i, "claim": f"Claim {i} is {'true' if i % 3 else 'odd'}.", "label": "SUPPORTS"} for i in range(6)]
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f"fever:{path}"


async def run(tmp_path: Path, name: str, method: str, **toolmad: object) -> Path:
    settings = load_settings(overrides={"method": method, "llm": {"cache": False}, "methods": {"tool-mad": toolmad}},
                             environ={})
    plan = make_plan(settings, claims(tmp_path), tmp_path / name, limit=None, seed=0)
    resources, _, _ = resources_for(truthful, method=method)
    await execute(plan, resources, progress=False)
    return plan.output


async def test_report_writes_the_table_and_all_plots(tmp_path: Path) -> None:
    runs = [await run(tmp_path, "tm-1", "tool-mad", rounds=1), await run(tmp_path, "tm-2", "tool-mad", rounds=2),
            await run(tmp_path, "cot", "cot")]
    written = build_report(runs, tmp_path / "report")
    names = {p.name for p in written}
    assert names == {"report.md", "accuracy_by_run.png", "accuracy_by_rounds.png", "score_distributions.png",
                     "scores_correct_vs_incorrect.png", "cost_per_claim.png"}
    for path in written:
        assert path.stat().st_size > 0
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG
    table = (tmp_path / "report" / "report.md").read_text()
    assert "| tm-1 | tool-mad |" in table and "| cot | cot |" in table and "0.667 [" in table


async def test_report_of_baselines_only_says_what_is_missing(tmp_path: Path) -> None:
    written = build_report([await run(tmp_path, "cot", "cot")], tmp_path / "report")
    assert {p.name for p in written} == {"report.md", "accuracy_by_run.png", "cost_per_claim.png"}
    text = (tmp_path / "report" / "report.md").read_text()
    assert "no accuracy-by-rounds plot" in text and "no score plots" in text


async def test_runs_with_the_same_name_are_told_apart_by_dataset(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = await run(tmp_path / "a", "cot", "cot")
    second = await run(tmp_path / "b", "cot", "cot")
    build_report([first, second], tmp_path / "report")
    assert (tmp_path / "report" / "report.md").read_text().count("| fever:claims.jsonl/cot | cot |") == 2


async def test_a_smaller_limit_resummarises_the_first_samples_and_the_report_plots_only_those(
        tmp_path: Path) -> None:
    full = await run(tmp_path, "tm", "tool-mad", rounds=1)
    settings = load_settings(overrides={"method": "tool-mad", "llm": {"cache": False},
                                        "methods": {"tool-mad": {"rounds": 1}}},
                             environ={})
    plan = make_plan(settings, claims(tmp_path), full, limit=4, seed=0)
    resources, backend, _ = resources_for(truthful, method="tool-mad")
    summary = await execute(plan, resources, progress=False)
    assert not backend.calls  # nothing re-run: the first 4 were finished
    assert summary["metrics"]["n"] == 4 and summary["ids"] == [s.id for s in plan.samples]
    build_report([full], tmp_path / "report")
    table = (tmp_path / "report" / "report.md").read_text()
    assert "claims.jsonl | 4 | 0.750 [" in table
    assert len(load_run(full).records) == 4 and len((full / "results.jsonl").read_text().splitlines()) == 6


def test_report_needs_finished_runs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"summary\.json"):
        build_report([tmp_path], tmp_path / "out")


def test_grid_expands_axes_and_named_runs(tmp_path: Path) -> None:
    path = tmp_path / "grid.yaml"
    path.write_text("dataset: countries\nlimit: 5\noptions: {k: 2}\n"
                    "grid: {rounds: [1, 2], agents: [[rag, search], [rag, none]]}\n"
                    "runs: [{name: qf, options: {query_formulation: true}}, "
                    "{name: no-qf, options: {query_formulation: false}}]\n")
    grid = load_grid(path)
    assert grid.dataset == "countries" and grid.limit == 5 and len(grid.runs) == 8
    first = grid.runs[0]
    assert first.name == "qf_rounds=1_agents=rag+search" and first.method == "tool-mad"
    assert first.options == {"k": 2, "query_formulation": True, "rounds": 1, "agents": ["rag", "search"]}
    methods = tmp_path / "methods.yaml"
    methods.write_text("grid: {method: [cot, mad, vote]}\n")
    assert [(r.name, r.method) for r in load_grid(methods).runs] == [("cot", "cot"), ("mad", "mad"),
                                                                     ("vote", "vote")]
    bad = tmp_path / "bad.yaml"
    bad.write_text("grid: {roundz: [1]}\n")
    with pytest.raises(InputError, match="roundz"):
        load_grid(bad)
