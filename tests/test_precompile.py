"""scripts/precompile.py writes the rewritten test modules that pytest's own import hook reads back: if a pytest
upgrade changed its cache's names or layout, the workers would silently compile for themselves again."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test

from tests.paths import ROOT


def _precompile() -> ModuleType:
    spec = importlib.util.spec_from_file_location("precompile", ROOT / "scripts" / "precompile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_rewritten_module_is_the_one_pytest_reads_back(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    tests = tmp_path / "tests"
    (tests / "deeper").mkdir(parents=True)
    source = tests / "deeper" / "test_sample.py"
    source.write_text("def test_it():\n    x = [1, 2]\n    assert x == [1, 3], 'differs'\n", encoding="utf-8")
    (tests / "helper.py").write_text("VALUE = 1\n", encoding="utf-8")  # not a test module: not rewritten

    precompile = _precompile()
    assert precompile.rewrite_tests(tests) == 1
    assert precompile.rewrite_tests(tests) == 0  # up to date: left alone

    pyc = source.parent / "__pycache__" / (source.name[:-3] + PYC_TAIL)
    code = _read_pyc(source, pyc)
    assert code is not None, f"pytest does not read back {pyc.name}"
    assert code == _rewrite_test(source, pytestconfig)[1]  # the same code object pytest would have made
