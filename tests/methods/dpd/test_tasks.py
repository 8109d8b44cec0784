"""DPD's task modes on scripted models: which evidence each mode hands the teams (the dataset's knowledge,
the 10 article sentences closest to each claim, the dialogue history), and the response level (one false
claim makes the response false)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.types import Label
from factdebate.eval.datasets import BINARY_LABELS, Dataset, Sample
from factdebate.eval.estimate import estimate
from factdebate.eval.runner import Plan, evaluate
from factdebate.guard_engine.response_check import RUNNER, run_response
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.dpd.method import DPD
from factdebate.methods.dpd.tasks import task_for
from factdebate.util.errors import InputError
from tests.helpers import resources_for
from tests.methods.dpd.test_method import ballot

FAST = {"min_rounds": 0, "max_rounds": 0}


def script(claims: list[str], seen: list[tuple[CallInfo, str]], *, filtered: list[str] | None = None) -> Any:
    """Claims mentioning "Rome" lose the debate (every judge votes negative), the others win it."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        text = messages[0]["content"]
        seen.append((call, text))
        if call.prompt == "claims_extract":
            return json.dumps({"claims": claims})
        if call.prompt == "subjective_filter":
            return json.dumps({"sentences": filtered or []})
        if call.prompt == "dpd_queries":  # two distinct queries, each in the claim's words
            claim = text.split("Claim: ", 1)[1].split("\n", 1)[0]
            return json.dumps({"support": claim, "refute": f"not {claim}"})
        if call.prompt == "dpd_judge":
            claim = text.split("Claim: ", 1)[1].split("\n", 1)[0]
            return ballot("negative" if "Rome" in claim else "affirmative", 0.8)
        return f"{call.agent} speaks."

    return respond


def dataset(kind: str, sample: Sample) -> Dataset:
    return Dataset(kind=kind, labels=BINARY_LABELS, samples=[sample])


def setup_evidence(verdict: dict[str, Any]) -> list[list[str]]:
    """The document ids each team's gatherer was given at the start of one claim's debate."""
    return [[d["id"] for d in t["evidence"]] for t in verdict["rounds"][0]["turns"] if t["role"] == "gatherer"]


async def test_qa_mode_debates_question_and_answer_with_the_datasets_knowledge_only() -> None:
    seen: list[tuple[CallInfo, str]] = []
    sample = Sample("qa-1", 'The answer to the question "Who wrote Hamlet?" is: Shakespeare', "SUPPORTS",
                    meta={"knowledge": "Hamlet is a tragedy by William Shakespeare.", "question": "Who wrote Hamlet?",
                          "answer": "Shakespeare"})
    resources, _, tools = resources_for(script([], seen), method="dpd", methods={"dpd": FAST})
    plan = Plan("t", resources.settings, dataset("halueval-qa", sample), [sample], Path("."), 0, None)
    record = await evaluate(sample, plan, resources)  # through the harness's hook
    assert record["dpd_task"] == "qa" and record["predicted"] == "SUPPORTS" and record["correct"]
    assert setup_evidence(record) == [["qa-1:knowledge"], ["qa-1:knowledge"]]
    assert not tools["rag"].queries and not tools["search"].queries  # the dataset's evidence only
    judge_prompt = next(text for call, text in seen if call.prompt == "dpd_judge")
    assert "Who wrote Hamlet?" in judge_prompt and "tragedy by William Shakespeare" in judge_prompt


async def test_summarization_takes_the_ten_sentences_closest_to_each_claim() -> None:
    seen: list[tuple[CallInfo, str]] = []
    filler = [f"Filler sentence number {i} talks about weather{i}." for i in range(1, 15)]
    document = " ".join([*filler[:7], "The bridge opened in 1932 in Sydney.", *filler[7:]])
    claims = ["The bridge opened in 1932.", "The bridge is in Rome."]
    sample = Sample("sum-1", "(summary claim)", "REFUTES",
                    meta={"document": document, "summary": "The bridge opened in 1932 in Rome."})
    resources, _, _ = resources_for(script(claims, seen), method="dpd", methods={"dpd": FAST})
    fields, predicted = await DPD().run_sample(sample, dataset("halueval-summarization", sample),  # type: ignore[misc]
                                               resources.settings, resources, None, RUNNER)
    assert fields["dpd_task"] == "summarization" and fields["extraction"]["claims"] == claims
    first = fields["claims"][0]["verdict"]
    given = setup_evidence(first)[0]
    assert len(given) == 10 and given[0] == "sum-1:s8"  # the one sentence sharing the claim's words leads
    assert len(set(given)) == 10 and all(i.startswith("sum-1:s") for i in given)
    # Response level: the true claim wins its debate, the false one loses it, so the summary is false.
    assert [c["label"] for c in fields["claims"]] == ["SUPPORTS", "REFUTES"]
    assert fields["label"] == "REFUTES" and fields["decided_by"] == "any-false" and predicted == "REFUTES"


async def test_dialogue_drops_subjective_content_and_uses_history_and_knowledge() -> None:
    seen: list[tuple[CallInfo, str]] = []
    sample = Sample("dlg-1", "(dialogue claim)", "SUPPORTS",
                    meta={"history": "[Human]: Who directed Jaws? [Assistant]: Steven Spielberg.",
                          "knowledge": "Jaws was directed by Steven Spielberg.",
                          "response": "I love that film! It came out in 1975."})
    resources, _, _ = resources_for(script(["Jaws came out in 1975."], seen, filtered=["It came out in 1975."]),
                                    method="dpd", methods={"dpd": FAST})
    fields, predicted = await DPD().run_sample(sample, dataset("halueval-dialogue", sample),  # type: ignore[misc]
                                               resources.settings, resources, None, RUNNER)
    assert fields["extraction"]["subjective_removed"] is True
    assert fields["extraction"]["checked_text"] == "It came out in 1975."
    assert setup_evidence(fields["claims"][0]["verdict"])[0] == ["dlg-1:history", "dlg-1:knowledge"]
    assert predicted == "SUPPORTS" and seen[0][0].prompt == "subjective_filter"


