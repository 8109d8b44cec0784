"""The HTTP parts: strict JSON is checked on the value the routes will read (a UTF-16 body, a
byte-order mark or a second Content-Type no longer slips past it; NaN is still refused), ids are matched in full
(``/v1/checks/<id>%0A``), and a PostgreSQL state database that cannot be reached makes each route a 503 with a
reason and ``/v1/health`` name the part that is down, where every route answered 500 before."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from factdebate.server.state.check_store import CHECK_ID
from factdebate.server.state.db import DOWN_REASON
from tests.server.conftest import AUTH, PLAIN, AppFactory

CLAIM = '{"claim": "Water is wet."}'
WATER = {"claim": "Water is wet."}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def client(make_app: AppFactory) -> Iterator[TestClient]:
    with TestClient(make_app(rate_limit_per_minute=0)) as test_client:
        yield test_client


def _post(client: TestClient, path: str, body: bytes, *content_types: str) -> httpx.Response:
    headers = [("authorization", AUTH["Authorization"]), *(("content-type", c) for c in content_types)]
    return client.post(path, content=body, headers=headers)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32", "utf-8-sig"])
def test_a_body_in_another_encoding_than_utf8_is_refused(client: TestClient, encoding: str) -> None:
    """Python's json reads UTF-16/32 bytes and a BOM as readily as UTF-8, so the NaN byte search never saw them."""
    for body in (CLAIM, '{"claim": "Water is wet.", "k": NaN}'):
        reply = _post(client, "/v1/verify", body.encode(encoding), "application/json")
        assert reply.status_code == 422, (encoding, reply.text)
        assert "not UTF-8 text" in reply.json()["detail"] and reply.json()["error"]["code"] == "invalid_json"
    assert _post(client, "/v1/verify", CLAIM.encode(), "application/json").status_code == 200


def test_a_second_content_type_is_refused_and_a_form_type_hides_nothing(client: TestClient) -> None:
    nan = b'{"text": "Paris is in France.", "factdebate": {"deadline_s": NaN}}'
    two = _post(client, "/v1/guard/check", nan, "application/x-www-form-urlencoded", "application/json")
    assert two.status_code == 422 and "more than one Content-Type" in two.json()["detail"], two.text
    # a form type alone once switched the check off; the route reads the body as JSON all the same
    form = _post(client, "/v1/guard/check", nan, "application/x-www-form-urlencoded")
    assert form.status_code == 422 and "not strict JSON" in form.json()["detail"], form.text


def test_ids_are_matched_in_full(client: TestClient) -> None:
    check = "0" * 32
    assert CHECK_ID.match(check + "\n") and not CHECK_ID.fullmatch(check + "\n")  # what `$` lets through
    newline = client.get(f"/v1/checks/{check}%0A", headers=AUTH)
    assert newline.status_code == 422 and "32 lower-case hex digits" in newline.text, newline.text
    assert client.get(f"/v1/checks/{check}", headers=AUTH).status_code == 404  # well formed, unknown


def _connections(postgres_url: str, allowed: bool) -> None:
    """The database stops (or starts again) taking connections, and those open are cut: to the service, a
    server that went away."""
    import psycopg

    from tests.server.postgres import with_database

    name = postgres_url.split("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(with_database(postgres_url, "postgres"), autocommit=True) as admin:
        admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS {'true' if allowed else 'false'}")
        if not allowed:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))


def test_a_state_database_that_cannot_be_reached_is_a_503_with_a_reason(
        make_app: AppFactory, postgres_url: str, wait_for: Callable[..., None]) -> None:
    app = make_app(state_db=postgres_url, defaults=PLAIN, rate_limit_per_minute=600)
    with TestClient(app) as client:
        assert client.get("/v1/health").status_code == 200
        assert client.post("/v1/verify", json=WATER, headers=AUTH).status_code == 200
        _connections(postgres_url, allowed=False)
        try:
            health = client.get("/v1/health")
            assert health.status_code == 503 and health.headers["retry-after"] == "5", health.text
            assert health.json()["down"] == ["state_db"] and health.json()["reason"] == DOWN_REASON
            for method, path in (("POST", "/v1/verify"), ("GET", "/v1/methods"), ("GET", f"/v1/checks/{'0' * 32}"),
                                 ("POST", "/v1/batches"), ("POST", "/v1/guard/check"), ("POST", "/v1/check-response")):
                reply = client.request(method, path, content=CLAIM, headers={**AUTH, **JSON})
                assert reply.status_code == 503, (path, reply.text)
                assert reply.json()["detail"] == DOWN_REASON and reply.headers["retry-after"] == "5"
                assert "postgresql" not in reply.text and "factdebate" not in reply.text.replace(DOWN_REASON, "")
        finally:
            _connections(postgres_url, allowed=True)
        wait_for(lambda: client.get("/v1/health").status_code == 200, what="the service to find its database again")
        assert client.post("/v1/verify", json=WATER, headers=AUTH).status_code == 200
