"""summary.json's paper figures: Acc, P, R, F1 of the positive class (factual) at claim and response level,
the judges' mean consensus and the cost per debated claim, from a scripted DPD evaluation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.datasets import BINARY_LABELS, Dataset, Sample
from factdebate.eval.report.metrics import Outcome
from factdebate.eval.report.paper_metrics import positive_class
from factdebate.eval.runner import Plan, execute
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from tests.helpers import resources_for
from tests.methods.dpd.test_method import ballot


def test_positive_class_counts_unparsed_as_a_miss_and_wrong() -> None:
    outcomes = [Outcome("1", "SUPPORTS", "SUPPORTS", "ok"), Outcome("2", "SUPPORTS", None, "unparsed"),
                Outcome("3", "REFUTES", "SUPPORTS", "ok"), Outcome("4", "REFUTES", "REFUTES", "ok")]
    row = positive_class(outcomes)
    assert row is not None
    assert (row["tp"], row["fp"], row["fn"]) == (1, 1, 1)
    assert row["accuracy"] == 0.5 and row["precision"] == 0.5 and row["recall"] == 0.5 and row["f1"] == 0.5


def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """Judges find an answer right when the knowledge mentions it; one judge of three is less sure."""
    text = messages[0]["content"]
    if call.prompt == "dpd_judge":
        right = "Knowledge given with the question: Paris" in text and "is: Paris" in text
        return ballot("affirmative" if right else "negative", 0.5 if call.agent == "logical" else 1.0)
    return f"{call.agent} speaks."


async def test_a_dpd_run_writes_the_paper_figures(tmp_path: Path) -> None:
    samples = [Sample(f"q{i}", f'The answer to the question "Capital of France?" is: {answer}', gold,
                      meta={"knowledge": "Paris is the capital of France."})
               for i, (answer, gold) in enumerate([("Paris", "SUPPORTS"), ("Rome", "REFUTES"), ("Paris", "SUPPORTS"),
                                                   ("Lyon", "REFUTES")])]
    dataset = Dataset(kind="halueval-qa", labels=BINARY_LABELS, samples=samples, spec="halueval-qa")
    resources, backend, _ = resources_for(respond, method="dpd", methods={"dpd": {"min_rounds": 0, "max_rounds": 1}})
    plan = Plan("t", resources.settings, dataset, samples, tmp_path, 0, None)
    summary = await execute(plan, resources, progress=False)
    paper = summary["metrics"]["paper"]
    assert paper["positive_class"] == "SUPPORTS" and paper["response_level"] is None
    claim = paper["claim_level"]
    assert claim["accuracy"] == 1.0 and claim["precision"] == 1.0 and claim["recall"] == 1.0 and claim["n"] == 4
    assert paper["judges_mean_consensus"] == pytest.approx(1.0) and paper["consensus_claims"] == 4
    assert paper["cost_per_claim"]["llm_calls"] == pytest.approx(len(backend.calls) / 4)
    assert json.loads((tmp_path / "summary.json").read_text())["metrics"]["paper"]["claims"] == 4
    assert "positive class SUPPORTS" in (tmp_path / "summary.md").read_text()


async def test_a_response_run_reports_the_response_level_and_its_claims(tmp_path: Path) -> None:
    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        text = messages[0]["content"]
        if call.prompt == "claims_extract":
            summary = text.split("Text:\n", 1)[1].split("\n", 1)[0]
            return json.dumps({"claims": [s.strip() + "." for s in summary.split(".") if s.strip()]})
        if call.prompt == "dpd_judge":
            claim = text.split("Claim: ", 1)[1].split("\n", 1)[0]
            return ballot("negative" if "Rome" in claim else "affirmative", 0.9)
        return f"{call.agent} speaks."

    article = "The bridge opened in 1932. It spans the harbour in Sydney."
    samples = [Sample("s1", "c", "SUPPORTS", meta={"document": article, "summary": "The bridge opened in 1932."}),
               Sample("s2", "c", "REFUTES", meta={"document": article,
                                                  "summary": "The bridge opened in 1932. It is in Rome."})]
    dataset = Dataset(kind="halueval-summarization", labels=BINARY_LABELS, samples=samples, spec="x")
    resources, _, _ = resources_for(respond, method="dpd", methods={"dpd": {"min_rounds": 0, "max_rounds": 0}})
    summary = await execute(Plan("t", resources.settings, dataset, samples, tmp_path, 0, None), resources,
                            progress=False)
    paper = summary["metrics"]["paper"]
    assert paper["response_level"]["accuracy"] == 1.0 and paper["response_level"]["n"] == 2
    assert paper["claim_level"] is None  # no claim has a gold label in HaluEval
    assert paper["claims"] == 3 and paper["consensus_claims"] == 3
    assert paper["judges_mean_consensus"] == pytest.approx(1.0)


def test_panel_agreement_counts_readable_votes_of_panels_only() -> None:
    from factdebate.eval.report.paper_metrics import panel_agreement

    def verdict(*votes: str | None) -> dict[str, Any]:
        return {"judges": [{"agent": f"j{i}", "vote": v, "parsed": v is not None} for i, v in enumerate(votes)]}

    assert panel_agreement([verdict("SUPPORTS")]) is None  # one judge is no panel
    assert panel_agreement([verdict("SUPPORTS", None)]) is None  # an unreadable ballot is no vote
    same = panel_agreement([verdict("SUPPORTS", "SUPPORTS"), verdict("REFUTES", "REFUTES", None)])
    assert same is not None and same["pairwise"] == 1.0 and same["unanimous"] == 1.0 and same["claims"] == 2
    assert same["fleiss_kappa"] == pytest.approx(1.0) and same["pairs"] == {"j0/j1": 1.0}
    one_kind = panel_agreement([verdict("SUPPORTS", "SUPPORTS")])
    assert one_kind is not None and one_kind["fleiss_kappa"] is None  # undefined when every vote is the same
    split = panel_agreement([verdict("SUPPORTS", "REFUTES"), verdict("SUPPORTS", "SUPPORTS")])
    assert split is not None and split["pairwise"] == 0.5 and split["fleiss_kappa"] == pytest.approx(
        (0.5 - (0.75 ** 2 + 0.25 ** 2)) / (1 - (0.75 ** 2 + 0.25 ** 2)))
