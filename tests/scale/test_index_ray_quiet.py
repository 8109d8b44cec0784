"""An index build on Ray that stops on a bad line says so in its one line, with no line of Ray's before it
: Ray's token-authentication note, a deprecation warning and a C++ log line used to come
first. Run as a user runs it, in a process of its own that starts its own Ray (what Ray writes below Python
reaches the terminal only there), so this module leaves the in-process Ray of the other scale tests alone."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_eval import EXE


def test_a_failed_ray_build_prints_only_its_own_lines(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "title": "A", "text": "one"}\n{"id": "b", "title": \n', encoding="utf-8")
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([EXE, "index", str(bad), "--corpus", "quiet", "--engines", "local", "--executor", "ray",
                           "--workers", "1"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=240)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    assert lines[-1] == f"error: {bad}:2: invalid JSON (Expecting value)", done.stderr
    assert all(line.startswith("quiet: ") for line in lines[:-1]), done.stderr  # the build's own progress only
    native = list((tmp_path / "data" / "index-runs").glob("*.ray.log"))
    assert len(native) == 1  # where Ray's lines went
