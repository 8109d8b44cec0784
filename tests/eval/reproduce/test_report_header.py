"""The report's header speaks of the embedded model only when it ran (of a scripted one as
scripted), and a run's summary says "the embedded model is a working pipeline" only of the embedded
model's runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.eval.report.summary import base_rate_warning, embedded_model
from factdebate.eval.reproduce.report import build_report


def report_for(root: Path, model: str) -> str:
    folder = root / "fever" / "tool-mad"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"provenance": {"models": {"debater": model}}, "deviations": []}))
    cell = {"dataset": "fever", "run": "tool-mad", "method": "tool-mad", "status": "done", "samples": 0,
            "paper_n": 200, "errored": 0, "folder": "fever/tool-mad", "notes": [], "overrides": []}
    build_report(root, {"paper": "toolmad", "tables": ["table4"], "cells": [cell], "seed": 0, "limit": 3})
    return (root / "report.md").read_text()


@pytest.mark.parametrize(("model", "embedded"), [("openai:gpt-4o-mini", False), ("llama-cpp:builtin", True),
                                                 ("scripted:agree", True)])
def test_the_header_names_the_embedded_model_only_when_it_ran(tmp_path: Path, model: str, embedded: bool) -> None:
    report = report_for(tmp_path, model)
    # SmolLM2 is named where it ran; a scripted model is said to be one (it was "the embedded model")
    assert ("SmolLM2-135M" in report) is (model == "llama-cpp:builtin")
    assert ("a scripted model (`scripted:...`) answers from a fixed script" in report) is model.startswith("scripted:")
    assert ("These runs used the embedded or scripted model" in report) is embedded
    assert f"debater `{model}`" in report


def test_the_base_rate_warning_blames_the_embedded_model_only_for_its_own_runs() -> None:
    info = {"top_prediction": "SUPPORTS", "share": 1.0, "predictions": 10, "majority_class": "SUPPORTS",
            "majority_class_accuracy": 0.5}
    served = base_rate_warning({"accuracy": 0.5, "base_rate": {**info, "embedded_model": False}})
    embedded = base_rate_warning({"accuracy": 0.5, "base_rate": {**info, "embedded_model": True}})
    assert served and "embedded model" not in served and embedded and "embedded model" in embedded
    assert embedded_model({"llm": {"debater": "openai:gpt-4o"},
                           "methods": {"dpd": {"judge_llms": ["openai:a", "scripted:agree", "openai:b"]}}})
    assert not embedded_model({"llm": {"debater": "openai:gpt-4o", "roles": {"judge": "openai:o3"}}})


def test_a_difference_that_rounds_to_zero_prints_without_a_sign() -> None:
    """75.5396 against the paper's 75.54 printed "-0.00" in "ours − paper"."""
    from factdebate.eval.reproduce.measure import Measured
    from factdebate.eval.reproduce.report import Line, _table_markdown
    from factdebate.eval.reproduce.spec import get_paper

    paper = get_paper("dpd")
    table = paper.table("table2")
    line = Line(label="x", row="Self-Check (0)", run="selfcheck-0", column="factool-qa", metric="claim_accuracy",
                paper=75.54, paper_ci=None, model="chatgpt", cite="", ours=Measured(0.755396, None, 233),
                status="done", paper_n=233)
    row = _table_markdown(paper, table, [line])[-1]
    assert "| 75.54 | 75.54 | 0.00 |" in row and "-0.00" not in row


def test_a_row_of_another_backbone_says_so_on_its_line_and_in_the_header(tmp_path: Path) -> None:
    """`--paper-model llama-3_3-70b --llm openai:gpt-4o-mini`: the Llama rows stand beside gpt-4o-mini runs;
    each such line says so and gives no verdict on the interval."""
    from factdebate.eval.reproduce.report import backbone_mismatches

    folder = tmp_path / "fever" / "tool-mad"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"provenance": {"models": {"debater": "openai:gpt-4o-mini",
                                                                           "scorer": "openai:gpt-4o-mini"}},
                                                 "deviations": []}))
    cell = {"dataset": "fever", "run": "tool-mad", "method": "tool-mad", "status": "done", "samples": 0,
            "paper_n": 200, "errored": 0, "folder": "fever/tool-mad", "notes": [], "overrides": []}
    manifest = {"paper": "toolmad", "tables": ["table3"], "cells": [cell], "seed": 0, "limit": 3,
                "rows": ["tool-mad"], "paper_model": "llama-3_3-70b"}
    build_report(tmp_path, manifest)
    report = (tmp_path / "report.md").read_text()
    (line,) = [x for x in report.splitlines() if x.startswith("| LLama-3.3-70B(Inst) + Tool-MAD") and "FEVER |" in x]
    assert "our run's debater is openai:gpt-4o-mini" in line and "n/a (another backbone)" in line
    assert "**Warning: figures for another backbone.**" in report
    (warning,) = backbone_mismatches(tmp_path, manifest)
    assert "Llama-3.3-70B-Instruct" in warning and "openai:gpt-4o-mini" in warning
    manifest["paper_model"] = "gpt-4o-mini"
    build_report(tmp_path, manifest)
    assert "another backbone" not in (tmp_path / "report.md").read_text()
    assert backbone_mismatches(tmp_path, manifest) == []


