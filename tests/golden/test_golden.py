"""The golden check: every method's verdicts on five ``countries`` claims (scripted backend) and three
``eval --limit 5`` runs are unchanged, record by record (see record.py for what is compared and how to
refresh expected.json when a change of behaviour is intended).

One test per file of records (``NAMES``), so pytest-xdist runs them side by side; each starts from a copy of
one data folder where the builtin corpus was indexed once for the whole run, and runs its command line in the
worker's process (record.py's own recording starts the console script). What a record holds depends on
the methods' logic, not on timing (record.py), so the check passes the same on a busy machine
(benchmarks/golden_under_load.py runs it beside two busy loops)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.golden.record import (
    EXPECTED,
    NAMES,
    Runner,
    diff,
    indexed_folder,
    record_one,
    records,
    stored_records,
    summary,
)
from tests.parallel import build_once, run_folder

# Each test is one command-line run (DPD's eval: about a minute on an idle 2-core machine); the limit leaves
# room for a shared one.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def indexed(tmp_path_factory: pytest.TempPathFactory, onnx_model_file: Path) -> Path:
    """The data folder every record starts from, indexed once per run (shared by the xdist workers)."""
    return build_once(run_folder(tmp_path_factory) / "golden-indexed",
                      lambda target: indexed_folder(target, onnx_model_file))


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Runner:
    """Runs a command line in this process, as tests/test_documented_lines.py does, instead of the console
    script in a new one: each of those paid Python's start and factdebate's imports again (about a CPU-second
    of the 1-6 a record costs). The records come out the same either way (benchmarks/decisions/golden_in_process.py
    compares them file by file)."""
    from factdebate.cli.main import run

    def run_here(args: list[str], env: dict[str, str]) -> None:
        with monkeypatch.context() as scoped:
            for name, value in env.items():
                if os.environ.get(name) != value:
                    scoped.setenv(name, value)
            for name in [name for name in os.environ if name.startswith("FACTDEBATE_") and name not in env]:
                scoped.delenv(name)  # the suite's own settings, which a record leaves out (record.py's _env)
            code = run(args)
        said = capsys.readouterr()
        if code != 0:
            raise RuntimeError(f"factdebate {' '.join(args)} exited {code}:\n{said.err[-3000:]}")

    return run_here


@pytest.mark.parametrize("name", NAMES)
def test_every_method_answers_as_recorded(name: str, indexed: Path, tmp_path: Path, in_process: Runner) -> None:
    record_one(name, tmp_path / "out", indexed, tmp_path / "work", run=in_process)
    found = summary(tmp_path / "out")
    expected = {name: json.loads(EXPECTED.read_text(encoding="utf-8"))[name]}
    assert sorted(found) == [name]
    changed = [(name, key) for key, value in found[name].items() if expected[name].get(key) != value]
    missing = [f"{name} {key}: not recorded now" for key in expected[name] if key not in found[name]]
    if changed or missing:
        pytest.fail("behaviour changed:\n" + "\n".join([*explained(changed, expected, found, tmp_path), *missing]))


def test_every_recorded_file_is_checked() -> None:
    assert sorted(json.loads(EXPECTED.read_text(encoding="utf-8"))) == sorted(NAMES)


def explained(changed: list[tuple[str, str]], expected: dict[str, Any], found: dict[str, Any],
              tmp_path: Path, limit: int = 40) -> list[str]:
    """Per changed record: its brief before and after, then the fields that differ (from records.json.gz)."""
    before, now = stored_records(), records(tmp_path / "out")
    lines: list[str] = []
    for name, key in changed[:limit]:
        lines.append(f"{name} {key}: {expected[name].get(key)} -> {found[name][key]}")
        old = before.get(name, {}).get(key)
        if old is None:
            lines.append("  (not in records.json.gz: re-record it with record.py --expected)")
        else:
            lines.extend(f"  {line}" for line in diff(old, now[name][key]))
    if len(changed) > limit:
        lines.append(f"… and {len(changed) - limit} more changed record(s)")
    lines.append(f"the full records: {tmp_path / 'out'}; refresh with tests/golden/record.py OUT --expected")
    return lines


def test_a_changed_record_is_shown_field_by_field() -> None:
    before = {"label": "SUPPORTS", "rounds": [{"evidence": [{"id": "a#0"}, {"id": "b#0"}]}], "usage": {"llm_calls": 3}}
    after = {"label": "SUPPORTS", "rounds": [{"evidence": [{"id": "b#0"}, {"id": "a#0"}]}], "usage": {"llm_calls": 4},
             "warnings": ["x" * 200]}
    lines = diff(before, after, limit=3)
    assert lines[:3] == ['rounds[0].evidence[0].id: "a#0" -> "b#0"', 'rounds[0].evidence[1].id: "b#0" -> "a#0"',
                         "usage.llm_calls: 3 -> 4"]
    assert lines[3] == "… and 1 more field(s)"
    assert diff(before, after)[3].startswith('warnings[0]: (none) -> "xxx') and "(202 chars)" in diff(before, after)[3]


def test_scores_that_kernels_move_are_left_out_and_the_passages_kept() -> None:
    from tests.golden.record import normalised

    row = {"rounds": [{"evidence": [{"id": "a#0", "score": 0.2005671}], "scores": {"answer_relevance": 0.896499,
                                                                                    "faithfulness": 0.3333333}}]}
    assert normalised(row) == {"rounds": [{"evidence": [{"id": "a#0"}],
                                           "scores": {"answer_relevance": 0.9, "faithfulness": 0.333333}}]}


def test_counts_of_discarded_speculative_work_are_left_out() -> None:
    """How many speculative calls had started when their round was dropped depends on scheduling."""
    from tests.golden.record import normalised

    row = {"usage": {"llm_calls": 8, "speculative_calls": 4, "speculative_tokens": 1025},
           "metrics": {"cost": {"llm_calls": {"mean": 8.0}, "speculative_calls": {"mean": 3.0}}},
           "config": {"speculate": None}}
    assert normalised(row) == {"usage": {"llm_calls": 8}, "metrics": {"cost": {"llm_calls": {"mean": 8.0}}},
                               "config": {"speculate": None}}
