"""Batch jobs: submission, progress, results, ownership, and resuming after a restart; a batch pays the rate
limit per claim, a key's pending batch claims are capped, and a line nested too deeply is a 422 naming the line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.methods import Resources
from factdebate.run.build import build_resources
from factdebate.server.state.batch_store import BatchStore
from factdebate.settings.model import Settings
from tests.server.conftest import AUTH, KEY, AppFactory

CLAIMS = "\n".join([
    json.dumps({"id": "c1", "claim": "The Moon orbits the Earth.", "gold": "SUPPORTS"}),
    json.dumps({"claim": "Bananas are blue.", "label_gold": "REFUTES"}),
    json.dumps("A bare string is a claim too."),
    "",
])


def test_batch_runs_and_reports_progress_and_results(make_app: AppFactory, wait_for: Callable[..., None]) -> None:
    with TestClient(make_app()) as client:
        created = client.post("/v1/batches?rounds=1&agents=none,none", content=CLAIMS, headers=AUTH)
        assert created.status_code == 202, created.json()
        batch = created.json()
        assert batch["total"] == 3 and batch["options"] == {"rounds": 1, "agents": ["none", "none"]}

        def finished() -> bool:
            return bool(client.get(f"/v1/batches/{batch['id']}", headers=AUTH).json()["status"] == "done")

        wait_for(finished, what="the batch")
        status = client.get(f"/v1/batches/{batch['id']}", headers=AUTH).json()
        jsonl = client.get(f"/v1/batches/{batch['id']}/results", headers=AUTH)
        page = client.get(f"/v1/batches/{batch['id']}?offset=1&limit=1", headers=AUTH).json()
    assert status["done"] == 3 and status["errors"] == 0 and status["finished"] is not None
    results = status["results"]
    assert results[0]["id"] == "c1"
    assert results[0]["gold"] == "SUPPORTS" and results[1]["label_gold"] == "REFUTES"
    assert all(len(r["rounds"]) == 1 for r in results)
    assert [json.loads(line) for line in jsonl.text.splitlines()] == results
    assert jsonl.headers["content-type"].startswith("application/x-ndjson")
    assert [r["id"] for r in page["results"]] == [results[1]["id"]]


def test_batch_is_private_to_its_key(make_app: AppFactory) -> None:
    with TestClient(make_app(api_keys=["owner-key", "other-key"])) as client:
        batch = client.post("/v1/batches", content=CLAIMS, headers={"Authorization": "Bearer owner-key"}).json()
        other = client.get(f"/v1/batches/{batch['id']}", headers={"Authorization": "Bearer other-key"})
        missing = client.get("/v1/batches/does-not-exist", headers={"Authorization": "Bearer owner-key"})
    assert other.status_code == 404 and missing.status_code == 404


def test_bad_batches_are_refused_with_the_line(make_app: AppFactory) -> None:
    with TestClient(make_app(max_batch_claims=2, defaults={"llm": "scripted:agree", "max_claim_chars": 30})) as c:
        assert "line 2: not valid JSON" in c.post("/v1/batches", content='"ok"\n{oops', headers=AUTH).json()["detail"]
        assert "line 1: expected an object" in c.post("/v1/batches", content='{"x": 1}', headers=AUTH).json()["detail"]
        too_long = c.post("/v1/batches", content=json.dumps("y" * 40), headers=AUTH)
        assert too_long.status_code == 422 and "line 1: the claim is 40 characters" in too_long.json()["detail"]
        assert "too many claims" in c.post("/v1/batches", content='"a"\n"b"\n"c"', headers=AUTH).json()["detail"]
        assert "duplicate id" in c.post("/v1/batches", content='{"id": 1, "claim": "a"}\n{"id": 1, "claim": "b"}',
                                        headers=AUTH).json()["detail"]
        assert "no claims" in c.post("/v1/batches", content="\n\n", headers=AUTH).json()["detail"]
        assert c.post("/v1/batches?rounds=0", content='"a"', headers=AUTH).status_code == 422


class CountingBuild:
    """Slow scripted models that count the claims they judged (each disagreeing debate ends with a judge)."""

    def __init__(self) -> None:
        self.backend = ScriptedBackend(protocol_responder(True), latency=0.05)  # type: ignore[arg-type]

    def __call__(self, settings: Settings) -> Resources:
        return build_resources(settings, backends={"debater": self.backend, "judge": self.backend,
                                                   "scorer": self.backend})

    @property
    def judged(self) -> int:
        return sum(1 for info, _ in self.backend.calls if info.role == "judge")


def test_a_restart_loses_nothing_and_resumes_unfinished_work(make_app: AppFactory, tmp_path: Path,
                                                             wait_for: Callable[..., None]) -> None:
    db = tmp_path / "restart.sqlite"
    claims = "\n".join(json.dumps({"id": f"n{i}", "claim": f"Claim number {i} is true."}) for i in range(8))
    first = CountingBuild()
    with TestClient(make_app(db_path=db, build=first, batch_concurrency=2)) as client:
        batch_id = client.post("/v1/batches?rounds=2", content=claims, headers=AUTH).json()["id"]
        wait_for(lambda: client.get(f"/v1/batches/{batch_id}", headers=AUTH).json()["done"] >= 2,
                 what="a few results")
    # The server is down: some claims are finished, the rest wait in the database.
    store = BatchStore(db)
    stopped = store.get(batch_id)
    store.close()
    assert stopped is not None and stopped.status == "running" and 2 <= stopped.done < 8

    second = CountingBuild()
    with TestClient(make_app(db_path=db, build=second, batch_concurrency=2)) as client:
        wait_for(lambda: client.get(f"/v1/batches/{batch_id}", headers=AUTH).json()["status"] == "done",
                 what="the resumed batch")
        status = client.get(f"/v1/batches/{batch_id}", headers=AUTH).json()
    assert status["done"] == 8 and status["errors"] == 0
    assert sorted(r["id"] for r in status["results"]) == [f"n{i}" for i in range(8)]
    assert second.judged == 8 - stopped.done  # finished claims were not run again


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
