"""The service calls the model server its settings name, as the command line does: with ``llm.base_urls`` set, a
claim checked through ``POST /v1/verify`` reaches the first of them, not ``OPENAI_BASE_URL``, and gets the verdict
``factdebate verify`` gets with the same settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from tests.cli.test_main import run_here
from tests.fake_openai import FakeOpenAI
from tests.server.conftest import AUTH, AppFactory

CLAIM = "The Eiffel Tower is in Paris."


def test_a_claim_reaches_the_model_server_the_settings_name(make_app: AppFactory, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="SUPPORTS") as named, FakeOpenAI(reply="REFUTES") as elsewhere:
        monkeypatch.setenv("OPENAI_BASE_URL", elsewhere.base_url)
        config = tmp_path / "settings.yaml"
        config.write_text(yaml.safe_dump({"llm": {"debater": "openai:m", "base_urls": [named.base_url]}}),
                          encoding="utf-8")
        # build=None: the service's own build of a run (scale/resource_pool.py), not a test's
        client = TestClient(make_app(config_file=config, defaults={"cache": False}, build=None))
        answer = client.post("/v1/verify", json={"claim": CLAIM, "method": "single"}, headers=AUTH)
        served = len(named.requests)
        cli = run_here("verify", CLAIM, "--config", str(config), "--method", "single", "--no-cache", "--json")
        assert not elsewhere.requests
    assert answer.status_code == 200, answer.text
    assert cli.returncode == 0, cli.stderr
    on_service, on_cli = answer.json(), json.loads(cli.stdout)
    assert served == on_service["usage"]["llm_calls"] == 1
    assert (on_service["label"], on_service["decided_by"]) == (on_cli["label"], on_cli["decided_by"]) == (
        "SUPPORTS", "single")
