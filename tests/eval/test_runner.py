"""The runner: results with gold labels, summary files, resume after an interruption in the middle of a run
(nothing lost, nothing counted twice), errored samples retried, refusing to mix two experiments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.estimate import estimate
from factdebate.eval.report.summary import latest_records
from factdebate.eval.runner import execute, make_plan
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.run.batch import finished_ids
from factdebate.settings.load import load_settings
from factdebate.util.errors import InputError
from tests.eval.support import claim_of, resources_for, truthful


class Interrupted(Exception):
    pass


def dataset(tmp_path: Path, n: int = 10) -> str:
    rows = [{"id": f"c{i}", "claim": f"Claim {i} is {'true' if i % 2 else 'wrong'}.",
             "label": "SUPPORTS" if i % 4 else "REFUTES"} for i in range(n)]
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f"fever:{path}"


def plan_for(tmp_path: Path, method: str = "cot", limit: int | None = None, **overrides: Any) -> Any:
    settings = load_settings(overrides={"method": method, "llm": {"cache": False}, **overrides}, environ={})
    return make_plan(settings, dataset(tmp_path), tmp_path / "run", limit=limit, seed=1)


async def test_results_and_summary(tmp_path: Path) -> None:
    plan = plan_for(tmp_path)
    resources, _, _ = resources_for(truthful, method="cot")
    summary = await execute(plan, resources, concurrency=4, progress=False)
    records = [json.loads(line) for line in (plan.output / "results.jsonl").read_text().splitlines()]
    assert len(records) == 10 and {r["id"] for r in records} == {f"c{i}" for i in range(10)}
    first = next(r for r in records if r["id"] == "c1")
    assert first["gold"] == "SUPPORTS" and first["label"] == "SUPPORTS" and first["predicted"] == "SUPPORTS"
    assert first["correct"] is True and first["method"] == "cot" and "config" not in first
    # truthful says SUPPORTS for odd ids; gold is REFUTES for c0, c4, c8 -> c0, c4, c8 right, c1, c3, c5, c7,
    # c9 right, c2 and c6 wrong
    assert summary["metrics"]["correct"] == 8 and summary["complete"]
    assert (plan.output / "summary.md").read_text().startswith("# run: cot on fever:")
    assert json.loads((plan.output / "summary.json").read_text())["metrics"]["n"] == 10
    assert json.loads((plan.output / "run.json").read_text())["settings"]["method"] == "cot"


async def test_resume_after_an_interruption_mid_run(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, method="mad")
    resources, backend, _ = resources_for(truthful, method="mad")
    seen: list[str] = []

    def stop_after_four(record: dict[str, Any]) -> None:
        seen.append(record["id"])
        if len(seen) == 4:
            raise Interrupted

    with pytest.raises(Interrupted):
        await execute(plan, resources, concurrency=1, progress=False, on_record=stop_after_four)
    assert len(latest_records(plan.output / "results.jsonl")) == 4
    assert not (plan.output / "summary.json").exists()
    calls_before = len(backend.calls)
    resources2, backend2, _ = resources_for(truthful, method="mad")
    summary = await execute(plan_for(tmp_path, method="mad"), resources2, concurrency=3, progress=False)
    lines = (plan.output / "results.jsonl").read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert len(ids) == 10 and len(set(ids)) == 10  # nothing lost, nothing twice
    assert len(backend2.calls) == 6 * 3 and calls_before == 4 * 3  # only the 6 missing claims ran again
    assert summary["metrics"]["n"] == 10


async def test_a_torn_last_line_is_rerun(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, limit=3)
    resources, _, _ = resources_for(truthful, method="cot")
    await execute(plan, resources, progress=False)
    results = plan.output / "results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])  # crash mid-write
    resources, backend, _ = resources_for(truthful, method="cot")
    summary = await execute(plan_for(tmp_path, limit=3), resources, progress=False)
    assert len(backend.calls) == 1 and summary["metrics"]["n"] == 3


async def test_errored_samples_count_wrong_are_listed_and_retried_on_rerun(tmp_path: Path) -> None:
    def flaky(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if "Claim 3 " in claim_of(messages):
            raise RuntimeError("backend fell over")
        return truthful(call, messages, params)

    resources, _, _ = resources_for(flaky, method="cot")
    summary = await execute(plan_for(tmp_path), resources, progress=False)
    m = summary["metrics"]
    assert m["errored"] == {"c3": "RuntimeError: backend fell over"} and m["n"] == 10 and m["correct"] == 7
    assert m["confusion"]["matrix"][0][-1] == 1  # the SUPPORTS row, ERROR column
    resources, backend, _ = resources_for(truthful, method="cot")
    summary = await execute(plan_for(tmp_path), resources, progress=False)
    assert len(backend.calls) == 1 and summary["metrics"]["errored"] == {} and summary["metrics"]["correct"] == 8


async def test_unparsed_verdicts_are_wrong_not_dropped(tmp_path: Path) -> None:
    resources, _, _ = resources_for(lambda c, m, p: "I cannot say.", method="single")
    summary = await execute(plan_for(tmp_path, method="single", limit=4), resources, progress=False)
    m = summary["metrics"]
    assert m["n"] == 4 and m["correct"] == 0 and len(m["unparsed"]) == 4
    assert m["confusion"]["predicted"][-2] == "UNPARSED"


async def test_a_directory_keeps_one_experiment(tmp_path: Path) -> None:
    resources, _, _ = resources_for(truthful, method="cot")
    await execute(plan_for(tmp_path, limit=2), resources, progress=False)
    with pytest.raises(InputError, match="method"):
        await execute(plan_for(tmp_path, method="single", limit=2), resources, progress=False)
    with pytest.raises(InputError, match=r"settings\.retrieval\.k: 3 -> 2"):
        await execute(plan_for(tmp_path, limit=2, retrieval={"k": 2}), resources, progress=False)
    # another method's section is not this run's: a CoT run resumes after a Tool-MAD change
    await execute(plan_for(tmp_path, limit=2, methods={"tool-mad": {"rounds": 2}}), resources, progress=False)
    # a larger limit and another concurrency extend the same experiment
    summary = await execute(plan_for(tmp_path, limit=5, concurrency=9), resources, progress=False)
    assert summary["metrics"]["n"] == 5


async def test_dry_run_estimates_then_measures(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, method="tool-mad", limit=4)
    est = estimate(plan, set())
    # 2 agents that agree at once (a query, an answer and a relevance score each) .. 31 calls, each re-asked once
    assert (est.samples, est.todo, est.calls_min, est.calls_max) == (4, 4, 6, 62)
    assert "6 to 62 LLM calls" not in "\n".join(est.lines()) and "24 to 248 LLM calls" in "\n".join(est.lines())
    resources, _, _ = resources_for(truthful, method="tool-mad")
    await execute(plan, resources, progress=False)
    est = estimate(plan_for(tmp_path, method="tool-mad", limit=6), finished_ids(plan.output / "results.jsonl"))
    assert est.measured == 4 and est.calls_measured == 10 and est.todo == 2


async def test_yes_no_maybe_maps_verdicts_to_answers(tmp_path: Path) -> None:
    path = tmp_path / "pqa.json"
    path.write_text(json.dumps({"1": {"QUESTION": "Is Paris in France?", "final_decision": "yes"},
                                "2": {"QUESTION": "Is Rome in France?", "final_decision": "maybe"}}))
    settings = load_settings(overrides={"method": "cot", "llm": {"cache": False}}, environ={})
    plan = make_plan(settings, f"pubmedqa:{path}", tmp_path / "run", limit=None, seed=0)
    resources, _, _ = resources_for(truthful, method="cot")
    summary = await execute(plan, resources, progress=False)
    records = latest_records(plan.output / "results.jsonl")
    assert records["1"]["label"] == "SUPPORTS" and records["1"]["predicted"] == "yes"
    assert records["2"]["predicted"] == "no" and summary["metrics"]["correct"] == 1
    assert summary["labels"] == ["yes", "no", "maybe"]
