"""The benchmark scripts stay runnable as the library changes: each imports (a library module renamed or moved
breaks a benchmark where no other test would see it), answers ``--help`` where the docs give its command, and
every script the README and the docs cite exists."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(path.stem for path in (ROOT / "benchmarks").glob("*.py") if path.stem != "__init__")
CITED = re.compile(r"benchmarks/(\w+)\.py")


def _cited() -> set[str]:
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    return {name for page in pages for name in CITED.findall(page.read_text(encoding="utf-8"))}


def test_every_script_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    for name in SCRIPTS:
        importlib.import_module(f"benchmarks.{name}")


def test_every_script_the_docs_cite_exists() -> None:
    cited = _cited()
    assert cited, "the docs cite no benchmark: the pattern no longer matches how they name one"
    assert cited - set(SCRIPTS) == set()


def test_the_load_benchmark_answers_its_help_with_the_options_the_docs_use() -> None:
    """benchmarks/guard_load.py is the one the service's sizing and shedding figures come from."""
    shown = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "guard_load.py"), "--help"], cwd=ROOT,
                           capture_output=True, text=True, check=True, timeout=120).stdout
    for option in ("--guard-cores", "--first", "--seconds", "--alone-seconds", "--max-cpu-share", "--variant",
                   "--workers", "--record", "--settle", "--curve", "--plot"):
        assert option in shown, option


def test_every_script_that_runs_answers_help_before_it_starts_work() -> None:
    """A script run as a command parses its arguments first, so ``--help`` prints its usage instead of starting
    a measurement that can take twenty minutes; read from the source, since running each would start its work."""
    scripts = [*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "benchmarks" / "decisions").glob("*.py")]
    runnable = [path for path in scripts if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8")]
    assert len(runnable) > 20, "the scripts' main blocks are no longer found"
    silent = [path.relative_to(ROOT).as_posix() for path in runnable
              if "ArgumentParser(" not in path.read_text(encoding="utf-8")]
    assert silent == []
