"""``POST /v1/check-response`` (plain and streamed) makes check-response's one call (guard_engine/call.py's
``check_response``), as the CLI, ``factdebate.check_response`` and MCP's ``check_response`` do:
the model cache is each API key's own, as on the guard's doors. What a key reads is its answer's
``usage.cached_calls``: nothing of another key's cache, its own repeated check from its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import REPLY, script
from tests.server.conftest import KEY, PLAIN, AppFactory, offline_build, parse_sse

OTHER = "other-key-0123456789"


@pytest.mark.parametrize("route", ["/v1/check-response", "/v1/check-response/stream"])
def test_each_key_reads_only_its_own_model_cache(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path, route: str) -> None:
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path))  # the model cache's folder
    backend = ScriptedBackend(script())
    app = make_app(api_keys=[KEY, OTHER], defaults={**PLAIN, "cache": True},
                   build=lambda settings: offline_build(settings, backend))

    def cached(client: TestClient, key: str) -> tuple[int, int]:
        answer = client.post(route, json={"response": REPLY, "method": "single"},
                             headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 200, answer.text
        body = answer.json() if route.endswith("check-response") else \
            next(data for name, data in parse_sse(answer.text) if name == "result")
        return body["usage"]["llm_calls"], body["usage"]["cached_calls"]

    with TestClient(app) as client:
        first, other, again = cached(client, KEY), cached(client, OTHER), cached(client, KEY)
    assert first[0] > 0 and first[1] == 0
    assert other == first, "the other key's check was answered from the first key's cache"
    assert again[1] > 0, "a key's repeated check was not answered from its own cache"