async def test_kbqa_extracts_claims_searches_and_one_false_claim_makes_the_response_false() -> None:
    seen: list[tuple[CallInfo, str]] = []
    claims = ["Paris is the capital of France.", "The Eiffel Tower is in Rome."]
    resources, _, tools = resources_for(script(claims, seen), method="dpd", methods={"dpd": FAST})
    verdict = await run_response("Paris is the capital of France, and the Eiffel Tower is in Rome.",
                                 resources.settings, resources)
    assert [c.label for c in verdict.claims] == [Label.SUPPORTS, Label.REFUTES]
    assert verdict.label is Label.REFUTES and verdict.decided_by == "any-false"
    assert len(tools["rag"].queries) == 2 * 2 * 2  # per claim, both teams, both queries, on the RAG tool
    assert all(c.verdict is not None and c.verdict.consensus == 1.0 for c in verdict.claims)


async def test_dry_run_counts_a_summary_as_its_claims_debates(tmp_path: Path) -> None:
    """``--dry-run`` multiplies a debate's calls by the claims a summary yields (it once quoted one debate's
    34-57 calls for a sample that took 171), and the calls a scripted sample takes fall inside its bounds."""
    seen: list[tuple[CallInfo, str]] = []
    claims = ["The bridge opened in 1932.", "The bridge is in Rome.", "It is made of steel."]
    sample = Sample("sum-1", "(summary claim)", "REFUTES",
                    meta={"document": "The bridge opened in 1932 in Sydney. It is a steel arch.",
                          "summary": "The bridge opened in 1932 in Rome. It is made of steel."})
    resources, _, _ = resources_for(script(claims, seen), method="dpd", methods={"dpd": FAST})
    plan = Plan("t", resources.settings, dataset("halueval-summarization", sample), [sample], tmp_path, 0, None)
    est = estimate(plan, set())
    low, high = DPD().call_bounds(DPD().sample_settings(resources.settings, plan.dataset))
    most = resources.settings.response.max_claims
    assert (est.calls_min, est.calls_max) == (low + 1, most * high + 2)
    await evaluate(sample, plan, resources)
    assert est.calls_min <= len(seen) <= est.calls_max and len(seen) >= 3 * low + 1


def test_each_dataset_picks_its_mode() -> None:
    sample = Sample("x", "c", "SUPPORTS")
    assert task_for("auto", dataset("halueval-qa", sample)) == "qa"
    assert task_for("auto", dataset("halueval-dialogue", sample)) == "dialogue"
    assert task_for("auto", dataset("halueval-summarization", sample)) == "summarization"
    assert task_for("auto", dataset("factool-qa", sample)) is None  # claims debated as they are
    assert task_for("claim", dataset("halueval-qa", sample)) is None
    assert task_for("kbqa", dataset("claims", sample)) == "kbqa"


async def test_a_mode_without_its_field_is_a_clear_error() -> None:
    resources, _, _ = resources_for(script([], []), method="dpd", methods={"dpd": FAST})
    sample = Sample("q", "c", "SUPPORTS")
    with pytest.raises(InputError, match="needs the sample's knowledge"):
        await DPD().run_sample(sample, dataset("halueval-qa", sample), resources.settings, resources, None, RUNNER)


async def test_evidence_given_with_a_claim_reaches_both_teams() -> None:
    from factdebate.core.types import Document
    from factdebate.run.claim import run_claim
    from factdebate.tools.given import given_evidence

    seen: list[tuple[CallInfo, str]] = []
    resources, _, _ = resources_for(script([], seen), method="dpd",
                                    methods={"dpd": {**FAST, "tools": []}})
    note = Document(id="note-1", title="Note", text="Hamlet was written by Shakespeare.", source="dataset")
    with given_evidence([note]):
        verdict = await run_claim("Shakespeare wrote Hamlet.", resources.settings, resources)
    given = [[d.id for d in t.evidence] for t in verdict.rounds[0].turns if t.role == "gatherer"]
    assert given == [["note-1"], ["note-1"]]
    rebuttal = next(text for call, text in seen if call.prompt == "dpd_rebutter")
    assert "Hamlet was written by Shakespeare." in rebuttal  # the selected snippet


async def test_the_claim_extractor_reads_the_dialogue_history_of_a_halueval_sample() -> None:
    from factdebate.eval.datasets.builtin_data import halueval_dialogue

    data = halueval_dialogue()
    sample = next(s for s in data.samples if str(s.meta.get("knowledge") or "").strip())
    seen: list[tuple[CallInfo, str]] = []
    resources, _, _ = resources_for(script(["A claim."], seen, filtered=[sample.meta["response"]]), method="dpd",
                                    methods={"dpd": FAST})
    await DPD().run_sample(sample, data, resources.settings, resources, None, RUNNER)
    extractor = next(text for call, text in seen if call.prompt == "claims_extract")
    shown = re.sub(r"\[S\d+\] ", "", extractor)  # the response's sentences are numbered for the extractor
    assert sample.meta["history"] in extractor and sample.meta["response"] in shown
    assert sample.meta["knowledge"].strip() in extractor
    assert "take no claims from the conversation itself" in extractor  # the prompt since 305914f
