"""`factdebate serve` as an operator starts it: a real process, a real port, the page and the API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.readiness import wait_until_ready
from tests.server.conftest import free_port

EXE = str(Path(sys.executable).with_name("factdebate"))


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "FACTDEBATE_API_KEYS"}
    return {**env, "FACTDEBATE_DATA_DIR": str(tmp_path), "FACTDEBATE_LLM": "scripted:agree", **extra}


def _wait_until_up(url: str, process: subprocess.Popen[str]) -> None:
    """Waits for the health answer by the server's state and its own CPU, not a clock (30 s, then 120 s, were
    passed by starts at load 12-32 on 2 cores); its output is read once it has ended."""
    def healthy() -> bool:
        try:
            return httpx.get(url + "/v1/health", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    wait_until_ready(healthy, process, "factdebate serve", every_s=0.1,
                     log=lambda: process.stdout.read() if process.stdout and process.poll() is not None else "")


def _serve_in_process(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``factdebate serve`` run as the console script runs it, in this process: a refusal comes before the
    service is built, so nothing starts (a subprocess spent most of its seconds importing the package)."""
    from factdebate.cli.main import run as cli

    monkeypatch.delenv("FACTDEBATE_API_KEYS", raising=False)
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree")
    code = cli(["serve", *args])
    return code, capsys.readouterr().err


def test_serve_refuses_to_start_without_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _serve_in_process([], tmp_path, monkeypatch, capsys)
    assert code != 0 and "FACTDEBATE_API_KEYS" in err
    assert "Traceback" not in err


def test_serve_refuses_no_auth_off_loopback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _serve_in_process(["--no-auth", "--host", "0.0.0.0"], tmp_path, monkeypatch, capsys)
    assert code != 0 and "loopback" in err


def test_serve_runs_with_keys_from_the_environment(tmp_path: Path) -> None:
    port = free_port()
    settings = tmp_path / "settings.yaml"
    settings.write_text("methods:\n  tool-mad:\n    agents: [none, none]\n    scoring: false\nllm:\n  cache: false\n")
    env = _env(tmp_path, FACTDEBATE_API_KEYS="alpha-secret-0001,beta-secret-00002")
    process = subprocess.Popen([EXE, "serve", "--port", str(port), "--config", str(settings)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_until_up(url, process)
        assert httpx.get(url + "/").status_code == 200
        assert httpx.post(url + "/v1/verify", json={"claim": "a b"}).status_code == 401
        verdict = httpx.post(url + "/v1/verify", json={"claim": "Water is wet."},
                             headers={"Authorization": "Bearer beta-secret-00002"}, timeout=30).json()
        assert verdict["label"] == "SUPPORTS" and verdict["decided_by"] == "consensus"
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert "secret" not in output  # keys never reach the log
    assert "127.0.0.1" in output  # bound to loopback by default


def test_serve_takes_the_verification_flags_of_verify(tmp_path: Path) -> None:
    """`serve --llm … --agents …` sets the server's defaults, as `verify` takes them (no usage error)."""
    port = free_port()
    env = {k: v for k, v in _env(tmp_path).items() if k != "FACTDEBATE_LLM"}
    process = subprocess.Popen([EXE, "serve", "--no-auth", "--port", str(port), "--llm", "scripted:disagree",
                                "--agents", "none,none", "--no-scoring", "--rounds", "1", "--no-cache"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_until_up(url, process)
        verdict = httpx.post(url + "/v1/verify", json={"claim": "Water is wet."}, timeout=30).json()
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert "Traceback" not in output
    assert verdict["config"]["llm"]["debater"] == "scripted:disagree"
    turns = verdict["rounds"][0]["turns"]
    assert [t["tool"] for t in turns] == ["none", "none"] and len(verdict["rounds"]) == 1
