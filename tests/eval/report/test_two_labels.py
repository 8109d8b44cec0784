"""A two-label dataset gets two labels: DPD's tied panels answer ``binary_tie`` (REFUTES), a response with
no claim left answers SUPPORTS (no claim is false), any other third answer is REFUTES (not verified as
factual); the summary counts each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factdebate.core.types import Label
from factdebate.eval.datasets import BINARY_LABELS, FACT_LABELS, Dataset, Sample
from factdebate.eval.runner import Plan, execute, outside_two_labels
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.response_level.aggregate import response_label
from tests.helpers import CLAIM, resources_for
from tests.methods.dpd.test_method import dpd_script

TIED = {"factual": ("affirmative", 0.5), "logical": ("negative", 0.5), "rhetorical": ("tie", 0.8)}


async def run(tmp_path: Path, dataset: Dataset, script: Any) -> tuple[list[dict[str, Any]], str]:
    resources, _, _ = resources_for(script, method="dpd", methods={"dpd": {"min_rounds": 0, "max_rounds": 0}})
    plan = Plan("t", resources.settings, dataset, dataset.samples, tmp_path, 0, None)
    await execute(plan, resources, progress=False)
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    return records, (tmp_path / "summary.md").read_text()


async def test_a_tied_panel_answers_refutes_on_a_binary_dataset_and_the_summary_counts_it(tmp_path: Path) -> None:
    samples = [Sample(f"c{i}", CLAIM, "SUPPORTS") for i in range(2)]
    dataset = Dataset(kind="claims", labels=BINARY_LABELS, samples=samples, spec="claims")
    records, summary = await run(tmp_path, dataset, dpd_script(lambda judge, r: TIED[judge]))
    assert [(r["predicted"], r["decided_by"]) for r in records] == [("REFUTES", "panel-tie")] * 2
    assert "two labels: ties 2 (answered REFUTES) in 2 sample(s); empty extractions 0" in summary
    summary_json = json.loads((tmp_path / "summary.json").read_text())
    assert summary_json["metrics"]["two_labels"]["ties"] == 2


async def test_with_three_labels_a_tie_keeps_its_own_label(tmp_path: Path) -> None:
    dataset = Dataset(kind="claims", labels=FACT_LABELS, samples=[Sample("c", CLAIM, "SUPPORTS")], spec="claims")
    records, summary = await run(tmp_path, dataset, dpd_script(lambda judge, r: TIED[judge]))
    assert records[0]["predicted"] == "NOT ENOUGH INFO" and "two labels:" not in summary


async def test_a_response_with_no_claim_left_is_factual_on_a_binary_dataset(tmp_path: Path) -> None:
    judged = dpd_script(lambda judge, r: ("affirmative", 0.9))

    def script(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.split(":")[0] == "claims_extract":
            return '{"claims": []}'  # only opinions: nothing to check
        return judged(call, messages, params)

    samples = [Sample("r", "What a lovely film, I adored every minute.", "SUPPORTS")]
    dataset = Dataset(kind="responses", labels=BINARY_LABELS, samples=samples, spec="responses", unit="response")
    records, summary = await run(tmp_path, dataset, script)
    assert (records[0]["predicted"], records[0]["decided_by"]) == ("SUPPORTS", "no-claims")
    assert "empty extractions 1 (answered SUPPORTS" in summary


def test_the_response_rule_answers_in_two_labels_only_when_asked() -> None:
    assert response_label([]) == (Label.NOT_ENOUGH_INFO, "no-claims")
    assert response_label([], binary=True) == (Label.SUPPORTS, "no-claims")
    assert response_label([Label.SUPPORTS, Label.REFUTES], binary=True) == (Label.REFUTES, "any-false")


def test_a_third_label_that_reaches_a_record_is_answered_refutes_and_kept_aside() -> None:
    binary = Dataset(kind="claims", labels=BINARY_LABELS, samples=[])
    record = outside_two_labels({"id": "x", "gold": "REFUTES", "predicted": "NOT ENOUGH INFO", "correct": False},
                                binary)
    assert record == {"id": "x", "gold": "REFUTES", "predicted": "REFUTES", "outside_labels": "NOT ENOUGH INFO",
                      "correct": True}
    response = outside_two_labels({"id": "r", "predicted": "REFUTES", "claim_results": [
        {"index": 0, "predicted": "NOT ENOUGH INFO"}, {"index": 1, "predicted": "REFUTES"}]}, binary)
    assert response["claim_results"] == [{"index": 0, "predicted": "REFUTES", "outside_labels": "NOT ENOUGH INFO"},
                                         {"index": 1, "predicted": "REFUTES"}]
    three = Dataset(kind="claims", labels=FACT_LABELS, samples=[])
    assert outside_two_labels({"id": "x", "predicted": "NOT ENOUGH INFO"}, three)["predicted"] == "NOT ENOUGH INFO"
    assert binary.answer_map()["NOT ENOUGH INFO"] == "REFUTES" and three.answer_map() == three.label_map


def test_the_response_rule_answers_unverified_refutes_in_two_labels() -> None:
    mixed = [Label.SUPPORTS, Label.NOT_ENOUGH_INFO]
    assert response_label(mixed) == (Label.NOT_ENOUGH_INFO, "unverified")
    assert response_label(mixed, binary=True) == (Label.REFUTES, "unverified")
