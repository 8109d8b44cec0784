"""The two-label rule (SUPPORTS or REFUTES offered, a NOT ENOUGH INFO that still comes scored REFUTES) is
declared against the Tool-MAD paper, whose prompts offer NOT ENOUGH INFO on every set, FaVIQ's included
(Figs. 5-6): on each verdict of a two-label run and in its run.json; not on a three-label set, nor for a
method of another paper."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.core.claim_context import two_labels
from factdebate.core.deviations import keys
from factdebate.eval.datasets import BINARY_LABELS, Dataset, Sample
from factdebate.eval.runner import make_plan
from factdebate.methods.base import Method
from factdebate.settings.load import load_settings

TOOLMAD_PAPER = ["tool-mad", "single", "cot", "react", "mad", "madke", "vote"]


@pytest.mark.parametrize("method", TOOLMAD_PAPER)
def test_a_two_label_task_is_declared_for_the_toolmad_papers_methods(method: str) -> None:
    settings = load_settings(overrides={"method": method}, environ={})
    assert "two_labels" not in keys(Method.named(method).paper_deviations(settings))
    with two_labels(True):
        found = {d.key: d for d in Method.named(method).paper_deviations(settings)}
    assert "NOT ENOUGH INFO" in found["two_labels"].paper and "REFUTES" in found["two_labels"].here


def test_other_papers_methods_do_not_declare_it() -> None:
    settings = load_settings(overrides={"method": "mermaid"}, environ={})
    with two_labels(True):
        assert "two_labels" not in keys(Method.named("mermaid").paper_deviations(settings))


def test_run_json_declares_it_on_a_two_label_dataset(tmp_path: Path) -> None:
    settings = load_settings(overrides={"method": "cot"}, environ={})
    samples = [Sample("s0", "Paris is in France.", "SUPPORTS"), Sample("s1", "Paris is in Peru.", "REFUTES")]
    binary = Dataset(kind="faviq", labels=BINARY_LABELS, samples=samples)
    info = make_plan(settings, binary, tmp_path / "two", limit=None, seed=0).info()
    assert "two_labels" in [d["key"] for d in info["deviations"]]
    three = Dataset(kind="fever", labels=(*BINARY_LABELS, "NOT ENOUGH INFO"), samples=samples)
    info = make_plan(settings, three, tmp_path / "three", limit=None, seed=0).info()
    assert "two_labels" not in [d["key"] for d in info["deviations"]]
