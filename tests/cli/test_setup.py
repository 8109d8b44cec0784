"""`factdebate setup` and what points to it: doctor's hints for a missing data package, and the line after a
verdict that the embedded model decided. The install into a new environment is tests/install/."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from rich.console import Console

from factdebate.cli import doctor
from factdebate.cli.render import embedded_model_note, print_embedded_note
from factdebate.cli.setup import pip_command
from factdebate.hub import data_packages
from factdebate.hub.data_packages import PACKAGES, DataPackage
from factdebate.settings.load import load_settings
from tests.cli.test_main import run
from tests.paths import ROOT

needs_packages = pytest.mark.skipif(not all(p.is_current() for p in PACKAGES),
                                    reason="the pinned data packages are not installed (run `factdebate setup`)")


@needs_packages
def test_setup_with_everything_installed_runs_no_pip_and_says_so() -> None:
    result = run("setup", "--no-index", "--no-model")
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


def test_the_note_is_printed_for_the_default_model_and_not_for_another(capsys: pytest.CaptureFixture[str]) -> None:
    print_embedded_note(load_settings(environ={}), Console(soft_wrap=True))  # every role on llama-cpp:builtin
    assert "near chance" in capsys.readouterr().out
    served = {"debater": "openai:gpt-4o-mini", "judge": "openai:gpt-4o-mini", "scorer": "openai:gpt-4o-mini"}
    print_embedded_note(load_settings(overrides={"llm": served}, environ={}), Console(soft_wrap=True))
    assert capsys.readouterr().out == ""


def test_verify_with_a_scripted_model_prints_no_note() -> None:
    result = run("verify", "Paris is the capital of France.", "--no-scoring", "--llm", "scripted:agree",
                 "--agents", "none,none", "--no-cache")
    assert result.returncode == 0, result.stderr
    assert "decided by" in result.stdout and "near chance" not in result.stdout + result.stderr


def test_setup_without_the_extras_ends_with_what_verify_still_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wheel without `[all]`; `setup --no-index` must not end "try factdebate verify"
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


def test_setup_asks_no_openai_package_for_a_served_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """An `openai:` model is called through factdebate's own HTTP client: without the OpenAI SDK installed,
    setup still ends "try factdebate verify"."""
    import importlib.util

    from factdebate.cli import setup as setup_module

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a))
    served = {"debater": "openai:gpt-4o-mini", "judge": "openai:gpt-4o-mini", "scorer": "openai:gpt-4o-mini"}
    missing = setup_module.missing_for_verify(load_settings(overrides={"llm": served}, environ={}))
    assert [module for module, _ in missing if module == "openai"] == []
    assert "openai" not in setup_module.closing_line(missing)


def test_setup_rebuilds_a_llama_cpp_compiled_for_this_cpu_only_with_the_setup_scripts_flags(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The wheel's `[all]` compiles llama-cpp-python with -march=native. `factdebate setup`
    says so and compiles the pinned sdist again with the portable flags (pip itself is not run here: the
    compile takes minutes; its command line and environment are what is checked)."""
    import subprocess

    from factdebate.cli import setup as setup_module
    from factdebate.llm import llama_build

    builds = iter([llama_build.Build("native", "AVX512, AVX_VNNI"), llama_build.Build("portable")])
    monkeypatch.setattr(llama_build, "installed_build", lambda: next(builds))
    ran: list[tuple[list[str], dict[str, str], str]] = []

    def pip(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        requirements = Path(command[command.index("-r") + 1]).read_text(encoding="utf-8")
        ran.append((command, dict(kwargs["env"]), requirements))  # type: ignore[call-overload]
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(setup_module.subprocess, "run", pip)
    setup_module.rebuild_llama_portably(quiet=False)
    said = capsys.readouterr().err
    assert said.startswith("rebuilding llama-cpp-python==0.3.36 with portable CPU flags") and "AVX512" in said
    assert "--native-llama` keeps it" in said and "ok  llama-cpp-python==0.3.36: rebuilt" in said, said
    [(command, env, requirements)] = ran
    assert {"--no-binary", "--force-reinstall", "--no-cache-dir", "--require-hashes", "--no-deps"} <= set(command)
    assert command[command.index("--no-binary") + 1] == "llama-cpp-python"
    assert env["CMAKE_ARGS"] == f"{llama_build.PORTABLE_CMAKE_ARGS} {llama_build.lean_cmake_arg()}"
    assert requirements.strip() == f"llama-cpp-python==0.3.36 --hash=sha256:{llama_build.SDIST_SHA256}"


def test_the_rebuild_uses_the_setup_scripts_flags_and_the_locks_pin() -> None:
    from factdebate.llm import llama_build

    script = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert f'CMAKE_ARGS="{llama_build.PORTABLE_CMAKE_ARGS} $LEAN"' in script
    assert f"src/factdebate/llm/{llama_build.LEAN_HOOK}" in script
    # The hook is shipped with the package, and what it sets is llama.cpp's own option
    assert "set(LLAMA_BUILD_COMMON OFF" in (ROOT / "src/factdebate/llm" / llama_build.LEAN_HOOK).read_text()
    assert "llm/*.cmake" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    install_test = (ROOT / "tests" / "install" / "test_wheel_install.py").read_text(encoding="utf-8")
    assert f'PORTABLE = "{llama_build.PORTABLE_CMAKE_ARGS}"' in install_test
    lock = (ROOT / "requirements" / "all.txt").read_text(encoding="utf-8")
    assert f"{llama_build.DIST}=={llama_build.VERSION} \\\n    --hash=sha256:{llama_build.SDIST_SHA256}" in lock
    assert f'"llama-cpp-python=={llama_build.VERSION}"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_setup_scripts_build_is_told_portable_and_a_native_one_apart() -> None:
    import importlib.util
    import platform

    from factdebate.llm import llama_build

    native = ("CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX_VNNI = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
              "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 0 | LLAMAFILE = 1 | OPENMP = 1 |")
    assert llama_build.beyond_portable(native) == ["AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX_VNNI"]
    if importlib.util.find_spec("llama_cpp") is None or platform.machine() != "x86_64":
        pytest.skip("llama-cpp-python is not installed here, or this is not an x86-64 machine")
    assert llama_build.installed_build() == llama_build.Build("portable")  # the .venv's, built by setup
