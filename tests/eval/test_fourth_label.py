"""AVeriTeC's fourth label, CONFLICTING EVIDENCE/CHERRYPICKING: on a four-label dataset the
eval runner sets core/claim_context.py's ``four_labels``, so every prompt that lists the labels, the answer
formats and the label parser offer and read it, and a run can predict it; everywhere else (three-label
datasets, the guard, ``verify``) the fourth label is neither offered nor read. Driven with
``scripted:conflicting``, the ``agree`` model with every label turned into the fourth. The reproduce test takes
4-5 s: ``reproduce toolmad`` through the CLI, two runs (tool-mad and a baseline) of three claims each, plus a
one-claim ``eval``; fewer would leave out the claim whose gold label is the fourth or the three-label control."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2
import pytest

from factdebate.core.claim_context import four_labels
from factdebate.core.parsing import parse_label
from factdebate.core.types import Label
from factdebate.eval.datasets.loader import load_dataset
from factdebate.guard_engine.fast import LABELS as GUARD_LABELS
from factdebate.methods.kit.common import label_reask
from factdebate.methods.kit.formats import offered_labels, verdict_params
from factdebate.prompts import render, template_dirs
from factdebate.run.claim import run_claim
from tests.cli.test_reproduce import call
from tests.helpers import CLAIM, debate_script, make_resources

C = "CONFLICTING EVIDENCE/CHERRYPICKING"
NEI = "NOT ENOUGH INFO"


def listing_templates() -> dict[str, str]:
    """Every prompt template that lists the labels (it reads ``two_labels``), by name: its source."""
    found = {}
    for folder in template_dirs():
        for path in folder.glob("*.j2"):
            if "two_labels" in (source := path.read_text(encoding="utf-8")):
                found[path.stem] = source
    return found


def rendered(source: str, **switches: bool) -> str:
    """The template's label list: from its first tag on ``two_labels`` to the last ``endif`` after a tag on the
    labels, rendered under the switches (nothing else in between is an input)."""
    start = re.search(r"\{% if (?:not )?two_labels %\}", source)
    assert start is not None
    last = max(source.rfind("two_labels %}"), source.rfind("four_labels %}"))
    depth, end = 0, len(source)
    for tag in re.finditer(r"\{% (if|endif)\b[^%]*%\}", source[start.start():]):
        depth += 1 if tag.group(1) == "if" else -1
        if depth == 0 and start.start() + tag.end() > last:
            end = start.start() + tag.end()
            break
    template = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(source[start.start():end])
    return template.render(**{"two_labels": False, "four_labels": False, **switches})


def averitec_file(path: Path) -> Path:
    rows = [{"claim": "The bridge opened in 1932 and was paid off by 1960.",
             "label": "Conflicting Evidence/Cherrypicking", "claim_date": "01-02-2020"},
            {"claim": "The city council doubled its budget last year.", "label": "Refuted", "claim_date": "03-04-2021"},
            {"claim": "A new hospital wing opened in May.", "label": "Supported", "claim_date": "05-06-2021"}]
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_the_fourth_label_is_offered_and_read_only_on_a_four_label_task() -> None:
    templates = listing_templates()
    assert len(templates) >= 16 and {"debate_answer", "judge", "single", "mad_judge", "madke_answer"} <= set(templates)
    assert not [name for name, source in templates.items() if C in rendered(source)]
    four = {name: rendered(source, four_labels=True) for name, source in templates.items()}
    assert not [name for name, source in templates.items() if C in rendered(source, two_labels=True)]
    with four_labels(True):
        assert C in render("single", claim="c").text  # render sets the switch from the claim's context
        assert offered_labels() == ("SUPPORTS", "REFUTES", NEI, C)
        assert verdict_params(0.0, 100).json_schema["properties"]["verdict"]["enum"][-1] == C  # type: ignore[index]
        assert label_reask().params.choices == ("SUPPORTS", "REFUTES", NEI, C)
        assert parse_label(f"The sources contradict each other.\n{C}") is Label.CONFLICTING
        assert parse_label("Verdict: Conflicting evidence") is Label.CONFLICTING
        assert parse_label("Verdict: NOT ENOUGH INFO") is Label.NOT_ENOUGH_INFO
    assert [name for name, text in four.items() if C not in text or NEI not in text] == []
    # Outside it the answer names no label of the task: re-asked, never taken for another label.
    assert parse_label(f"Reasoning.\n{C}") is None and offered_labels() == ("SUPPORTS", "REFUTES", NEI)
    assert C not in render("single", claim="c").text
    assert C not in GUARD_LABELS and len(GUARD_LABELS) == 3


def test_an_averitec_run_predicts_the_fourth_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``reproduce toolmad`` on an AVeriTeC file (tool-free debaters, so no index is built): the debaters and
    the single-agent baselines answer the fourth label, it is the prediction, and the metrics have four
    classes. The same model on a three-label dataset never predicts it."""
    data = averitec_file(tmp_path / "averitec.json")
    out = tmp_path / "out"
    code, _, err = call(capsys, "reproduce", "toolmad", "--table", "table3", "--rows", "tool-mad,single",
                        "--datasets", "averitec", "--data", f"averitec=averitec:{data}", "--limit", "3",
                        "--agents", "none,none", "--no-scoring", "--llm", "scripted:conflicting", "--no-cache",
                        "-o", str(out))
    assert code == 0, err
    for run in ("tool-mad", "single"):
        folder = out / "averitec" / run
        records = {r["id"]: r for r in map(json.loads, (folder / "results.jsonl").read_text().splitlines())}
        assert {r["predicted"] for r in records.values()} == {C}, run
        assert [r["correct"] for r in records.values()].count(True) == 1  # the one claim whose gold is the fourth
        metrics = json.loads((folder / "summary.json").read_text())["metrics"]
        assert metrics["confusion"]["gold"] == ["SUPPORTS", "REFUTES", NEI, C]
        assert set(metrics["per_class"]) == {"SUPPORTS", "REFUTES", NEI, C} and metrics["per_class"][C]["recall"] == 1.0
        assert json.loads((folder / "run.json").read_text())["labels"][-1] == C

    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": "1", "claim": "The bridge opened in 1932.", "label": NEI}) + "\n")
    assert load_dataset(f"claims:{claims}").four_labels() is False
    code, _, err = call(capsys, "eval", "--method", "single", "--dataset", f"claims:{claims}", "--llm",
                        "scripted:conflicting", "--no-cache", "-o", str(tmp_path / "three"))
    assert code == 0, err
    record = json.loads((tmp_path / "three" / "results.jsonl").read_text())
    assert record["predicted"] is None  # the re-ask got the fourth label again: unparsed, not a label


async def test_the_judge_can_decide_the_fourth_label_on_a_four_label_task_only() -> None:
    """Tool-MAD's debaters disagree for three rounds; the judge answers the fourth label. On a four-label task
    it is the verdict (and the judge's prompt offered it); elsewhere it is no label, re-asked, then unparsed."""
    split = {(agent, r): "SUPPORTS" if agent == "rag" else "REFUTES" for agent in ("rag", "search") for r in (1, 2, 3)}

    async def judged() -> tuple[Label | None, str, str]:
        resources, backend, _ = make_resources(debate_script(split, judge=f"The sources disagree.\n{C}"))
        async with resources:
            verdict = await run_claim(CLAIM, resources.settings, resources)
        prompt = next(m[0]["content"] for info, m in backend.calls if info.prompt == "judge")
        return verdict.label, verdict.decided_by or "", prompt

    with four_labels(True):
        label, decider, prompt = await judged()
    assert (label, decider) == (Label.CONFLICTING, "judge") and C in prompt
    label, _, prompt = await judged()
    assert label is None and C not in prompt
