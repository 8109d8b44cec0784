"""Ctrl-C in every phase of the index build `verify` makes on an empty data folder: SIGINT to the command's
process group, as a terminal sends it, stops the run with 130 once the step it came in returns, and the claim
is never run (its trace has no ``run_started``).

A step that a native library runs in one call (the full-text commit, the vector index, the encoder's export)
cannot be interrupted, and the build runs in a worker thread the interrupt cannot reach: each such step is
held here for a while as it starts, so the signal comes while it runs. The wait for another process's build is
the real one: the test holds the build lock itself and never lets go.

Each phase is interrupted as a command that waits for the vectors runs it (``retrieval.while_indexing: wait``);
the phases that come before the claim under ``full_text`` (the encoder's export, the full-text index) also as
such a command runs them; there the vectors are built in a child process while the claim runs, and Ctrl-C stops
that child with the command."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.corpus.test_builtin_index import fresh_env, markers, vectors_written

HOLD_S = 3.0  # how long a held step lasts after it says it started: the signal comes meanwhile
WAIT_S = 180  # the step that was held then runs to its end: the encoder's export took a minute on a busy machine
# The command as the console script runs it, with one step of the build held (``TEST_HELD``: module, class
# or module-level function, attribute); it says "held: <step>" on stderr as the step starts.
WRAPPER = """
import importlib, os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C's default, whatever the test run ignores
held = os.environ.get("TEST_HELD")
if held:
    module, owner, name = held.split(":")
    target = importlib.import_module(module)
    target = getattr(target, owner) if owner else target
    original = getattr(target, name)
    def step(*args, **kwargs):
        print("held: " + name, file=sys.stderr, flush=True)
        time.sleep(float(os.environ["TEST_HOLD_S"]))
        return original(*args, **kwargs)
    setattr(target, name, step)
