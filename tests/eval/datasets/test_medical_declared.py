"""The medical runs' differences from the Tool-MAD paper are declared in run.json (and so the summary): MedQA's
RAG corpus (the paper's is PubMed-based), PubMedQA's questions checked as claims ("... is yes"), and the
abstracts summarised by the debater's model where the paper used BERT."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factdebate.eval.datasets import Dataset, Sample
from factdebate.eval.runner import make_plan
from factdebate.settings.load import load_settings


def declared(tmp_path: Path, kind: str, method: str = "tool-mad", **overrides: Any) -> dict[str, dict[str, Any]]:
    settings = load_settings(overrides={"method": method, **overrides}, environ={})
    labels = ("yes", "no", "maybe") if kind == "pubmedqa" else ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
    dataset = Dataset(kind=kind, labels=labels, samples=[Sample("s0", "A claim.", labels[0])])
    info = make_plan(settings, dataset, tmp_path / kind / method, limit=None, seed=0).info()
    return {d["key"]: d for d in info["deviations"]}


def test_medqa_declares_its_rag_corpus(tmp_path: Path) -> None:
    found = declared(tmp_path, "medqa")
    assert "PubMed" in found["medqa_corpus"]["paper"] and "builtin" in found["medqa_corpus"]["here"]
    assert "medqa_corpus" not in declared(tmp_path / "p", "medqa", retrieval={"corpus": "pubmed-abstracts"})
    assert "medqa_corpus" not in declared(tmp_path, "medqa", method="cot")  # no retrieval: nothing read
    assert "medqa_corpus" not in declared(tmp_path, "fever")
    # one paper-side corpus on MedQA: the PubMed-based one, not also the fact-checking runs' Wikipedia index
    # (rag_corpus), which contradicted it; a PubMed corpus then declares no corpus at all
    assert "rag_corpus" not in found
    assert not {"rag_corpus", "medqa_corpus"} & set(declared(tmp_path / "q", "medqa",
                                                             retrieval={"corpus": "pubmed-abstracts"}))
    assert "rag_corpus" in declared(tmp_path / "f", "fever")


def test_pubmedqa_declares_its_claims_and_its_summaries(tmp_path: Path) -> None:
    found = declared(tmp_path, "pubmedqa", medical={"search": "openalex"})
    assert "is yes" in found["pubmedqa_claims"]["here"]
    assert "BERT" in found["abstract_summaries"]["paper"] and "debater" in found["abstract_summaries"]["here"]
    whole = declared(tmp_path / "w", "pubmedqa", medical={"search": "openalex", "summarize": False})
    assert "not summarised" in whole["abstract_summaries"]["here"]
    plain = declared(tmp_path / "c", "pubmedqa", method="cot")
    assert "pubmedqa_claims" in plain and "abstract_summaries" not in plain
