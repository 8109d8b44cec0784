"""The background builder of the built-in corpus's vectors (corpus/vectors_later.py) as real processes: a command
that starts it and is then killed outright (SIGKILL) takes it down within seconds, and two commands started
together on one fresh data folder run one builder, the second saying the index is being built. The child's
build is a stand-in (tests/corpus/vectors_stand_in.py) that works in short batches until it is stopped: the
tether, the lock and the stopping are the real ones."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from factdebate.corpus import vectors_later
from factdebate.util.processes import pid_alive

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 120.0  # generous: imports on a busy 2-core machine; every wait polls and ends as soon as it is met
# A command that builds retrieval the way verify does (run/build.py): it starts the builder, says whether it did,
# and lives on until it is killed.
PARENT = """
import sys, time
from factdebate.corpus import vectors_later
vectors_later.CHILD_MODULE = "tests.corpus.vectors_stand_in"
build = vectors_later.Build(sys.argv[1], None, "int8")
started = vectors_later.start(build)
print(f"started {vectors_later._children[build].pid}" if started else "not started", flush=True)
time.sleep(600)
"""


def _parent(data: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", PARENT, str(data / "milvus.db")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)


def _said(parent: subprocess.Popen[str]) -> str:
    assert parent.stdout is not None
    line = parent.stdout.readline().strip()
    assert line, f"the command ended before it said whether it started a builder:\n{parent.communicate()[1]}"
    return line


def _gone(pid: int) -> bool:
    """Ended: no such process, or one that ended and waits to be reaped (a zombie still answers signal 0)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
    except OSError:
        return not pid_alive(pid)
    return state in ("Z", "X")


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {WAIT_S:.0f} s"
        time.sleep(0.05)


@pytest.fixture
def parents(tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """The commands a test starts; their process groups (their builders too) are killed whatever it asserted."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for parent in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
        parent.communicate()


def _builders(data: Path) -> list[str]:
    path = data / "builders.txt"
    return path.read_text(encoding="utf-8").split() if path.exists() else []


def test_a_builder_whose_command_is_killed_outright_stops_within_seconds(
        tmp_path: Path, parents: list[subprocess.Popen[str]]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    parents.append(parent := _parent(data))
    said = _said(parent)
    assert said.startswith("started "), said
    builder = int(said.split()[1])
    _wait_for(lambda: bool(_builders(data)), "the builder never started its build")
    os.kill(parent.pid, signal.SIGKILL)  # kill -9: no atexit, no stop(), no signal to the builder
    parent.wait()
    _wait_for(lambda: _gone(builder), "the builder outlived the command that started it")
    # Its lock goes with its last thread, which can trail the process's exit status by a moment.
    _wait_for(lambda: not vectors_later.builder_running(data), "the builder's lock outlived it")
    log = (data / vectors_later.LOG_FILE).read_text(encoding="utf-8")
    assert "the command that started this build has ended: stopping" in log
    assert "stopped: the next run takes the build up" in log  # it stopped at a batch, as stop() stops it


def test_two_commands_on_one_fresh_data_folder_run_one_builder(
        tmp_path: Path, parents: list[subprocess.Popen[str]]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    parents.extend([_parent(data), _parent(data)])  # together, as two shells on one data folder
    said = {parent.pid: _said(parent) for parent in parents}
    started = [parent for parent in parents if said[parent.pid].startswith("started ")]
    assert len(started) == 1, said
    other = next(parent for parent in parents if parent is not started[0])
    assert said[other.pid] == "not started"
    _wait_for(lambda: bool(_builders(data)), "the builder never started its build")
    assert vectors_later.builder_running(data)
    os.killpg(other.pid, signal.SIGKILL)
    _, err = other.communicate()
    assert "the built-in corpus's vector index is being built by another factdebate process on this data " \
           "folder" in " ".join(err.split())
    assert _builders(data) == [said[started[0].pid].split()[1]]  # one build, by the one builder
