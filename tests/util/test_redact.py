"""Credentials in endpoint URLs never reach output: verdict config, records, error messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.cli.main import run
from factdebate.core.errors import EndpointUnavailableError
from factdebate.corpus.milvus import milvus_errors
from factdebate.util.errors import FactDebateError
from tests.cli.test_exits import NO_TOOLS, call

MILVUS = "http://alice:hunter2@127.0.0.1:9/db?token=sekret"


def test_verdict_config_and_batch_records_mask_the_milvus_uri(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["verify", "Paris is in France.", "--json", "--milvus-uri", MILVUS, *NO_TOOLS])
    verdict = json.loads(capsys.readouterr().out)
    assert code == 0 and verdict["config"]["retrieval"]["milvus_uri"] == "http://***@127.0.0.1:9/db?token=***"
    claims = tmp_path / "c.jsonl"
    claims.write_text('{"claim": "Rome is in Italy."}\n', encoding="utf-8")
    out = tmp_path / "o.jsonl"
    assert call(capsys, "verify", "--input", str(claims), "--output", str(out), "--milvus-uri", MILVUS,
                *NO_TOOLS)[0] == 0
    assert "hunter2" not in out.read_text() and "sekret" not in out.read_text()


def test_error_messages_mask_credentials_whatever_raised_them() -> None:
    with pytest.raises(FactDebateError) as info, milvus_errors(MILVUS, "opening"):
        raise RuntimeError(f"connect to {MILVUS} refused")
    assert "hunter2" not in str(info.value) and "sekret" not in str(info.value) and "127.0.0.1:9" in str(info.value)
    error = EndpointUnavailableError("https://bob:pw@llm.example/v1", 3, "HTTP 503")
    assert "pw@" not in str(error) and error.url == "https://***@llm.example/v1"
