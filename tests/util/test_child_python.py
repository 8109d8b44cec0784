"""A child Python started through util/child_python.py imports nothing from the current folder, and keeps what
``-I`` would have taken from it (``PYTHONPATH``, the variables our tool servers read). The end-to-end check,
every face run from such a folder, is tests/test_current_folder.py."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from factdebate.util.child_python import (
    SAFE_PATH_VARIABLE,
    protect_spawned_children,
    python_command,
    python_env,
    python_path,
    ray_runtime_env,
)

WHICH = "import factdebate, os; print(factdebate.__file__); print(os.environ.get('FACTDEBATE_PROBE', ''))"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder holding a package named like ours (a cloned repository, a downloaded dataset)."""
    (tmp_path / "factdebate").mkdir()
    (tmp_path / "factdebate" / "__init__.py").write_text("open('RAN', 'w').close()\n", encoding="utf-8")
    return tmp_path


def test_a_plain_python_minus_c_would_import_the_folders_package(folder: Path) -> None:
    """What the helper guards against, shown: ``python -c`` (and ``-m``) put the current folder first."""
    subprocess.run([sys.executable, "-c", "import factdebate"], cwd=folder, check=True)
    assert (folder / "RAN").exists()


def test_the_helpers_child_imports_ours_and_keeps_our_variables(folder: Path) -> None:
    env = python_env({**os.environ, "FACTDEBATE_PROBE": "kept"})
    done = subprocess.run(python_command("-c", WHICH), cwd=folder, env=env, capture_output=True, text=True,
                          check=True)
    where, probe = done.stdout.splitlines()
    assert Path(where).parent.parent != folder and not (folder / "RAN").exists()
    assert probe == "kept"


def test_python_path_drops_what_names_the_current_folder(tmp_path: Path) -> None:
    joined = os.pathsep.join(["", "/abs/one", "rel", " ", "/abs/one"])
    assert python_path(joined, str(tmp_path)).split(os.pathsep) == ["/abs/one", str(tmp_path / "rel")]
    env = python_env({"PYTHONPATH": os.pathsep, "HOME": "/h"})
    assert env == {"HOME": "/h", SAFE_PATH_VARIABLE: "1"}


def test_spawned_processes_inherit_the_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's workers under ``serve --workers N`` are multiprocessing's spawn: ``python -c`` with our
    environment, which imports multiprocessing itself before anything else."""
    (tmp_path / "multiprocessing").mkdir()
    (tmp_path / "multiprocessing" / "__init__.py").write_text("open('RAN', 'w').close()\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(SAFE_PATH_VARIABLE, "")  # restored after the test, whatever protect_... sets
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    protect_spawned_children()
    child = multiprocessing.get_context("spawn").Process(target=os.getpid)
    child.start()
    child.join(60)
    assert child.exitcode == 0 and not (tmp_path / "RAN").exists()


def test_a_ray_job_gets_an_empty_folder_of_its_own() -> None:
    folder = Path(ray_runtime_env()["working_dir"])
    assert folder.is_dir() and not any(folder.iterdir()) and folder != Path.cwd()
    assert ray_runtime_env() == {"working_dir": str(folder)}  # one per process
