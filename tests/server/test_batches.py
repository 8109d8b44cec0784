"""Batch jobs: submission, progress, results, ownership, and resuming after a restart."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.methods import Resources
from factdebate.run.build import build_resources
from factdebate.server.batch_store import BatchStore
from factdebate.settings.model import Settings
from tests.server.conftest import AUTH, AppFactory

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
