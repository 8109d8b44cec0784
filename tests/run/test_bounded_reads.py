"""Every reader of a run's ``results.jsonl`` goes through the bounded run-file reader (core/runfiles.py,
issue 45 item 5): ``eval``'s resume, ``compare``, ``report`` and ``reproduce --from`` refuse a link to
``/dev/zero``, a FIFO, a sparse file above the size bound, one with no line end for gigabytes, and a line
nested 200,000 levels deep, each in one line (exit 2), where they read it whole (gigabytes in seconds), hung,
or went on as if the line were torn (exit 0).

The hostile files are given to the commands in a child process with its address space capped and a
timeout: code without the bounds then fails this test instead of filling the machine's memory or hanging."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from factdebate.cli.main import run
from factdebate.core.runfiles import MAX_RESULTS_BYTES, iter_run_lines, json_line
from factdebate.run.results_file import compact, latest_records
from factdebate.util.errors import InputError

COMMON = ["--dataset", "countries", "--limit", "3", "--llm", "scripted:agree", "--no-cache"]
DEEP = 200_000
MEMORY_CAP = 3 * 2**30  # the child's address space: enough for the CLI, far below what the faults took
# Runs factdebate.cli.main.run on each argument list; prints [[exit code, stderr], ...] as JSON.
DRIVER = """
import contextlib, io, json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
from factdebate.cli.main import run
answers = []
for args in json.loads(sys.argv[2]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = run(args)
        except BaseException as exc:  # a MemoryError on code without the bounds
            code = repr(exc)[:200]
    answers.append([code, err.getvalue()])
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two finished runs on one draw (cot and single, scripted): ``cot/`` and ``single/``."""
    root = tmp_path_factory.mktemp("runs")
    for method in ("cot", "single"):
        assert run(["eval", "--method", method, "-o", str(root / method), *COMMON]) == 0
    return root


def _dev_zero(file: Path) -> None:
    file.symlink_to("/dev/zero")


def _fifo(file: Path) -> None:
    os.mkfifo(file)


def _sparse_above_bound(file: Path) -> None:
    file.touch()
    os.truncate(file, MAX_RESULTS_BYTES + 1)  # no block written: cheap


def _sparse_without_line_ends(file: Path) -> None:
    file.touch()
    os.truncate(file, 3 * 2**30)  # 3 GB of zeros, under the file bound: the line bound refuses it


def _deep_line(file: Path) -> None:
    with file.open("a", encoding="utf-8") as out:
        out.write('{"id": "deep", "x": ' + "[" * DEEP + "]" * DEEP + "}\n")


FAULTS: dict[str, tuple[Callable[[Path], None], str]] = {
    "dev-zero": (_dev_zero, "is a link leading outside"),
    "fifo": (_fifo, "is not a regular file"),
    "sparse-above-bound": (_sparse_above_bound, "more than the 4096 MiB"),
    "sparse-no-line-ends": (_sparse_without_line_ends, "has a line longer than 64 MiB"),
    "deep-line": (_deep_line, "nests lists or objects more than 64 levels deep"),
}


def _fault_commands(fault: str, runs: Path, folder: Path) -> dict[str, list[str]]:
    """``fault``'s results.jsonl in a copy of the cot run (``folder``/cot), and the four readers given it."""
    make, _ = FAULTS[fault]
    cot, single = (Path(shutil.copytree(runs / name, folder / name)) for name in ("cot", "single"))
    results = cot / "results.jsonl"
    if fault != "deep-line":
        results.unlink()
    make(results)
    return {
        "eval resume": ["eval", "--method", "cot", "-o", str(cot), *COMMON],
        "compare": ["compare", str(cot), str(single), "-o", str(folder / "compared")],
        "report": ["report", str(cot), str(single), "-o", str(folder / "report")],
        "reproduce --from": ["reproduce", "--from", str(cot), "-o", str(folder / "again")],
    }


def _dataset_and_grid_commands(runs: Path, folder: Path) -> dict[str, list[str]]:
    """A link to /dev/zero and a FIFO as the dataset, a FIFO as the grid, and a run whose run.json names the FIFO
    as its dataset, given to ``reproduce --from``."""
    zero, fifo = folder / "zero.jsonl", folder / "claims.jsonl"
    zero.symlink_to("/dev/zero")
    os.mkfifo(fifo)
    sent = Path(shutil.copytree(runs / "cot", folder / "sent"))
    record = json.loads((sent / "run.json").read_text(encoding="utf-8"))
    record["dataset"] = f"claims:{fifo}"
    (sent / "run.json").write_text(json.dumps(record), encoding="utf-8")
    return {"zero dataset": ["eval", "--method", "cot", "--dataset", f"claims:{zero}", "-o", str(folder / "a"),
                             *COMMON[2:]],
            "fifo dataset": ["eval", "--method", "cot", "--dataset", f"claims:{fifo}", "-o", str(folder / "b"),
                             *COMMON[2:]],
            "fifo grid": ["eval", "--grid", str(fifo), "--dataset", "countries", "-o", str(folder / "c"), *COMMON[2:]],
            "reproduce --from": ["reproduce", "--from", str(sent), "-o", str(folder / "d")]}


Answers = dict[str, tuple[Path, dict[str, tuple[int | str, str]]]]


@pytest.fixture(scope="module")
def answers(runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Answers:
    """Each hostile case's folder and what each of its commands answered (exit code, stderr): the cases' 24
    commands are given to one capped child process, one start and one import of factdebate instead of six
    (about 4 CPU-seconds), each command on its own files."""
    cases: dict[str, tuple[Path, dict[str, list[str]]]] = {}
    for fault in FAULTS:
        folder = tmp_path_factory.mktemp(fault)
        cases[fault] = (folder, _fault_commands(fault, runs, folder))
    folder = tmp_path_factory.mktemp("dataset-and-grid")
    cases["dataset-and-grid"] = (folder, _dataset_and_grid_commands(runs, folder))
    everything = [args for _, commands in cases.values() for args in commands.values()]
    said = iter(_driver(everything))
    return {case: (folder, {name: next(said) for name in commands}) for case, (folder, commands) in cases.items()}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_every_reader_of_results_jsonl_refuses_it_in_one_line(fault: str, answers: Answers) -> None:
    _, said = FAULTS[fault]
    folder, answered = answers[fault]
    for command, (code, err) in answered.items():
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2, f"{command}: exit {code}: {err[-1000:]}"
        assert len(lines) == 1 and said in lines[0] and "results.jsonl" in lines[0], f"{command}: {err}"
        assert "internal error" not in err and "Traceback" not in err
    for name in ("compared", "report", "again"):
        assert not (folder / name).exists()
    if fault == "deep-line":
        assert "deep" in (folder / "cot" / "results.jsonl").read_text(encoding="utf-8")  # refused, not compacted


# The reader itself, on small files.

def _lines(folder: Path, **bounds: int) -> list[bytes]:
    return list(iter_run_lines(folder, "results.jsonl", **bounds))


def test_lines_are_streamed_within_their_bound(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_bytes(b'{"id": "a"}\r\n' + b"x" * 10 + b"\n" + b"y" * 10)
    assert _lines(tmp_path, line_limit=12) == [b'{"id": "a"}', b"x" * 10, b"y" * 10]  # the line end is extra
    with pytest.raises(InputError, match="has a line longer than 11 bytes"):
        _lines(tmp_path, line_limit=11)  # the first line is 12 bytes before its end
    assert _lines(tmp_path / "absent") == []


def test_a_file_that_grows_past_its_bound_while_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_bytes(b"1\n" * 10)
    lines = iter_run_lines(tmp_path, "results.jsonl", limit=20)
    assert next(lines) == b"1"
    with (tmp_path / "results.jsonl").open("ab") as grow:
        grow.write(b"2\n" * 10)
    with pytest.raises(InputError, match="grew past 20 bytes"):
        list(lines)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "results.jsonl")
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            latest_records(tmp_path / "results.jsonl")
            outcome.append(None)
        except InputError as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)
    if reader.is_alive():  # code that blocks on the FIFO: open it for writing once so the thread ends
        os.close(os.open(tmp_path / "results.jsonl", os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO results.jsonl blocked")
    assert isinstance(outcome[0], InputError) and "is not a regular file" in str(outcome[0])


def test_torn_lines_are_still_dropped_and_deep_ones_refused(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"id": "a", "v": 1}\n{"id": "b"}\n{"id": "a", "v": 2}\n{"id": "c", "to', encoding="utf-8")
    assert compact(results) == 2  # the older record of a, and the torn line
    assert latest_records(results) == {"a": {"id": "a", "v": 2}, "b": {"id": "b"}}
    with pytest.raises(InputError, match=r"line 7, nests lists or objects more than 64 levels deep"):
        json_line(b'{"id": "x", "v": ' + b"[" * 65 + b"]" * 65 + b"}", results, 7)  # parsed, then measured
    assert json_line(b'{"id": "x", "v": ' + b"[" * 60 + b"]" * 60 + b"}", results, 1)["id"] == "x"
    with pytest.raises(ValueError):
        json_line(b'{"id": "x", "v": [[', results, 1)  # torn: the reader's to skip


def _driver(commands: list[list[str]]) -> list[tuple[int | str, str]]:
    try:
        done = subprocess.run([sys.executable, "-c", DRIVER, str(MEMORY_CAP), json.dumps(commands)],
                              capture_output=True, text=True, timeout=240, check=False,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"})
    except subprocess.TimeoutExpired:
        pytest.fail("a command reading a FIFO or a device did not end within 240 s")
    assert done.returncode == 0, done.stderr[-2000:]
    return [(code, err) for code, err in json.loads(done.stdout.splitlines()[-1])]


def test_dataset_and_grid_files_are_bounded_too(answers: Answers) -> None:
    """A dataset path reaches the reader from the command line, and on ``reproduce --from`` from the run folder
    (its run.json records it): a FIFO there hung the rerun, a link to /dev/zero filled the memory."""
    for command, (code, err) in answers["dataset-and-grid"][1].items():
        lines = [line for line in err.splitlines() if line.strip() and not line.startswith("Try ")]
        assert code == 2, f"{command}: exit {code}: {err[-1000:]}"
        assert "is not a regular file (a FIFO or a device)" in lines[-1], err
        assert "internal error" not in err and "Traceback" not in err


def test_a_gzip_file_is_decompressed_to_a_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.eval.datasets import loaders

    rows = b'{"id": "1", "claim": "a", "label": "SUPPORTS"}\n'
    (tmp_path / "two.jsonl.gz").write_bytes(gzip.compress(rows) + gzip.compress(rows.replace(b'"1"', b'"2"')))
    assert loaders.read_text(tmp_path / "two.jsonl.gz").count("SUPPORTS") == 2  # every member, as gzip reads
    monkeypatch.setattr(loaders, "MAX_INPUT_BYTES", 1000)
    (tmp_path / "bomb.jsonl.gz").write_bytes(gzip.compress(b" " * 5000))
    with pytest.raises(InputError, match="once decompressed: give a smaller dataset file"):
        loaders.read_text(tmp_path / "bomb.jsonl.gz")
    (tmp_path / "cut.jsonl.gz").write_bytes(gzip.compress(rows)[:20])
    with pytest.raises(InputError, match="is it truncated"):
        loaders.read_text(tmp_path / "cut.jsonl.gz")


def test_a_batch_refuses_a_fifo_beside_its_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``verify --input`` reads its results file and the provenance beside it: a FIFO at either held it."""
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"id": "1", "claim": "The sky is blue."}\n', encoding="utf-8")
    for name in ("out.jsonl", "out.jsonl.provenance.json"):
        folder = tmp_path / name.replace(".", "-")
        folder.mkdir()
        os.mkfifo(folder / name)
        outcome: list[int] = []
        args = ["verify", "--input", str(claims), "-o", str(folder / "out.jsonl"), "--llm", "scripted:agree",
                "--no-cache", "--method", "cot"]
        worker = threading.Thread(target=lambda args=args, outcome=outcome: outcome.append(run(args)), daemon=True)
        worker.start()
        worker.join(120)
        if worker.is_alive():  # code that blocks on the FIFO: a writer lets it go, then the test fails
            os.close(os.open(folder / name, os.O_WRONLY | os.O_NONBLOCK))
            pytest.fail(f"verify --input blocked on a FIFO {name}")
        err = capsys.readouterr().err
        assert outcome == [2], err
        assert f"{name} is not a regular file" in err
