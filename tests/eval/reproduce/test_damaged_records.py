"""A damaged reproduction folder, an ``--output`` that is a file, and the rerun's count of differing verdicts:
each a one-line usage error (exit 2) that writes nothing, or the right number in ``rerun.md``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.reproduce.rerun import comparison_lines
from tests.cli.test_reproduce import SCRIPTED, call
from tests.eval.reproduce.test_cells import claims_file


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real reproduction: Tool-MAD's single-agent run on two FEVEROUS-format claims."""
    folder = tmp_path_factory.mktemp("repro")
    data = claims_file(folder / "feverous.jsonl", n=2)
    from factdebate.cli.main import run

    code = run(["reproduce", "toolmad", "--rows", "single", "--datasets", "feverous", "--limit", "2",
                "--data", f"feverous=claims:{data}", "-o", str(folder / "out"), *SCRIPTED])
    assert code == 0
    return folder / "out"


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _cells(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in data["cells"] if c["status"] == "done"]


DAMAGE: dict[str, tuple[str, Callable[[Path], None], str]] = {
    "truncated": ("reproduce.json", lambda p: p.write_text(p.read_text()[:200]), "not JSON"),
    "a list": ("reproduce.json", lambda p: p.write_text("[1, 2]"), "a JSON list, not an object"),
    "no cells": ("reproduce.json", lambda p: _edit(p, lambda d: d.pop("cells")), "cells: Field required"),
    "no folder": ("reproduce.json", lambda p: _edit(p, lambda d: [c.pop("folder") for c in d["cells"]]),
                  "cells.0.folder: Field required"),
    "a folder outside": ("reproduce.json", lambda p: _edit(p, lambda d: [c.update(folder="../../elsewhere")
                                                                         for c in d["cells"]]),
                         "not a folder inside the reproduction"),
    "seed abc": ("reproduce.json", lambda p: _edit(p, lambda d: d.update(seed="abc")), "seed: Input should be"),
    "run.json: no settings": ("feverous/single/run.json", lambda p: _edit(p, lambda d: d.pop("settings")),
                              "settings: Field required"),
    "run.json: seed abc": ("feverous/single/run.json", lambda p: _edit(p, lambda d: d.update(seed="abc")),
                           "seed: Input should be"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_record_is_one_line_and_writes_nothing(damage: str, reproduction: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    file, spoil, expected = DAMAGE[damage]
    folder = tmp_path / "damaged"
    shutil.copytree(reproduction, folder)
    spoil(folder / file)
    code, _, err = call(capsys, "reproduce", "--from", str(folder), "-o", str(tmp_path / "again"))
    assert code == 2, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]  # besides "…: rerunning"
    assert len(errors) == 1 and expected in errors[0] and file.rsplit("/", 1)[-1] in errors[0], err
    assert "internal error" not in err
    assert not (tmp_path / "again").exists() and not (tmp_path / "elsewhere").exists()


def test_an_undamaged_copy_reruns(reproduction: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(reproduction, folder)
    code, printed, err = call(capsys, "reproduce", "--from", str(folder), "-o", str(tmp_path / "again"))
    assert code == 0, err
    assert "of 2 sample(s)" in printed


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_output_naming_a_file_is_one_line(where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "taken.txt"
    file.write_text("mine\n")
    output = file if where == "a file" else file / "sub"
    data = claims_file(tmp_path / "feverous.jsonl", n=2)
    code, _, err = call(capsys, "reproduce", "toolmad", "--rows", "single", "--limit", "1",
                        "--data", f"feverous=claims:{data}", "-o", str(output), *SCRIPTED)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "is a file: give a folder" in err, err
    assert file.read_text() == "mine\n"
    code, _, err = call(capsys, "reproduce", "--from", str(tmp_path), "-o", str(output))
    assert code == 2 and "is a file: give a folder" in err, err


def test_the_rerun_counts_the_verdicts_that_differ() -> None:
    result = {"from": "/runs/a", "samples": 2, "matching": 0, "metrics": {}, "settings_changed": [],
              "versions_changed": [], "dataset_content_same": True,
              "differ": [{"id": "x", "before": "SUPPORTED", "after": "REFUTED"},
                         {"id": "y", "before": "REFUTED", "after": "SUPPORTED"}]}
    assert "the verdicts DIFFER for 2 of 2 sample(s)" in comparison_lines(result)[0]
    result.update(matching=1, differ=result["differ"][:1])
    assert "the verdicts DIFFER for 1 of 2 sample(s)" in comparison_lines(result)[0]
    result.update(matching=2, differ=[])
    assert "the verdicts match for 2 of 2 sample(s)" in comparison_lines(result)[0]


@pytest.mark.parametrize("reader", ["measure", "report", "compare"])
def test_every_reader_of_a_run_folder_checks_its_summary_the_same_way(reader: str, reproduction: Path,
                                                                     tmp_path: Path) -> None:
    """One reader for a run folder (eval/report/run_folder.py): a summary.json whose labels are a
    number is one line naming the file and the field in every command that reads it; the reproduction's
    measure read it unchecked before and failed deep inside with a TypeError."""
    from factdebate.eval.compare.load import load
    from factdebate.eval.report.side_by_side import load_run
    from factdebate.eval.reproduce.measure import measure_run
    from factdebate.util.errors import InputError

    folder = tmp_path / "run"
    shutil.copytree(reproduction / "feverous" / "single", folder)
    _edit(folder / "summary.json", lambda d: d.update(labels=3))
    read = {"measure": lambda: measure_run(folder, ["accuracy"], 2), "report": lambda: load_run(folder),
            "compare": lambda: load(folder)}[reader]
    with pytest.raises(InputError) as raised:
        read()
    assert "summary.json is damaged: labels:" in str(raised.value) and "\n" not in str(raised.value)
