"""A plain (not streamed) ``POST /v1/verify`` or ``/v1/check-response`` is kept with its model calls too: the
same ``llm_call`` events a stream would have sent, gathered and not sent, so that its link shows them. They are
bounded, masked and owned by the key as a streamed check's are (tests/server/state/test_kept_calls.py), never carry
text (a plain request cannot ask for the transcript), and under ``kept_check_calls_bytes: 0`` a plain verify
builds no events at all."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.core.runtime import RunRecorder
from factdebate.llm import make_backend
from factdebate.settings.model import Settings
from tests.server.conftest import AUTH, KEY, AppFactory, offline_build, parse_sse

OTHER_KEY = "other-key-0123456789"
OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}
CLAIM = "Water boils at 100 C."
# What a call is, apart from when it ran and in which run (time, ids, seconds differ from run to run).
SAME = ("event", "model", "role", "prompt", "agent", "round", "sample", "draw", "prompt_hash", "cached",
        "prompt_tokens", "completion_tokens")


def shape(calls: list[dict[str, Any]]) -> list[str]:
    """The calls without their times and ids, in a fixed order (the agents of a round end in either order)."""
    return sorted(json.dumps({k: c.get(k) for k in (*SAME, "claim")}, sort_keys=True) for c in calls)


def plain(client: TestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A plain check's answer and its kept record."""
    answer = client.post(path, json=body, headers=AUTH)
    assert answer.status_code == 200, answer.text
    kept = client.get(f"/v1/checks/{answer.headers['X-Check-Id']}", headers=AUTH)
    assert kept.status_code == 200, kept.text
    return {"answer": answer.json(), **kept.json()}


def test_a_plain_verify_keeps_the_calls_its_stream_would_have_sent_for_its_key_only(make_app: AppFactory) -> None:
    with TestClient(make_app(api_keys=[KEY, OTHER_KEY], rate_limit_per_minute=0)) as client:
        kept = plain(client, "/v1/verify", {"claim": CLAIM, "rounds": 2})
        theirs = client.get(f"/v1/checks/{kept['id']}", headers=OTHER)
        with client.stream("POST", "/v1/verify/stream", json={"claim": CLAIM, "rounds": 2}, headers=AUTH) as r:
            sent = [data for name, data in parse_sse("".join(r.iter_text())) if name == "llm_call"]
    calls = kept["calls"]
    assert len(calls) >= 4 and len(calls) == kept["verdict"]["usage"]["llm_calls"] and kept["calls_cut"] == 0
    assert shape(calls) == shape(sent)  # the same calls a stream of the same check sends
    assert all(c["event"] == "llm_call" and "messages" not in c and "reply" not in c for c in calls)
    assert len({c["run"] for c in calls}) == 1  # one run's calls, as one stream carries
    assert theirs.status_code == 404 and "calls" not in theirs.text  # another key's check is absent, calls and all


def test_a_plain_response_checks_calls_name_their_claim(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=0)) as client:
        kept = plain(client, "/v1/check-response", {"response": "Water boils at 100 C. Ice is cold."})
    claims = kept["verdict"]["claims"]
    assert len(claims) == 2 and len(kept["calls"]) == kept["verdict"]["usage"]["llm_calls"]
    for index, claim in enumerate(claims):  # each claim's debate, every call of it and no other, under its index
        assert sum(c.get("claim") == index for c in kept["calls"]) == claim["verdict"]["usage"]["llm_calls"] > 0
    unclaimed = [c for c in kept["calls"] if "claim" not in c]
    assert unclaimed and all(c["role"] not in ("debater", "judge") for c in unclaimed)  # the extraction's own


def test_a_plain_checks_calls_are_bounded_and_masked_and_zero_builds_no_events(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    backend = make_backend("scripted:disagree")
    backend.name = "scripted https://user:hunter2@models.example.org/v1?api_key=s3cret"  # an operator's endpoint

    def build(settings: Settings) -> Any:
        return offline_build(settings, backend)

    with TestClient(make_app(rate_limit_per_minute=0, kept_check_calls_bytes=1200, build=build)) as client:
        kept = plain(client, "/v1/verify", {"claim": CLAIM, "rounds": 3})
    made = kept["verdict"]["usage"]["llm_calls"]
    assert 0 < len(kept["calls"]) < made and kept["calls_cut"] == made - len(kept["calls"])
    assert sum(len(json.dumps(c, ensure_ascii=False).encode()) for c in kept["calls"]) <= 1200
    text = json.dumps(kept["calls"])
    # the operator's endpoint is the operator's to see (the server's log), not a caller's
    assert "models.example.org" not in text and "hunter2" not in text and "s3cret" not in text
    assert "the operator's endpoint" in text

    built: list[str] = []
    record = RunRecorder.record

    def counted(self: RunRecorder, event: Any, **data: Any) -> dict[str, Any]:
        built.append(str(getattr(event, "event", event)))
        return record(self, event, **data)

    monkeypatch.setattr(RunRecorder, "record", counted)
    with TestClient(make_app(rate_limit_per_minute=0, kept_check_calls_bytes=0)) as client:
        none = plain(client, "/v1/verify", {"claim": CLAIM, "rounds": 1})
    assert none["calls"] == [] and none["calls_cut"] == 0 and none["verdict"]["claim"] == CLAIM
    assert built == []  # nothing would be kept, so no event was built for it
