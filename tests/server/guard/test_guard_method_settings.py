"""A check resolves only the settings it changes: the operator's method sections were validated when the service
started, so a chat check (which names a method and changes none of its settings) validates no method's section
again, and a claim's request that sets a method's options validates that method's section alone, its problems
still refused in words. Counted at the one place a section is validated (``settings/model.py``'s ``_section``),
on the service in process (TestClient) with the upstream a real server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

import factdebate.settings.model as settings_model
from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import Upstream, scripted_checker_app, upstream_app

CHAT = "/v1/chat/completions"


@pytest.fixture
def upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[Upstream]:
    scripted = Upstream()
    with LiveServer(upstream_app(scripted)) as model:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        yield scripted


@pytest.fixture
def validated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The method sections validated, by name, in order (each call of ``_section``, which it then makes)."""
    names: list[str] = []
    section = settings_model._section

    def counted(name: str, model: type[BaseModel], value: Any) -> BaseModel:
        names.append(name)
        return section(name, model, value)

    monkeypatch.setattr(settings_model, "_section", counted)
    return names


def test_a_fast_chat_check_validates_no_method_section(tmp_path: Path, upstream: Upstream,
                                                       validated: list[str]) -> None:
    """DPD named: its settings are read as the operator's were validated; no method's rules run again, DPD's
    panel rules included."""
    body = {"model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}],
            "factdebate": {"tier": "fast", "method": "dpd", "policy": "annotate"}}
    with TestClient(scripted_checker_app(tmp_path, [KEY])) as http:
        validated.clear()  # the service's start validated the operator's settings once
        answer = http.post(CHAT, json=body, headers=AUTH)
    assert answer.status_code == 200, answer.text
    assert [claim["label"] for claim in answer.json()["factdebate"]["claims"]] == ["SUPPORTS", "REFUTES"]
    assert validated == []


def test_a_request_that_sets_a_methods_options_validates_that_section_alone(tmp_path: Path,
                                                                             validated: list[str]) -> None:
    """A DPD option out of bounds is refused, the place named, after validating DPD's section and no other."""
    claim = {"claim": "The Eiffel Tower is in Rome.", "method": "dpd", "dpd_min_rounds": 3, "dpd_max_rounds": 2}
    with TestClient(scripted_checker_app(tmp_path, [KEY])) as http:
        validated.clear()
        refused = http.post("/v1/verify", json=claim, headers=AUTH)
    assert refused.status_code == 422, refused.text
    assert "methods.dpd: min_rounds (3) exceeds max_rounds (2)" in refused.json()["detail"]
    assert validated == ["dpd"]
