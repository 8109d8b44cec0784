"""Every file a command is named to read is bounded: ``check-response --file`` (and stdin),
``verify --input`` and ``--config`` refuse a link to ``/dev/zero``, a FIFO nobody writes and a 3 GB sparse file
in one line (exit 2), where they read 1.2 GB in 7-14 s, hung on ``open`` for ever, or read the sparse file
whole; a pipe that is written to (``<(echo ...)``, ``-``) still works within the cap.

The hostile files go to the commands in a child process with its address space capped and a timeout (the driver
of tests/run/test_bounded_reads.py), so code without the bounds fails here instead of filling the memory or
hanging."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from factdebate.util.errors import InputError
from factdebate.util.input_files import read_bounded
from tests.readiness import run as run_to_end
from tests.run.test_bounded_reads import _driver

LLM = ["--llm", "scripted:agree", "--no-cache", "--method", "single"]
SPARSE = 3 * 2**30


def _hostile(folder: Path) -> dict[str, Path]:
    zero, fifo, sparse = folder / "zero.txt", folder / "fifo.txt", folder / "sparse.txt"
    zero.symlink_to("/dev/zero")
    os.mkfifo(fifo)
    sparse.touch()
    os.truncate(sparse, SPARSE)  # no block written: cheap
    return {"dev-zero": zero, "fifo": fifo, "sparse": sparse}


def test_named_input_files_are_refused_in_one_line(tmp_path: Path) -> None:
    files = _hostile(tmp_path)
    expected = {"dev-zero": "is not a regular file (a FIFO or a device)", "sparse": "3072 MiB, more than the"}
    commands: list[tuple[str, str, list[str]]] = []
    for fault, path in files.items():
        commands.append((fault, "check-response", ["check-response", "--file", str(path), *LLM]))
        commands.append((fault, "verify", ["verify", "--input", str(path), "-o", str(tmp_path / f"{fault}.jsonl"),
                                           *LLM]))
        commands.append((fault, "config", ["verify", "The sky is blue.", "--config", str(path), *LLM]))
    answers = _driver([args for _, _, args in commands])
    for (fault, command, _), (code, err) in zip(commands, answers, strict=True):
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2, f"{command} {fault}: exit {code}: {err[-1000:]}"
        assert len(lines) == 1 and "Traceback" not in err, f"{command} {fault}: {err}"
        # a FIFO nobody writes reads as empty at once (a config FIFO is refused outright)
        fifo = "not a regular file" if command == "config" else "empty"
        said = fifo if fault == "fifo" else expected[fault]
        assert said in lines[0] and str(files[fault]) in lines[0], f"{command} {fault}: {lines[0]}"
        if fault == "sparse":  # the cap names what raises it
            setting = {"check-response": "response.max_response_chars", "verify": "FACTDEBATE_MAX_INPUT_MB",
                       "config": "64 MiB"}[command]
            assert setting in lines[0], lines[0]


def test_a_pipe_that_is_written_to_still_works(tmp_path: Path) -> None:
    """``--file <(...)`` and ``verify --input <(...)`` are pipes with a writer; ``-`` reads stdin; each within
    the cap (a pipe past it is refused naming the setting)."""
    from tests.cli.test_main import EXE

    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    shell = (f'{EXE} check-response --json --file <(printf "The Eiffel Tower is in Paris.") {" ".join(LLM)} && '
             f'{EXE} verify --input <(echo \'{{"id": "1", "claim": "The sky is blue."}}\') '
             f'-o {tmp_path / "out.jsonl"} {" ".join(LLM)}')
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=180, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[0])["response"] == "The Eiffel Tower is in Paris."
    assert json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])["id"] == "1"
    provenance = json.loads((tmp_path / "out.jsonl.provenance.json").read_text(encoding="utf-8"))
    assert provenance["input"]["claim_ids"] == ["1"]
    big = run_to_end([EXE, "check-response", "-", *LLM], input="x" * 200_000, what="check-response over its size",
                     env={**env, "FACTDEBATE_RESPONSE__MAX_RESPONSE_CHARS": "100"})
    assert big.returncode == 2 and "set response.max_response_chars to change it" in big.stderr, big.stderr
    assert len(big.stderr.strip().splitlines()) == 1, big.stderr


def test_the_reader_on_pipes(tmp_path: Path) -> None:
    """The reader alone: a pipe's writer that sends slowly is waited for; one that holds the pipe open and
    never sends is refused after the idle bound; /dev/zero through a pipe is cut at the cap."""
    read_end, write_end = os.pipe()
    sent = threading.Event()

    def slow_writer() -> None:
        os.write(write_end, b"first ")
        sent.wait()  # the reader has started waiting: send the rest and close
        os.write(write_end, b"second")
        os.close(write_end)

    writer = threading.Thread(target=slow_writer)
    writer.start()
    threading.Timer(0.0, sent.set).start()
    assert read_bounded(f"/dev/fd/{read_end}", what="--file", limit=100) == b"first second"
    writer.join()
    os.close(read_end)

    read_end, write_end = os.pipe()  # a writer that never sends
    started = time.monotonic()
    with pytest.raises(InputError, match="is a pipe that sent nothing for"):
        read_bounded(f"/dev/fd/{read_end}", what="--file", limit=100, idle_s=0.2)
    assert time.monotonic() - started < 60
    os.close(read_end)
    os.close(write_end)

    zeros = subprocess.Popen(["cat", "/dev/zero"], stdout=subprocess.PIPE)
    assert zeros.stdout is not None
    with pytest.raises(InputError, match=r"/dev/fd/\d+ sent more than the 1 MiB it may hold \(set X to change"):
        read_bounded(f"/dev/fd/{zeros.stdout.fileno()}", what="--file", limit=2**20, setting="X")
    zeros.kill()
    zeros.wait()
    zeros.stdout.close()


def test_stdin_that_is_a_device_is_refused(tmp_path: Path) -> None:
    from tests.cli.test_main import EXE

    with open("/dev/zero", "rb") as zero:
        started = time.monotonic()
        done = run_to_end([EXE, "check-response", "-", *LLM], stdin=zero, env={**os.environ, "HF_HUB_OFFLINE": "1"},
                          what="check-response reading /dev/zero")
    assert done.returncode == 2, done.stderr
    assert "standard input is not a regular file (a FIFO or a device)" in done.stderr
    print(f"stdin /dev/zero refused in {time.monotonic() - started:.2f} s", file=sys.stderr)


def test_a_corpus_file_that_is_a_fifo_or_a_device_is_refused(tmp_path: Path) -> None:
    """``factdebate index FILE`` reads documents through ``load_documents``: a FIFO held it on ``open`` and a
    link to /dev/zero streamed zeros with no line end; both are refused from ``stat`` now, before opening."""
    from factdebate.corpus.loading import load_documents

    fifo, zero = tmp_path / "docs.jsonl", tmp_path / "zero.jsonl"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    outcome: list[str] = []

    def load() -> None:
        try:
            list(load_documents(fifo))
        except InputError as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # code that blocks on the FIFO: a writer lets it go, then the test fails
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("load_documents blocked on a FIFO")
    assert outcome == [f"{fifo} is not a regular file (a FIFO or a device): give a file"]
    with pytest.raises(InputError, match="is not a regular file"):
        load_documents(zero)
