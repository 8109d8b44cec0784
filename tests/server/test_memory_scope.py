"""MERMAID's evidence memory behind the service: each API key has its own namespace (derived from the key's
id, never the key), so what one caller makes the tools fetch is never recalled into another caller's
verdict; and the memory's mode, file, namespace and TTL are the operator's, refused from callers with 422."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.methods import Resources
from factdebate.methods.mermaid.toolbox import Toolbox
from factdebate.server.security import key_id
from factdebate.settings.model import Settings
from tests.methods.mermaid.memory_worker import FACTS
from tests.methods.mermaid.policy import capital_policy
from tests.methods.mermaid.support import FactToolset, script
from tests.server.conftest import AppFactory, offline_build, parse_sse

KEY_A, KEY_B = "key-of-caller-a-0123456789", "key-of-caller-b-9876543210"
A, B = ({"Authorization": f"Bearer {key}"} for key in (KEY_A, KEY_B))


@pytest.fixture
def mermaid_app(make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """A service whose default method is MERMAID with memory on, the capital policy as its model and an
    in-process fact search as its only tool."""
    from factdebate.llm.scripted import ScriptedBackend

    toolset = FactToolset(FACTS)
    monkeypatch.setattr("factdebate.methods.mermaid.method.build_toolbox", lambda *a, **k: Toolbox([toolset]))
    backend = ScriptedBackend(script(capital_policy))

    def build(settings: Settings) -> Resources:
        return offline_build(settings, backend)

    def factory(memory: str = "on") -> Any:
        defaults = {"method": "mermaid", "llm": "scripted:agree", "cache": False, "memory": memory,
                    "memory_path": str(tmp_path / "memory.sqlite"), "mermaid_memory_semantic": False}
        return make_app(api_keys=[KEY_A, KEY_B], defaults=defaults, build=build)

    return factory


def _verify(client: TestClient, headers: dict[str, str], claim: str) -> dict[str, Any]:
    response = client.post("/v1/verify", json={"claim": claim}, headers=headers)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _recalled(verdict: dict[str, Any]) -> list[dict[str, Any]]:
    return [doc for doc in verdict["rounds"][0]["turns"][0]["evidence"] if doc["id"].startswith("memory:")]


def test_one_keys_evidence_is_never_recalled_for_another(mermaid_app: Callable[..., Any], tmp_path: Path) -> None:
    with TestClient(mermaid_app()) as client:
        first = _verify(client, A, "Paris is the capital of France")  # A's claim makes the tool fetch France
        assert first["usage"]["tool_calls"] == 1
        with client.stream("POST", "/v1/verify/stream", json={"claim": "Lyon is the capital of France"},
                           headers=B) as response:
            events = parse_sse("".join(response.iter_text()))
        own = _verify(client, A, "Lyon is the capital of France")
    recall = next(data for name, data in events if name == "memory_recall")
    other = events[-1][1]
    assert recall["hits"] == [] and _recalled(other) == []  # B searched for itself
    assert other["usage"]["tool_calls"] == 1 and other["label"] == "REFUTES"
    assert _recalled(own) and own["usage"]["tool_calls"] == 0  # A's own memory works
    with sqlite3.connect(tmp_path / "memory.sqlite") as db:
        namespaces = {row[0] for row in db.execute("SELECT DISTINCT namespace FROM evidence")}
    assert namespaces == {f"builtin:{key_id(KEY_A)}", f"builtin:{key_id(KEY_B)}"}
    assert not any(key in name for name in namespaces for key in (KEY_A, KEY_B))


@pytest.mark.parametrize("option", [{"memory": "on"}, {"mermaid_memory": "on"}, {"memory_path": "/tmp/x.sqlite"},
                                    {"mermaid_memory_namespace": "builtin"}, {"mermaid_memory_ttl_days": 1}])
def test_callers_cannot_choose_the_memory(mermaid_app: Callable[..., Any], option: dict[str, Any]) -> None:
    name, value = next(iter(option.items()))
    with TestClient(mermaid_app(memory="readonly")) as client:
        verify = client.post("/v1/verify", json={"claim": "Paris is the capital of France", **option}, headers=B)
        batch = client.post(f"/v1/batches?{name}={value}", content='{"claim": "Paris is the capital of France"}\n',
                            headers=B)
    assert verify.status_code == 422 and name in verify.text, verify.text
    assert batch.status_code == 422 and name in batch.text, batch.text
