"""The plain (not streamed) chat door in its order: the check is begun (settings, admission) before the
operator's model is asked, so a request the service has no room for never reaches the upstream; the upstream's
failure comes back as it came and leaves no run slot taken; an answer let in is checked and kept. The guard in
process (TestClient), the upstream a real server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import ANSWER, Upstream, scripted_checker_app, upstream_app

CHAT = "/v1/chat/completions"
BODY = {"model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}],
        "factdebate": {"tier": "fast", "method": "single", "policy": "annotate"}}
FAILED = {"error": {"message": "the model is loading", "type": "server_error", "param": None, "code": "loading"}}


@pytest.fixture
def upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[Upstream]:
    scripted = Upstream()
    with LiveServer(upstream_app(scripted)) as model:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        yield scripted


def client(tmp_path: Path, **fields: Any) -> TestClient:
    return TestClient(scripted_checker_app(tmp_path, [KEY], **fields))


def test_a_request_the_server_has_no_room_for_never_reaches_the_upstream(tmp_path: Path,
                                                                           upstream: Upstream) -> None:
    with client(tmp_path, max_active_runs=1) as http:
        http.app.state.service.active_runs = 1  # type: ignore[attr-defined]  # a check in progress elsewhere
        full = http.post(CHAT, json=BODY, headers=AUTH)
    assert full.status_code == 503 and full.json()["error"]["code"] == "overloaded", full.text
    assert upstream.requests == []


def test_an_upstream_failure_comes_back_as_it_came_and_frees_the_slot(tmp_path: Path, upstream: Upstream) -> None:
    """One run slot: the failed request gives it back, so the answer after it is checked and kept."""
    upstream.fail = (503, FAILED)
    with client(tmp_path, max_active_runs=1) as http:
        failure = http.post(CHAT, json=BODY, headers=AUTH)
        idle = http.get("/v1/health").json()["active_runs"]
        upstream.fail = None
        checked = http.post(CHAT, json=BODY, headers=AUTH)
        kept = http.get(f"/v1/checks/{checked.headers['X-Factdebate-Check-Id']}", headers=AUTH)
    assert failure.status_code == 503 and failure.json() == FAILED and failure.headers["Retry-After"]
    assert idle == 0
    assert checked.status_code == 200, checked.text
    answer = checked.json()
    assert answer["choices"][0]["message"]["content"] == ANSWER  # annotate: the text as the upstream wrote it
    assert [claim["label"] for claim in answer["factdebate"]["claims"]] == ["SUPPORTS", "REFUTES"]
    assert answer["factdebate"]["check_id"] == checked.headers["X-Factdebate-Check-Id"]
    assert checked.headers["X-Factdebate-Action"] == "annotated" and checked.headers["X-Factdebate-Refuted"] == "1"
    assert kept.status_code == 200 and kept.json()["verdict"]["original_text"] == ANSWER
    assert len(upstream.requests) == 2