from factdebate.cli.main import main
sys.argv = ["factdebate", *sys.argv[1:]]
main()
"""
WAIT = {"FACTDEBATE_RETRIEVAL__WHILE_INDEXING": "wait"}  # the vectors before the claim
PHASES = {
    "the encoder's export": "factdebate.embeddings.onnx::_export",
    "the full-text index": "factdebate.corpus.lexical:LexicalIndex:add",
    "the embeddings": "factdebate.corpus.milvus:MilvusStore:add",
    "the vector index": "factdebate.corpus.milvus:MilvusStore:finalize",
}


def _start(env: dict[str, str], trace: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WRAPPER, "verify", "The Eiffel Tower is in Rome.", "--brief",
                             "--trace", str(trace)], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)  # its own process group, as a terminal's job


def _interrupt_when(proc: subprocess.Popen[str], said: str, how: str = "ctrl-c") -> list[str]:
    """Once stderr says ``said``, SIGINT to the process group (a terminal's Ctrl-C, which its children get too)
    or SIGTERM to the process alone (``how``: "sigterm", as a supervisor or ``kill`` sends it); the lines read
    before."""
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if said in line:
            if how == "sigterm":
                os.kill(proc.pid, signal.SIGTERM)
            else:
                os.killpg(proc.pid, signal.SIGINT)
            return lines
    raise AssertionError(f"the build never said {said!r}:\n{''.join(lines)}")


def _assert_stopped_before_the_claim(proc: subprocess.Popen[str], trace: Path, before: list[str]) -> None:
    try:
        out, rest = proc.communicate(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # never left running after the test
        proc.communicate()
        raise AssertionError(f"still running {WAIT_S} s after the interrupt:\n{''.join(before)}") from None
    said = "".join(before) + rest
    assert proc.returncode == 130, said
    assert "interrupted" in said and "Verdict" not in out
    events = [json.loads(line)["event"] for line in trace.read_text(encoding="utf-8").splitlines()] \
        if trace.exists() else []
    assert "run_started" not in events, "the claim ran after the interrupt"


FOREGROUND = ("the encoder's export", "the full-text index")  # before the claim under full_text too


@pytest.mark.parametrize(("phase", "mode"), [*((phase, "wait") for phase in PHASES),
                                             *((phase, "full_text") for phase in FOREGROUND)])
def test_ctrl_c_in_a_step_of_the_build_stops_verify_before_its_claim(tmp_path: Path, onnx_model: Path,
                                                                     phase: str, mode: str) -> None:
    data = tmp_path / "data"
    exported = phase == "the encoder's export"  # an empty folder has no encoder: it is exported first
    env = fresh_env(data, None if exported else onnx_model, FACTDEBATE_RETRIEVAL__BUILTIN_DOCS="3",
                    FACTDEBATE_LLM="scripted:agree", TEST_HELD=PHASES[phase],
                    TEST_HOLD_S=str(HOLD_S), FACTDEBATE_RETRIEVAL__WHILE_INDEXING=mode)
    data.mkdir(parents=True, exist_ok=True)  # the encoder is not copied there: the real export runs after its hold
    proc = _start(env, tmp_path / "trace.jsonl")
    before = _interrupt_when(proc, "held: ")
    _assert_stopped_before_the_claim(proc, tmp_path / "trace.jsonl", before)


def test_sigterm_during_the_vector_index_stops_verify_before_its_claim(tmp_path: Path, onnx_model: Path) -> None:
    data = tmp_path / "data"
    env = fresh_env(data, onnx_model, FACTDEBATE_RETRIEVAL__BUILTIN_DOCS="3", FACTDEBATE_LLM="scripted:agree",
                    TEST_HELD=PHASES["the vector index"], TEST_HOLD_S=str(HOLD_S), **WAIT)
    proc = _start(env, tmp_path / "trace.jsonl")
    before = _interrupt_when(proc, "held: ", how="sigterm")
    _assert_stopped_before_the_claim(proc, tmp_path / "trace.jsonl", before)


def test_ctrl_c_while_waiting_for_another_processs_build_stops_at_once(tmp_path: Path, onnx_model: Path) -> None:
    data = tmp_path / "data"
    env = fresh_env(data, onnx_model, FACTDEBATE_RETRIEVAL__BUILTIN_DOCS="3", FACTDEBATE_LLM="scripted:agree")
    with (data / ".build-builtin.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process's build, which never ends while the test runs
        proc = _start(env, tmp_path / "trace.jsonl")
        before = _interrupt_when(proc, "waiting for another factdebate process")
        sent = time.monotonic()
        _assert_stopped_before_the_claim(proc, tmp_path / "trace.jsonl", before)
        assert time.monotonic() - sent < 60  # the wait itself stopped: the lock is still held


def test_ctrl_c_while_the_vectors_build_in_the_background_stops_them_with_the_command(tmp_path: Path,
                                                                                     onnx_model: Path) -> None:
    """Under ``full_text`` the claim runs on the full-text index while a child builds the vectors (400 articles,
    seven batches): Ctrl-C once its first batch is written ends the command with 130 and no verdict, and the
    child with it, before its build was complete (no marker; its log says it stopped)."""
    data = tmp_path / "data"
    # The claim's first RAG search (which starts the build) is held on the full-text index for as long as the
    # test may take: the verdict cannot come first.
    env = fresh_env(data, onnx_model, FACTDEBATE_RETRIEVAL__BUILTIN_DOCS="400", FACTDEBATE_LLM="scripted:agree",
                    TEST_HELD="factdebate.tools.rag_pending:PendingRagTool:_full_text", TEST_HOLD_S=str(WAIT_S))
    proc = _start(env, tmp_path / "trace.jsonl")
    before = _interrupt_after_first_vectors(proc, data)
    try:
        out, rest = proc.communicate(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"still running {WAIT_S} s after the interrupt:\n{''.join(before)}") from None
    said = "".join(before) + rest
    assert proc.returncode == 130, said
    assert "interrupted" in said and "Verdict" not in out
    assert "in the background" in said  # the background phase said so
    assert "rag:builtin:<data>/milvus.db" not in markers(data), "the vectors were built to their end"
    # The child stops on its own signal, at its lower priority: on a loaded machine its last line may come after
    # the command has ended, so it is waited for (as long as the test may take), not read at once.
    log = data / "vectors-build.log"
    deadline = time.monotonic() + WAIT_S
    while "stopped" not in log.read_text(encoding="utf-8") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "stopped" in log.read_text(encoding="utf-8")


def _interrupt_after_first_vectors(proc: subprocess.Popen[str], data: Path) -> list[str]:
    """Ctrl-C to the process group once the claim's search is held and the child's first batch is written."""
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if "held: " in line:
            break
    deadline = time.monotonic() + WAIT_S
    while not vectors_written(data):
        assert proc.poll() is None, "".join(lines)
        assert time.monotonic() < deadline, "no batch of vectors was written:\n" + "".join(lines)
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    return lines


@pytest.fixture(scope="module")
def onnx_model(onnx_model_file: Path) -> Path:
    """The int8 encoder exported once for the run (tests/conftest.py), copied into each data folder."""
    return onnx_model_file
