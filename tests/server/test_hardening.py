"""Hostile input and leaks on the API: unencodable text, credentials in endpoint URLs, headers, huge ids,
key guessing, and the same rules for `factdebate serve`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.cli.main import run
from factdebate.util.scrub import redact_text
from tests.server.conftest import AUTH, PLAIN, AppFactory, closed_port, parse_sse

SURROGATE_JSON = '{"claim": "Paris \\ud800 x"}'  # valid JSON holding a lone surrogate


def test_unencodable_claims_get_a_json_422_not_a_500(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        one = client.post("/v1/verify", content=SURROGATE_JSON, headers={**AUTH, "Content-Type": "application/json"})
        batch = client.post("/v1/batches", content='"fine"\n' + SURROGATE_JSON, headers=AUTH)
    assert one.status_code == 422 and "not valid text" in one.json()["detail"]
    assert batch.status_code == 422 and "line 2" in batch.json()["detail"]


@pytest.fixture
def leaky_endpoint(monkeypatch: pytest.MonkeyPatch) -> str:
    """An OpenAI-compatible endpoint with credentials in its URL, on a port nobody listens to."""
    url = f"http://alice:hunter2@127.0.0.1:{closed_port()}/v1?api_key=sekret"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("FACTDEBATE_LLM__RETRIES", "1")
    return url


def assert_no_secret(text: str) -> None:
    assert "hunter2" not in text and "alice" not in text and "sekret" not in text, text


def test_endpoint_credentials_reach_no_api_caller(make_app: AppFactory, leaky_endpoint: str,
                                                  wait_for: Callable[..., None],
                                                  caplog: pytest.LogCaptureFixture) -> None:
    defaults = {**PLAIN, "llm": "openai:x"}
    with TestClient(make_app(defaults=defaults)) as client:
        plain = client.post("/v1/verify", json={"claim": "a b"}, headers=AUTH)
        with client.stream("POST", "/v1/verify/stream", json={"claim": "a b"}, headers=AUTH) as r:
            events = parse_sse("".join(r.iter_text()))
        batch = client.post("/v1/batches", content='"a b"', headers=AUTH).json()
        wait_for(lambda: client.get(f"/v1/batches/{batch['id']}", headers=AUTH).json()["status"] == "done")
        records = client.get(f"/v1/batches/{batch['id']}", headers=AUTH).json()["results"]
    # Where the model server is, is the operator's to know: the caller reads that it failed.
    assert plain.status_code == 502 and "the operator's endpoint" in plain.json()["detail"]
    assert "127.0.0.1" not in plain.text + json.dumps(events) + json.dumps(records)
    assert_no_secret(plain.text)
    assert events[-1][0] == "error"
    assert_no_secret(json.dumps(events))
    assert records[0]["error"]
    assert_no_secret(json.dumps(records))
    assert_no_secret(caplog.text)


def test_redaction_covers_userinfo_and_secret_query_parameters() -> None:
    text = redact_text("failed: https://u:p@milvus:19530/x?token=abc&db=main and http://h/v1?api-key=zz")
    assert text == "failed: https://***@milvus:19530/x?token=***&db=main and http://h/v1?api-key=***"


def test_log_records_are_redacted(make_app: AppFactory, caplog: pytest.LogCaptureFixture) -> None:
    make_app()
    with caplog.at_level(logging.INFO, logger="factdebate.server"):
        logging.getLogger("factdebate.server").info("calling %s", "http://bob:pw123@host/v1")
    assert "pw123" not in caplog.text and "***@host" in caplog.text


def test_api_responses_carry_no_sniff_and_no_store(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        for response in (client.get("/v1/health"), client.post("/v1/verify", json={"claim": "a b"}, headers=AUTH),
                         client.get("/v1/methods")):
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["cache-control"] == "no-store"


def test_a_404_does_not_echo_a_huge_id(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        response = client.get("/v1/batches/" + "a" * 60_000, headers=AUTH)
    assert response.status_code == 404 and len(response.text) < 300


def test_failed_authentication_is_rate_limited(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=0)) as client:
        codes = [client.get("/v1/methods", headers={"Authorization": f"Bearer guess-{i}"}).status_code
                 for i in range(15)]
        good = client.get("/v1/methods", headers=AUTH)
    assert codes[:10] == [401] * 10 and set(codes[10:]) == {429}
    assert good.status_code == 200  # the right key is not locked out by the guesses


def test_serve_hides_the_server_header(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    import uvicorn

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: seen.update(kwargs))
    monkeypatch.setenv("FACTDEBATE_API_KEYS", "k-0123456789abcdef")
    monkeypatch.setenv("FACTDEBATE_METHODS__TOOL_MAD__AGENTS", "[none, none]")  # no builtin index to build at start-up
    assert run(["serve", "--db", str(tmp_path / "db.sqlite")]) == 0
    assert seen["server_header"] is False


def test_a_record_nested_900_levels_is_a_422_on_upgrade(make_app: AppFactory) -> None:
    """An old verdict nested 900 levels deep was a 500 (RecursionError while copying it)."""
    nested: Any = "deep"
    for _ in range(898):
        nested = [nested]
    old = {"claim": "c", "method": "cot", "label": "SUPPORTS", "rounds": [{"turns": [{"response": nested}]}]}
    with TestClient(make_app()) as client:
        answers = [client.post("/v1/verdicts/upgrade", json={"records": [{"claim": "fine"}, record]}, headers=AUTH)
                   for record in (old, {**old, "schema_version": 2})]
    for answer in answers:
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"].startswith("records.1: the record nests lists or objects more than 64 levels")


@pytest.mark.parametrize("record", [
    {"claim": "c", "method": "cot", "schema_version": "two"},
    {"claim": "c", "method": "cot", "rounds": "not a list of rounds"},
    {"claim": "c", "method": "cot", "rounds": [{"turns": ["a string, not a turn"]}]},
    {"claim": "c", "method": "mad", "rounds": [7]},
])
def test_a_record_of_the_wrong_shape_is_a_422_on_upgrade(make_app: AppFactory, record: dict[str, Any]) -> None:
    """A field of the wrong shape at a normal depth was a 500 too (found beside issue 35, item 4)."""
    with TestClient(make_app()) as client:
        answer = client.post("/v1/verdicts/upgrade", json={"records": [record]}, headers=AUTH)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"].startswith("records.0: the record is not a verdict factdebate wrote"), answer.text
