"""What a caller's bad options and a weak key configuration get: a 422 that names the field and the rule but
never quotes the operator's settings, and a ``serve`` that will not start on a key a caller could guess."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.cli.main import run
from tests.server.conftest import AUTH, PLAIN, AppFactory

OPERATOR_ONLY = "/srv/operator-only/evidence.sqlite"


def test_a_section_wide_check_names_the_rule_and_quotes_nothing(make_app: AppFactory) -> None:
    app = make_app(defaults={**PLAIN, "mermaid_memory_path": OPERATOR_ONLY, "dpd_max_rounds": 2})
    with TestClient(app) as client:
        answer = client.post("/v1/verify", headers=AUTH, json={"claim": "Water is wet.", "method": "dpd",
                                                                "dpd_min_rounds": 3})
    assert answer.status_code == 422
    text = answer.text
    assert "min_rounds (3) exceeds max_rounds (2)" in text
    # pydantic's own text repeats the section the check failed on: {'cot': {}, 'dpd': {...}, ...}
    assert "input_value" not in text and "{'" not in text and "operator-only" not in text
    assert "errors.pydantic.dev" not in text and "\\n" not in text


def test_serve_refuses_a_short_key_in_one_line_without_showing_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    started: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: started.append(args))
    monkeypatch.setenv("FACTDEBATE_API_KEYS", "a-long-enough-key-0123,Zq9")
    monkeypatch.setenv("FACTDEBATE_METHODS__TOOL_MAD__AGENTS", "[none, none]")
    assert run(["serve", "--db", str(tmp_path / "db.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 API key(s) are shorter than 16 characters" in err, err
    assert "Zq9" not in err and "a-long-enough" not in err and started == []
    monkeypatch.setenv("FACTDEBATE_API_KEYS", "a-long-enough-key-0123")
    assert run(["serve", "--db", str(tmp_path / "db.sqlite")]) == 0 and len(started) == 1


def test_a_data_folder_the_service_cannot_use_is_the_operators_not_the_callers(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from factdebate.server.routes import verify
    from factdebate.util.paths import DataDirError

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise DataDirError("the data folder /srv/operator-only/data is not writable: set FACTDEBATE_DATA_DIR")

    monkeypatch.setattr(verify, "run_claim", broken)
    with TestClient(make_app(defaults=PLAIN)) as client:
        plain = client.post("/v1/verify", headers=AUTH, json={"claim": "Water is wet."})
        streamed = client.post("/v1/verify/stream", headers=AUTH, json={"claim": "Water is wet."})
    assert plain.status_code == 500
    assert plain.json()["detail"] == ("the service's data folder cannot be used; its operator finds why in the "
                                      "server's log")
    assert "event: error" in streamed.text and "data folder cannot be used" in streamed.text
    assert "operator-only" not in plain.text + streamed.text and "FACTDEBATE_DATA_DIR" not in plain.text
    assert "operator-only" in caplog.text  # the operator's log keeps the path
