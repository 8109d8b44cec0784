"""Operator secrets in the settings (an MCP server's ``env`` and its command-line ``args``) reach no caller:
not an HTTP answer, an SSE stream, a batch's results, nor the CLI's verdict, results file or trace."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from factdebate.cli.main import run
from tests.cli.test_exits import NO_TOOLS
from tests.server.conftest import AUTH, AppFactory

ENV_SECRET = "ghp_envSecretValue123"
ARG_SECRET = "argSecretValue456"
FLAG_SECRET = "flagSecretValue789"
SECRETS = (ENV_SECRET, ARG_SECRET, FLAG_SECRET)


@pytest.fixture
def secret_config(tmp_path: Path) -> Path:
    """Verification settings naming an MCP server the way operators do: a token in its environment, a key
    in its arguments (``--api-key=...`` and ``--token ...``)."""
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump({"mcp_servers": {"github": {
        "command": "github-mcp", "args": ["--port", "8080", f"--api-key={ARG_SECRET}", "--token", FLAG_SECRET],
        "env": {"GITHUB_TOKEN": ENV_SECRET}}}}), encoding="utf-8")
    return path


def assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked: {text[:2000]}"


def test_no_route_returns_operator_secrets(make_app: AppFactory, secret_config: Path,
                                           wait_for: Callable[..., None]) -> None:
    with TestClient(make_app(config_file=secret_config)) as client:
        answers = [client.post("/v1/verify", json={"claim": "Paris is in France."}, headers=AUTH),
                   client.post("/v1/verify/stream", json={"claim": "Paris is in France."}, headers=AUTH),
                   client.post("/v1/check-response", json={"response": "Paris is in France.", "method": "single"},
                               headers=AUTH),
                   client.post("/v1/check-response/stream", json={"response": "Paris is in France."},
                               headers=AUTH)]
        batch = client.post("/v1/batches", content='"Paris is in France."', headers=AUTH).json()
        wait_for(lambda: client.get(f"/v1/batches/{batch['id']}", headers=AUTH).json()["status"] == "done")
        answers += [client.get(f"/v1/batches/{batch['id']}", headers=AUTH),
                    client.get(f"/v1/batches/{batch['id']}/results", headers=AUTH),
                    client.get("/v1/methods", headers=AUTH)]
    for answer in answers:
        assert answer.status_code == 200, answer.text
        assert_no_secret(answer.text)
    verdict = answers[0].json()
    # Operator-only settings are not in the caller's view at all; what a caller may choose is.
    assert "mcp_servers" not in verdict["config"] and "temperature" not in verdict["config"].get("llm", {})
    assert verdict["config"]["method"] == "tool-mad" and "rounds" in verdict["config"]["methods"]["tool-mad"]


def test_cli_verdict_results_file_and_trace_mask_secrets(tmp_path: Path, secret_config: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "trace.jsonl"
    code = run(["verify", "Paris is in France.", "--json", "--config", str(secret_config), "--trace", str(trace),
                "--no-scoring", *NO_TOOLS])
    shown = capsys.readouterr().out
    assert code == 0
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"claim": "Rome is in Italy."}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert run(["verify", "--input", str(claims), "--output", str(out), "--config", str(secret_config),
                "--no-scoring", *NO_TOOLS]) == 0
    capsys.readouterr()
    for text in (shown, trace.read_text(encoding="utf-8"), out.read_text(encoding="utf-8")):
        assert_no_secret(text)
    server = json.loads(shown)["config"]["mcp_servers"]["github"]
    # The CLI's own record keeps the settings for reproduction, with the secret values masked.
    assert server["env"] == {"GITHUB_TOKEN": "***"}
    assert server["args"] == ["--port", "8080", "--api-key=***", "--token", "***"]


@pytest.mark.parametrize(("args", "shown"), [
    (["--api-key=sk-1", "-v"], ["--api-key=***", "-v"]),
    (["--token", "t", "--port", "1"], ["--token", "***", "--port", "1"]),
    (["OPENAI_API_KEY=sk-2", "PATH=/bin"], ["OPENAI_API_KEY=***", "PATH=/bin"]),
    (["--password", "pw", "x"], ["--password", "***", "x"]),
    (["serve", "sk-proj-abcdefghijklmnop"], ["serve", "***"]),
    (["--url", "https://u:p@h/x"], ["--url", "https://***@h/x"]),
])
def test_secret_looking_arguments_are_masked(args: list[str], shown: list[str]) -> None:
    from factdebate.util.scrub import redact_args

    assert redact_args(args) == shown


def test_a_results_file_from_before_masking_still_resumes(tmp_path: Path, secret_config: Path) -> None:
    """Records written before secrets were masked hold them in the clear: resuming compares the masked
    forms, so the run goes on and no message repeats the secret."""
    from factdebate.run.batch import check_batch_resume
    from factdebate.settings.load import load_settings

    settings = load_settings(secret_config, environ={})
    out = tmp_path / "old.jsonl"
    record = {"id": "1", "claim": "c", "label": "SUPPORTS", "config": settings.model_dump(mode="json")}
    out.write_text(json.dumps(record) + "\n", encoding="utf-8")
    check_batch_resume(out, settings)  # no "other settings" refusal
