"""The gateways' lock files (requirements/gateways/NAME.txt, from NAME.in by scripts/lock-gateways.sh) and the
check that a gateway's environment (.venv-NAME, built by scripts/setup-gateways.sh) holds its lock and nothing
else (scripts/check_env.py --alone)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.paths import ROOT
from tests.test_lock import check_env

GATEWAYS = Path(__file__).resolve().parent.parent / "requirements" / "gateways"


@pytest.mark.parametrize("name", ["litellm", "nemo"])
def test_each_gateway_lock_pins_its_input_with_hashes(name: str) -> None:
    module = check_env()
    entries = module.entries(GATEWAYS / f"{name}.txt")
    assert entries and [n for n, _, entry in entries if "--hash=sha256:" not in entry] == []
    wanted = re.findall(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==(\S+)$", (GATEWAYS / f"{name}.in").read_text(), re.M)
    pins = module.pins(GATEWAYS / f"{name}.txt")
    assert wanted and all(pins[module.canonical(n)] == version for n, version in wanted), "run scripts/lock-gateways.sh"
    assert "factdebate" not in pins  # a gateway reaches the guard over HTTP, never by importing it


def test_alone_wants_the_lock_and_nothing_else(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    module = check_env()
    lock = tmp_path / "gate.txt"
    lock.write_text("litellm==1.0 \\\n    --hash=sha256:00\nhttpx==0.28 \\\n    --hash=sha256:01\n", encoding="utf-8")
    have: dict[str, Any] = {"litellm": SimpleNamespace(version="1.0"), "httpx": SimpleNamespace(version="0.28"),
                            "pip": SimpleNamespace(version="24"), "setuptools": SimpleNamespace(version="65")}
    monkeypatch.setattr(module, "installed", lambda: have)
    assert module.main([str(lock), "--alone"]) == 0  # no factdebate, no data packages: not asked for
    have["httpx"] = SimpleNamespace(version="0.27")
    have["numpy"] = SimpleNamespace(version="2.0")
    assert module.main([str(lock), "--alone"]) == 1
    message = capsys.readouterr().err
    assert "httpx: 0.27 installed, the lock has 0.28" in message and "numpy: 2.0 installed, not in the lock" in message
    module.main([str(lock), "--alone", "--extraneous"])
    assert capsys.readouterr().out.split() == ["numpy"]


def test_setup_says_each_gateway_that_is_up_to_date_and_where(tmp_path: Path) -> None:
    """A run that installs nothing names each gateway environment it checked and where it is, rather than
    printing nothing. The script and its check run from a copy whose one lock is empty, in an environment
    made without pip, so nothing is fetched."""
    (tmp_path / "scripts").mkdir()
    for script in ("setup-gateways.sh", "uv-tool.sh", "check_env.py"):
        shutil.copy2(ROOT / "scripts" / script, tmp_path / "scripts" / script)
    (tmp_path / "requirements" / "gateways").mkdir(parents=True)
    (tmp_path / "requirements" / "gateways" / "gate.txt").write_text("# nothing locked\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / ".venv-gate")], check=True)
    done = subprocess.run(["bash", str(tmp_path / "scripts" / "setup-gateways.sh")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    where = tmp_path.resolve() / ".venv-gate"
    assert done.stdout == f"gate: up to date in {where} (it holds requirements/gateways/gate.txt)\n"


def _python_without_pip(folder: Path) -> str:
    """An interpreter for the script whose ``-m venv`` makes an environment without pip: the lock is empty, and
    pip's own install into each new environment took most of these tests' seconds."""
    wrapper = folder / "python-without-pip"
    wrapper.write_text(f'#!/bin/sh\nif [ "$1" = -m ] && [ "$2" = venv ]; then shift 2; '
                       f'exec {sys.executable} -m venv --without-pip "$@"; fi\nexec {sys.executable} "$@"\n',
                       encoding="utf-8")
    wrapper.chmod(0o755)
    return str(wrapper)


def _clone_with_an_empty_lock(folder: Path) -> Path:
    (folder / "scripts").mkdir(parents=True)
    for script in ("setup-gateways.sh", "uv-tool.sh", "check_env.py"):
        shutil.copy2(ROOT / "scripts" / script, folder / "scripts" / script)
    (folder / "requirements" / "gateways").mkdir(parents=True)
    (folder / "requirements" / "gateways" / "gate.txt").write_text("# nothing locked\n", encoding="utf-8")
    return folder


def test_a_gateway_environment_is_built_once_per_machine_and_each_clone_links_to_it(tmp_path: Path) -> None:
    """Two clones on one machine: the first builds the environment in the machine's folder and links
    ``.venv-gate`` to it; the second finds it built, says so, and links to the same folder."""
    env = {**os.environ, "FACTDEBATE_GATEWAYS_DIR": str(tmp_path / "machine"), "PYTHON": _python_without_pip(tmp_path)}
    said = []
    for clone in ("one", "two"):
        folder = _clone_with_an_empty_lock(tmp_path / clone)
        done = subprocess.run(["bash", str(folder / "scripts" / "setup-gateways.sh")], capture_output=True,
                              text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        link = folder / ".venv-gate"
        assert link.is_symlink() and (link / "bin" / "python").exists()
        said.append((done.stdout, link.resolve()))
    [built] = {where for _, where in said}  # both clones link to the one folder
    assert built.parent == (tmp_path / "machine").resolve() and built.name.startswith("gate-")
    target = os.readlink(tmp_path / "two" / ".venv-gate")
    assert said[1][0] == f"gate: up to date in {target} (it holds requirements/gateways/gate.txt)\n"


def test_a_machine_folder_that_cannot_be_written_builds_the_environment_in_the_clone(tmp_path: Path) -> None:
    folder = _clone_with_an_empty_lock(tmp_path / "clone")
    env = {**os.environ, "FACTDEBATE_GATEWAYS_DIR": "/proc/factdebate-gateways",
           "PYTHON": _python_without_pip(tmp_path)}
    done = subprocess.run(["bash", str(folder / "scripts" / "setup-gateways.sh")], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert "/proc/factdebate-gateways cannot be written" in done.stderr
    assert (folder / ".venv-gate").resolve().parent == (folder / ".venv-gateways").resolve()
