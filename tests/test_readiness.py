"""tests/readiness.py, the suite's wait for a real component: ready when it says so, a broken start named at
once with its log, a spinning one ended by its own CPU budget, a hung one by its silence."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.readiness import NotReady, run, tree_cpu_seconds, wait_until_ready


def python(code: str, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT)


def test_ready_once_the_component_says_so(tmp_path: Path) -> None:
    mark = tmp_path / "ready"
    process = python(f"import pathlib, time\npathlib.Path({str(mark)!r}).touch()\ntime.sleep(60)", tmp_path / "log")
    try:
        readiness = wait_until_ready(mark.exists, process, "the toy", log=tmp_path / "log")
        assert readiness.wall_s >= 0 and readiness.cpu_s >= 0
    finally:
        process.kill()
        process.wait()


def test_a_start_that_exits_fails_at_once_with_its_log(tmp_path: Path) -> None:
    process = python("import sys\nprint('no such config: x.yaml', flush=True)\nsys.exit(3)", tmp_path / "log")
    with pytest.raises(NotReady, match=r"(?s)the toy exited before it was ready \(exit 3\).*no such config: x\.yaml"):
        wait_until_ready(lambda: False, process, "the toy", log=tmp_path / "log")


def test_a_start_that_spins_ends_on_its_own_cpu_budget(tmp_path: Path) -> None:
    process = python("while True: pass", tmp_path / "log")
    try:
        with pytest.raises(NotReady, match=r"the toy used its budget of 0\.3 CPU-seconds without becoming ready"):
            wait_until_ready(lambda: False, process, "the toy", cpu_budget_s=0.3, log=tmp_path / "log")
    finally:
        process.kill()
        process.wait()


def test_a_start_that_hangs_ends_when_it_uses_no_cpu(tmp_path: Path) -> None:
    process = python("import time\ntime.sleep(60)", tmp_path / "log")
    try:
        with pytest.raises(NotReady, match=r"the toy used no CPU for 1 s without becoming ready \(hung\)"):
            wait_until_ready(lambda: False, process, "the toy", stall_s=1.0, log=tmp_path / "log")
    finally:
        process.kill()
        process.wait()


def test_the_cpu_of_a_process_tree_counts_its_children() -> None:
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys\n"
                               "subprocess.run([sys.executable, '-c', 'import time\\nt = time.process_time()\\n"
                               "while time.process_time() - t < 0.3: pass\\nprint(1, flush=True)\\n"
                               "time.sleep(60)'])"], stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == b"1"  # the child has spun
        # /proc counts in clock ticks, so the child's 0.3 s of process_time may read as 0.29: the parent alone,
        # idle, has used about 0.05, so 0.2 still needs the child's CPU.
        assert (tree_cpu_seconds(parent.pid) or 0) >= 0.2
    finally:
        os.killpg(parent.pid, signal.SIGKILL)  # the parent and its child, in a session of their own
        parent.wait()


@pytest.mark.timeout(3)
def test_a_slow_start_that_makes_progress_is_not_charged_to_the_test_timeout(tmp_path: Path) -> None:
    """pytest-timeout's alarm (3 s here) is pushed back while the component works: it is ready after 5 s.
    It works a tenth of the time (5 ms of CPU, then 45 ms asleep), as a start that waits on disk and sockets
    does: every half-second sample still sees its CPU grow, for 0.5 CPU-seconds instead of 5 spun."""
    mark = tmp_path / "ready"
    process = python(f"import pathlib, time\nt = time.monotonic()\nwhile time.monotonic() - t < 5:\n"
                     f"    c = time.process_time()\n    while time.process_time() - c < 0.005: pass\n"
                     f"    time.sleep(0.045)\n"
                     f"pathlib.Path({str(mark)!r}).touch()\ntime.sleep(60)", tmp_path / "log")
    try:
        assert wait_until_ready(mark.exists, process, "the toy", log=tmp_path / "log").wall_s >= 5
    finally:
        process.kill()
        process.wait()


def test_a_command_runs_to_its_end_with_no_wall_clock_limit() -> None:
    done = run([sys.executable, "-c", "import sys, time\ntime.sleep(1.5)\nprint('out')\nprint('err', file=sys.stderr)\n"
                "sys.exit(4)"], what="the toy command")
    assert (done.returncode, done.stdout, done.stderr) == (4, "out\n", "err\n")


def test_a_command_that_spins_is_killed_on_its_cpu_budget_with_what_it_printed() -> None:
    with pytest.raises(NotReady, match=r"(?s)the toy command used its budget of 0\.3 CPU-seconds.*started spinning"):
        run([sys.executable, "-c", "print('started spinning', flush=True)\nwhile True: pass"], what="the toy command",
            cpu_budget_s=0.3)
