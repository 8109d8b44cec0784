"""Response-level datasets in ``eval``: the loaders map FacTool-QA, FactCheck-Bench and BingCheck responses
with FIRE's binary labels, and a run reports response-level metrics plus claim-level metrics over the given
claims (none when claims are extracted anew)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.datasets.loader import load_dataset
from factdebate.eval.runner import execute, make_plan
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.settings.load import load_settings
from tests.helpers import resources_for
from tests.paths import SHARED as SHARED_DIR

SHARED = SHARED_DIR / "datasets"
S, R = "SUPPORTS", "REFUTES"


def factool_file(tmp_path: Path) -> Path:
    rows = [
        {"prompt": "Capital of France?", "response": "Paris is the capital. It has the Louvre.", "label": True,
         "claims": [{"claim": "Paris is the capital of France.", "label": True},
                    {"claim": "Paris has the Louvre.", "label": True}]},
        {"prompt": "Where is the Eiffel Tower?", "response": "It is in Rome. It is iron.", "label": False,
         "claims": [{"claim": "The Eiffel Tower is in Rome.", "label": False},
                    {"claim": "The Eiffel Tower is made of iron.", "label": True}]},
    ]
    path = tmp_path / "knowledge_qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def rome_is_false(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    text = messages[0]["content"]
    if call.prompt.split(":")[0] == "claims_extract":
        body = text.split("Text:", 1)[1].split("Reply with", 1)[0]
        return json.dumps({"claims": [s.strip() + "." for s in body.split(".") if s.strip()]})
    return "REFUTES" if "Rome" in text else "SUPPORTS"


def test_loaders_map_the_paper_datasets(tmp_path: Path) -> None:
    dataset = load_dataset(f"factool-qa-responses:{factool_file(tmp_path)}")
    assert dataset.unit == "response" and dataset.labels == (S, R)
    assert [s.gold for s in dataset.samples] == [S, R]
    assert dataset.samples[1].meta["claim_golds"] == [R, S]
    assert dataset.samples[0].meta["question"] == "Capital of France?"


@pytest.mark.skipif(not SHARED.exists(), reason="the shared benchmark samples are not on this machine")
def test_loaders_read_the_real_files() -> None:
    factool = load_dataset(f"factool-qa-responses:{SHARED / 'factool_qa' / 'knowledge_qa.jsonl'}")
    assert len(factool.samples) == 50 and sum(len(s.meta["claims"]) for s in factool.samples) == 233
    assert sum(s.gold == R for s in factool.samples) == 27
    bench = load_dataset(f"factcheck-bench-responses:{SHARED / 'factcheck_bench' / 'factcheck-GPT-benchmark.jsonl'}")
    assert len(bench.samples) == 92 and bench.skipped == {"response_factuality 'NA' is not True/False": 2}
    bing = load_dataset(f"bingcheck-responses:{SHARED / 'bingcheck' / 'selfchecker_original_examples'}")
    assert len(bing.samples) == 2
    # "not supported" claims have no binary label in FIRE's mapping: dropped, and counted per sample
    assert sum(s.meta["dropped_claims"] for s in bing.samples) == 2


async def run_eval(tmp_path: Path, claims: str) -> dict[str, Any]:
    settings = load_settings(overrides={"method": "single", "llm": {"cache": False},
                                        "response": {"claims": claims}}, environ={})
    plan = make_plan(settings, f"factool-qa-responses:{factool_file(tmp_path)}", tmp_path / f"run-{claims}",
                     limit=None, seed=1)
    resources, _, _ = resources_for(rome_is_false, method="single", response={"claims": claims})
    return await execute(plan, resources, progress=False)


async def test_eval_reports_response_and_claim_level_metrics(tmp_path: Path) -> None:
    summary = await run_eval(tmp_path, "given")
    metrics = summary["metrics"]
    assert summary["unit"] == "response" and metrics["level"] == "response"
    assert metrics["n"] == 2 and metrics["accuracy"] == 1.0
    claim = metrics["claim_level"]
    assert claim["n"] == 4 and claim["accuracy"] == 1.0 and claim["per_class"][R]["support"] == 1
    records = [json.loads(line) for line in (tmp_path / "run-given" / "results.jsonl").read_text().splitlines()]
    assert {r["kind"] for r in records} == {"response"}
    assert all(c["gold"] for r in records for c in r["claims"])
    assert "claim level (4 claims" in (tmp_path / "run-given" / "summary.md").read_text()


async def test_extracted_claims_give_response_metrics_only(tmp_path: Path) -> None:
    summary = await run_eval(tmp_path, "extract")
    assert summary["metrics"]["accuracy"] == 1.0 and summary["metrics"]["claim_level"] is None
    assert "claim level: none" in (tmp_path / "run-extract" / "summary.md").read_text()
