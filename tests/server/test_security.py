"""Keys, rate limits and size limits."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from factdebate.server.security import KeyRing, RateLimiter, key_id
from tests.server.conftest import AUTH, KEY, AppFactory


@pytest.mark.parametrize("header", [None, "Bearer wrong-key", f"Basic {KEY}", "Bearer", f"bearer{KEY}"])
def test_requests_without_a_valid_key_get_401(make_app: AppFactory, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    with TestClient(make_app()) as client:
        for method, path in (("GET", "/v1/methods"), ("POST", "/v1/verify"), ("POST", "/v1/verify/stream"),
                             ("POST", "/v1/batches"), ("GET", "/v1/batches/abc")):
            response = client.request(method, path, headers=headers, json={"claim": "a"})
            assert response.status_code == 401, (method, path)
            assert response.headers["www-authenticate"] == "Bearer"
            assert "API key" in response.json()["detail"]


def test_bearer_scheme_is_case_insensitive(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        assert client.get("/v1/methods", headers={"Authorization": f"bearer {KEY}"}).status_code == 200


def test_anonymous_mode_needs_no_key(make_app: AppFactory) -> None:
    with TestClient(make_app(api_keys=[], allow_anonymous=True)) as client:
        assert client.get("/v1/methods").status_code == 200
        assert client.get("/v1/health").json()["auth"] == "off"


def test_rate_limit_answers_429_with_retry_after(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=6, rate_burst=2)) as client:
        codes = [client.get("/v1/methods", headers=AUTH) for _ in range(3)]
        other = client.get("/v1/methods", headers={"Authorization": "Bearer second-key"})
    assert [r.status_code for r in codes] == [200, 200, 429]
    assert int(codes[2].headers["retry-after"]) == 10  # one token per 10 s at 6/min
    assert "rate limit" in codes[2].json()["detail"]
    assert other.status_code == 401  # an unknown key is refused before it can use anyone's bucket


def test_rate_limit_is_per_key(make_app: AppFactory) -> None:
    with TestClient(make_app(api_keys=[KEY, "second-key"], rate_limit_per_minute=60, rate_burst=1)) as client:
        assert client.get("/v1/methods", headers=AUTH).status_code == 200
        assert client.get("/v1/methods", headers=AUTH).status_code == 429
        assert client.get("/v1/methods", headers={"Authorization": "Bearer second-key"}).status_code == 200


def test_token_bucket_refills() -> None:
    limiter = RateLimiter(per_minute=60, burst=2)
    assert limiter.acquire("a", now=0) == 0 and limiter.acquire("a", now=0) == 0
    assert limiter.acquire("a", now=0) == pytest.approx(1.0)
    assert limiter.acquire("a", now=0.5) == pytest.approx(0.5)
    assert limiter.acquire("a", now=1.0) == 0
    assert RateLimiter(per_minute=0).acquire("a") == 0


def test_key_ring_identifies_by_hash_only() -> None:
    ring = KeyRing(["k1", "k2"])
    assert ring.identify("Bearer k2") == key_id("k2") != "k2"
    assert ring.identify("Bearer k3") is None and ring.identify(None) is None


def test_body_over_the_limit_gets_413(make_app: AppFactory) -> None:
    with TestClient(make_app(max_body_bytes=2048, max_batch_bytes=4096)) as client:
        big = client.post("/v1/verify", headers=AUTH, json={"claim": "x" * 5000})
        batch = client.post("/v1/batches", headers=AUTH, content=b'{"claim": "a"}\n' * 400)
        fine = client.post("/v1/batches", headers=AUTH, content=b'{"claim": "a b"}\n' * 100)
    assert big.status_code == 413 and "2048" in big.json()["detail"]
    assert batch.status_code == 413 and "4096" in batch.json()["detail"]
    assert fine.status_code != 413


def test_chunked_body_without_length_is_also_limited(make_app: AppFactory) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"claim": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    with TestClient(make_app(max_body_bytes=2048)) as client:
        response = client.post("/v1/verify", headers={**AUTH, "Content-Type": "application/json"},
                               content=chunks())
    assert response.status_code == 413


def test_claim_over_the_length_limit_gets_a_clear_422(make_app: AppFactory) -> None:
    with TestClient(make_app(defaults={"llm": "scripted:agree", "max_claim_chars": 50})) as client:
        response = client.post("/v1/verify", headers=AUTH, json={"claim": "word " * 20})
        stream = client.post("/v1/verify/stream", headers=AUTH, json={"claim": "word " * 20})
    assert response.status_code == 422
    # A caller cannot change the limit: it is named as the operator's, not as one to set.
    assert response.json()["detail"] == ("the claim is 99 characters long; the limit is 50 "
                                         "(this server's max_claim_chars, which its operator sets)")
    assert stream.status_code == 422  # refused before the stream starts, not as an event


def test_active_run_limit_answers_503(make_app: AppFactory) -> None:
    app = make_app(max_active_runs=1)
    app.state.service.active_runs = 1  # as if one debate were in progress
    with TestClient(app) as client:
        response = client.post("/v1/verify", headers=AUTH, json={"claim": "a b"})
    assert response.status_code == 503 and response.headers["retry-after"] == "1"


def test_keys_never_reach_the_logs(make_app: AppFactory, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    app = make_app()
    with TestClient(app) as client:
        client.get("/v1/methods", headers=AUTH)
        client.get("/v1/methods", headers={"Authorization": "Bearer a-wrong-secret"})
        client.post("/v1/verify", headers=AUTH, json={"claim": "a b", "rounds": 1})
    assert KEY not in caplog.text and "a-wrong-secret" not in caplog.text
    assert KEY not in repr(app.state.service.config)
