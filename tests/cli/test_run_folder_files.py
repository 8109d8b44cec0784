"""Run folders that someone else made, given to ``compare`` and ``reproduce --from`` (items 4-6
and 9): files that are links out of the folder or FIFOs, damaged or mis-shaped JSON, records nested
hundreds of levels, one folder named twice, HTML in a run's name, and values that would fail only after the
work. Each is one line, exit 2, before anything is written (docs/robustness.md, hardening round 5)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from factdebate.cli.main import run
from tests.cli.test_exits import call

COMMON = ["--dataset", "countries", "--limit", "4", "--llm", "scripted:agree", "--no-cache"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two finished runs on one draw (cot and single, scripted): ``cot/`` and ``single/``."""
    root = tmp_path_factory.mktemp("runs")
    for method in ("cot", "single"):
        assert run(["eval", "--method", method, "-o", str(root / method), *COMMON]) == 0
    return root


@pytest.fixture
def copies(runs: Path, tmp_path: Path) -> tuple[Path, Path]:
    """Copies of the two runs this test may damage."""
    return (Path(shutil.copytree(runs / "cot", tmp_path / "cot")),
            Path(shutil.copytree(runs / "single", tmp_path / "single")))


@pytest.fixture
def fifo_release() -> Iterator[Callable[[Path], None]]:
    """Makes a FIFO at a path; should a reader block on it (the fault under test), a writer opens it every
    5 s and closes it at once, so the test fails instead of hanging."""
    made: list[Path] = []
    stop = threading.Event()

    def make(path: Path) -> None:
        path.unlink(missing_ok=True)
        os.mkfifo(path)
        made.append(path)

    def release() -> None:
        while not stop.wait(5):
            for path in made:
                with contextlib.suppress(OSError):  # nobody is reading: nothing to release
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    watchdog = threading.Thread(target=release, daemon=True)
    watchdog.start()
    yield make
    stop.set()


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Runs the command, checks it failed as a usage error in one line, and returns that line."""
    code, err = call(capsys, *args)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("Try ")), err
    assert "internal error" not in err
    return lines[0]


def _edit(file: Path, change: Callable[[dict[str, object]], None]) -> None:
    data = json.loads(file.read_text())
    change(data)
    file.write_text(json.dumps(data))


def test_files_that_are_links_out_or_fifos_are_refused(copies: tuple[Path, Path], tmp_path: Path,
                                                       fifo_release: Callable[[Path], None],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    cot, single = copies
    out = tmp_path / "out"
    # A link to a file outside the folder is not followed. /dev/zero is such a file (it filled the memory);
    # another run's file stands for it here, so that this test on code without the check fails, not the machine.
    kept = (cot / "summary.json").read_bytes()
    (cot / "summary.json").unlink()
    (cot / "summary.json").symlink_to(single / "summary.json")
    assert "summary.json is a link leading outside" in refused(capsys, "compare", str(cot), str(single),
                                                               "-o", str(out))
    (cot / "summary.json").unlink()
    (cot / "summary.json").write_bytes(kept)
    for name in ("run.json", "results.jsonl"):
        kept = (cot / name).read_bytes()
        fifo_release(cot / name)  # a FIFO held `compare` for ever
        assert f"{name} is not a regular file" in refused(capsys, "compare", str(cot), str(single), "-o", str(out))
        (cot / name).unlink()
        (cot / name).write_bytes(kept)
    assert not out.exists()


def test_reproduce_from_reads_no_link_or_fifo(copies: tuple[Path, Path], tmp_path: Path,
                                              fifo_release: Callable[[Path], None],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    cot, single = copies
    out = tmp_path / "again"
    recorded = (cot / "run.json").read_bytes()
    (cot / "run.json").unlink()
    (cot / "run.json").symlink_to(single / "run.json")  # stands for /dev/zero, as above
    assert "run.json is a link leading outside" in refused(capsys, "reproduce", "--from", str(cot), "-o", str(out))
    (cot / "run.json").unlink()
    fifo_release(cot / "run.json")
    assert "run.json is not a regular file" in refused(capsys, "reproduce", "--from", str(cot), "-o", str(out))
    (cot / "run.json").unlink()
    (cot / "run.json").write_bytes(recorded)
    fifo_release(cot / "summary.json")
    assert "summary.json is not a regular file" in refused(capsys, "reproduce", "--from", str(cot), "-o", str(out))
    assert not out.exists()


@pytest.mark.parametrize(("damage", "expected"), [
    (lambda f: f.write_text(f.read_text()[:100]), "is damaged: not JSON"),
    (lambda f: f.write_text("[1, 2]"), "holds a JSON list, not an object"),
    (lambda f: f.write_text('"a run"'), "holds a JSON string, not an object"),
])
@pytest.mark.parametrize("name", ["run.json", "summary.json"])
def test_compare_on_damaged_json_is_one_line(name: str, damage: Callable[[Path], object], expected: str,
                                             copies: tuple[Path, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    cot, single = copies
    damage(cot / name)
    line = refused(capsys, "compare", str(cot), str(single), "-o", str(tmp_path / "out"))
    assert name in line and expected in line
    assert not (tmp_path / "out").exists()


def test_mis_shaped_settings_and_negative_seeds_are_refused_before_any_work(copies: tuple[Path, Path],
                                                                            tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    cot, single = copies
    out = tmp_path / "out"
    assert "greater than or equal to 0" in refused(capsys, "compare", str(cot), str(single), "-o", str(out),
                                                   "--seed", "-1")
    assert "less than or equal to 100000" in refused(capsys, "compare", str(cot), str(single), "-o", str(out),
                                                     "--resamples", "1000000000")
    (tmp_path / "FILE").write_text("mine\n")
    assert "--output" in refused(capsys, "compare", str(cot), str(single), "-o", str(tmp_path / "FILE"))
    assert "--output" in refused(capsys, "report", str(cot), str(single), "-o", str(tmp_path / "FILE"))
    assert (tmp_path / "FILE").read_text() == "mine\n"
    _edit(cot / "summary.json", lambda d: d["settings"].update(llm=["scripted:agree"]))  # type: ignore[attr-defined]
    assert "llm is a JSON list, not an object" in refused(capsys, "compare", str(cot), str(single), "-o", str(out))
    assert not out.exists()
    again = tmp_path / "again"
    _edit(cot / "run.json", lambda d: d["settings"].update(llm=["scripted:agree"]))  # type: ignore[attr-defined]
    assert "llm is a JSON list" in refused(capsys, "reproduce", "--from", str(cot), "-o", str(again))
    _edit(single / "run.json", lambda d: d.update(seed=-1))
    assert "seed" in refused(capsys, "reproduce", "--from", str(single), "-o", str(again))
    assert not again.exists()


def test_an_old_record_nested_900_levels_is_one_line(copies: tuple[Path, Path], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    cot, single = copies
    rows = [json.loads(line) for line in (cot / "results.jsonl").read_text().splitlines()]
    nested: object = "deep"
    for _ in range(898):
        nested = [nested]
    del rows[0]["schema_version"]  # an old-schema row: upgraded (copied) as it is read
    rows[0]["rounds"] = [{"turns": [{"agent": "cot", "response": nested}]}]
    (cot / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    line = refused(capsys, "compare", str(cot), str(single), "-o", str(tmp_path / "out"))
    assert "results.jsonl" in line and "more than 64 levels deep" in line
    assert not (tmp_path / "out").exists()


def test_one_folder_twice_is_refused(runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "link").symlink_to(runs / "cot")
    line = refused(capsys, "compare", str(runs / "cot"), str(tmp_path / "link"), "-o", str(tmp_path / "out"))
    assert "are the same run directory" in line and not (tmp_path / "out").exists()


def test_compare_md_escapes_html_from_run_names(copies: tuple[Path, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    cot, single = copies
    name = "<img src=x onerror=alert(1)>"
    _edit(cot / "summary.json", lambda d: d.update(name=name))
    code, err = call(capsys, "compare", str(cot), str(single), "-o", str(tmp_path / "out"))
    assert code == 0, err
    text = (tmp_path / "out" / "compare.md").read_text()
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert json.loads((tmp_path / "out" / "compare.json").read_text())["runs"][0]["name"] == name  # data as it is
