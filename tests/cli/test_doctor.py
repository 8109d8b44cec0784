"""`factdebate doctor`'s report: one aligned line a check, and a missing default model as a failure to fix."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from factdebate.cli import doctor
from factdebate.llm import llama_cpp
from factdebate.settings.load import load_settings


def _plain(check: doctor.Check) -> str:
    out = io.StringIO()
    Console(file=out, width=300, color_system=None).print(check.line())
    return out.getvalue().rstrip("\n")


def test_the_status_column_lines_up_and_the_text_is_printed_as_written() -> None:
    lines = [_plain(doctor.Check("a", status, "pip install 'factdebate[local]'")) for status in ("ok", "warn", "fail")]
    assert [line.index("a:") for line in lines] == [6, 6, 6], lines
    assert [line[:4] for line in lines] == ["  ok", "warn", "FAIL"]
    assert all(line.endswith("'factdebate[local]'") for line in lines)  # not read as a markup tag


def test_a_missing_default_model_is_a_failure_that_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_cpp, "builtin_model_path", lambda: None)
    monkeypatch.setattr(doctor, "_index_checks", lambda settings: [])
    monkeypatch.setattr(doctor, "_state_checks", lambda: [])

    def model_check(settings: object) -> doctor.Check:
        return next(c for c in doctor.run_checks(settings) if c.name.startswith("built-in model"))  # type: ignore[arg-type]

    check = model_check(load_settings(environ={}))  # the default: every role on llama-cpp:builtin
    assert check.status == "fail" and "run `factdebate setup`" in check.detail
    served = load_settings(overrides={"llm": {"debater": "openai:gpt-4o-mini", "judge": "openai:gpt-4o-mini",
                                              "scorer": "openai:gpt-4o-mini"}}, environ={})
    assert model_check(served).status == "warn"  # not used: only worth knowing


def _served(base_url: str) -> object:
    return load_settings(overrides={"llm": {"debater": "openai:test-model", "judge": "openai:test-model",
                                            "scorer": "openai:test-model"}},
                         environ={"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-test"})


def _server_checks(settings: object, monkeypatch: pytest.MonkeyPatch) -> list[doctor.Check]:
    monkeypatch.setattr(doctor, "_index_checks", lambda settings: [])
    monkeypatch.setattr(doctor, "_state_checks", lambda: [])
    return [c for c in doctor.run_checks(settings) if c.name.startswith("model server")]  # type: ignore[arg-type]


def test_a_dead_model_server_is_a_failure_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    """Doctor said all ok (rc 0) with nothing listening at OPENAI_BASE_URL."""
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago, now closed: nothing answers there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    checks = _server_checks(_served(f"http://127.0.0.1:{port}/v1"), monkeypatch)
    assert [c.status for c in checks] == ["fail"], checks
    assert f"127.0.0.1:{port}" in checks[0].name and "Connection refused" in checks[0].detail
    assert "start the server, or point OPENAI_BASE_URL" in checks[0].detail


def test_a_model_server_that_answers_is_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        checks = _server_checks(_served(server.base_url), monkeypatch)
    assert [c.status for c in checks] == ["ok"], checks
    assert "answers" in checks[0].detail and "at once" not in checks[0].detail  # it said nothing of its slots


def test_doctor_asks_no_openai_package_for_a_served_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """An `openai:` model is called through factdebate's own HTTP client: doctor checks the server, not the SDK."""
    import importlib.util

    from tests.fake_openai import FakeOpenAI

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a))
    monkeypatch.setattr(doctor, "_index_checks", lambda settings: [])
    monkeypatch.setattr(doctor, "_state_checks", lambda: [])
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        checks = doctor.run_checks(_served(server.base_url))  # type: ignore[arg-type]
    lines = [_plain(check) for check in checks]
    assert [line for line in lines if "openai" in line.split(":")[0]] == [], lines
    assert [c.status for c in checks if c.name in {"OPENAI_BASE_URL", "OPENAI_API_KEY"}] == ["ok", "ok"]
    assert [c.status for c in checks if c.name.startswith("model server")] == ["ok"]


def test_doctor_says_how_many_requests_a_llama_server_is_sent_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.llm import in_flight
    from tests.fake_openai import FakeOpenAI

    monkeypatch.setattr(in_flight, "_learned", {})  # what a server said is kept per process, by its address
    with FakeOpenAI(owner="llamacpp", props={"total_slots": 2}) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        checks = _server_checks(_served(server.base_url), monkeypatch)
    assert [c.status for c in checks] == ["ok"], checks
    assert checks[0].detail.endswith("; sent 2 request(s) at once, as it said (its /props: total_slots 2)"), checks


@pytest.mark.parametrize(("build", "status", "words"), [
    ("native", "warn", "compiled for this CPU only (AVX512 on): copied to another CPU it may fail; "
                       "`factdebate setup` rebuilds it with portable flags"),
    ("portable", "ok", "portable CPU flags (x86-64 with AVX2)"),
])
def test_a_llama_cpp_built_for_this_cpu_only_is_a_warning_naming_setup(
        monkeypatch: pytest.MonkeyPatch, build: str, status: str, words: str) -> None:
    """Pip's own build of llama-cpp-python uses -march=native."""
    from factdebate.llm import llama_build

    monkeypatch.setattr(llama_build, "installed_build",
                        lambda: llama_build.Build(build, "AVX512" if build == "native" else ""))  # type: ignore[arg-type]
    monkeypatch.setattr(doctor, "_index_checks", lambda settings: [])
    [check] = [c for c in doctor.run_checks(load_settings()) if c.name == "llama-cpp-python build"]
    assert (check.status, check.detail) == (status, words)
