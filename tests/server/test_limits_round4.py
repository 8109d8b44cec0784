"""Limits of hardening round 4 (issue 27): a batch pays the rate limit per claim and a key's pending batch
claims are capped (item 4); a batch line nested too deeply is a 422 naming the line (item 6)."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.methods import Resources
from factdebate.run.build import build_resources
from factdebate.settings.model import Settings
from tests.server.conftest import AUTH, KEY, AppFactory

OTHER_KEY = "second-key-0123456789"


def claims(n: int, prefix: str = "c") -> str:
    return "\n".join(json.dumps({"id": f"{prefix}{i}", "claim": f"Claim number {i} is true."}) for i in range(n))


def slow_build(settings: Settings) -> Resources:
    """Models that take a minute per call: a batch's claims stay pending for the whole test."""
    backend = ScriptedBackend(protocol_responder(True), latency=60)  # type: ignore[arg-type]
    return build_resources(settings, backends={"debater": backend, "judge": backend, "scorer": backend})


def test_a_batch_pays_one_rate_limit_token_per_claim(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=2, build=slow_build)) as client:
        first = client.post("/v1/batches", content=claims(5), headers=AUTH)
        second = client.post("/v1/batches", content=claims(1, "d"), headers=AUTH)
    assert first.status_code == 202, first.json()
    # Five claims cost five tokens of a two-token bucket: the key waits ~1.5 minutes before anything more.
    assert second.status_code == 429, second.json()
    assert "rate limit exceeded" in second.json()["detail"] and int(second.headers["Retry-After"]) >= 60


def test_pending_claims_per_key_are_capped(make_app: AppFactory) -> None:
    with TestClient(make_app(api_keys=[KEY, OTHER_KEY], rate_limit_per_minute=0, max_pending_claims=3,
                             build=slow_build)) as client:
        first = client.post("/v1/batches", content=claims(2), headers=AUTH)
        over = client.post("/v1/batches", content=claims(2, "d"), headers=AUTH)
        fits = client.post("/v1/batches", content=claims(1, "e"), headers=AUTH)
        other = client.post("/v1/batches", content=claims(3), headers={"Authorization": f"Bearer {OTHER_KEY}"})
    assert first.status_code == 202 and fits.status_code == 202 and other.status_code == 202
    assert over.status_code == 429
    assert over.json()["detail"] == ("this key has 2 batch claim(s) waiting or running; 2 more would pass the "
                                     "server's limit of 3 (max_pending_claims): retry when some have finished")


def test_a_deeply_nested_batch_line_is_a_422_naming_the_line(make_app: AppFactory) -> None:
    deep = '{"claim": "Paris is in France.", "meta": ' + "[" * 900 + "]" * 900 + "}"
    with TestClient(make_app(), raise_server_exceptions=False) as client:
        answer = client.post("/v1/batches", content='"Fine."\n' + deep, headers=AUTH)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"].startswith("line 2: the line nests lists or objects more than 32 levels deep")