def test_the_base_rate_warning_of_a_scripted_run_names_the_script() -> None:
    """A scripted run answers as its script says: "the embedded model" is not to blame."""
    from factdebate.eval.report.summary import scripted_only

    info = {"top_prediction": "SUPPORTS", "share": 1.0, "predictions": 10, "majority_class": "SUPPORTS",
            "majority_class_accuracy": 0.5, "embedded_model": True}
    scripted = base_rate_warning({"accuracy": 0.5, "base_rate": {**info, "scripted_model": True}})
    assert scripted and "embedded model" not in scripted and "scripted model" in scripted
    assert scripted_only({"llm": {"debater": "scripted:agree"}})
    assert not scripted_only({"llm": {"debater": "scripted:agree", "judge": "llama-cpp:builtin"}})
    assert not scripted_only({"llm": {"debater": "openai:gpt-4o"}})


def test_report_md_keeps_a_runs_base_rate_warning(tmp_path: Path) -> None:
    """Report.md dropped the warning a run's summary.md gives when nearly all its answers are one
    class; it is now under the run's line, word for word."""
    from tests.eval.compare.test_compare import S, write_run

    folder = write_run(tmp_path / "fever" / "tool-mad", "tool-mad", [S] * 10, {"llm_calls": 1}, "openai:m")
    warning = next(line for line in (folder / "summary.md").read_text().splitlines()
                   if line.startswith("- **warning**: 100% of the predictions are SUPPORTS"))
    cell = {"dataset": "fever", "run": "tool-mad", "method": "tool-mad", "status": "done", "samples": 10,
            "paper_n": 200, "errored": 0, "folder": "fever/tool-mad", "notes": [], "overrides": []}
    build_report(tmp_path, {"paper": "toolmad", "tables": ["table4"], "cells": [cell], "seed": 0, "limit": 10})
    report = (tmp_path / "report.md").read_text()
    assert f"- **fever/tool-mad**: warning: {warning.removeprefix('- **warning**: ')}" in report


def test_the_drafts_own_score_is_not_a_difference_from_the_draft(tmp_path: Path) -> None:
    """The ACL draft's Tool-MAD rows run its consistency score, which the method declares against the
    journal (scoring_variant); for the draft that is its own setting, said so, not listed as a difference."""
    from factdebate.eval.reproduce.differences import table
    from factdebate.eval.reproduce.spec import get_paper

    draft = "\n".join(table(get_paper("toolmad-draft")))
    assert "| `scoring_variant` |" not in draft
    assert "Not a difference: `scoring_variant` (tool-mad, vanilla-vanilla" in draft
    assert "Not a difference" not in "\n".join(table(get_paper("toolmad")))
    folder = tmp_path / "fever" / "tool-mad"
    folder.mkdir(parents=True)
    declared = [{"key": "scoring_variant", "paper": "faithfulness and answer relevance (stability score)",
                 "here": "the earlier draft's consistency score", "restore": "--scoring-variant stability"},
                {"key": "rounds", "paper": "T = 3", "here": "T = 2", "restore": "--rounds 3"}]
    (folder / "run.json").write_text(json.dumps({"provenance": {"models": {"debater": "openai:m"}},
                                                 "deviations": declared}))
    cell = {"dataset": "fever", "run": "tool-mad", "method": "tool-mad", "status": "done", "samples": 0,
            "paper_n": 200, "errored": 0, "folder": "fever/tool-mad", "notes": [], "overrides": []}
    build_report(tmp_path, {"paper": "toolmad-draft", "tables": ["table1"], "cells": [cell], "seed": 0, "limit": 3})
    report = (tmp_path / "report.md").read_text()
    assert "  - the paper's own setting, not a difference: the judge reads each agent's consistency score" in report
    assert "differs from the paper: T = 2 (paper: T = 3)" in report
    assert "differs from the paper: the earlier draft's consistency score" not in report
