"""A streamed check is kept with its model calls (server/state/kept_calls.py): ``GET /v1/checks/{id}`` answers them
as the stream sent them (their text only when the stream asked for its transcript, masked as it was), for the
key that asked only, within the operator's byte bound (the calls past it counted), each of a response's
claims' calls naming its claim, and trimmed or expired with its check."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from factdebate.server.state.check_store import CheckStore
from factdebate.server.state.db import open_state_db
from tests.server.conftest import AUTH, KEY, AppFactory, parse_sse

OTHER_KEY = "other-key-0123456789"
OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}
CLAIM = "Water boils at 100 C."


def streamed(client: TestClient, path: str, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The stream's llm_call events and the id its check was kept under."""
    with client.stream("POST", path, json=body, headers=AUTH) as r:
        assert r.status_code == 200, r.read()
        events = parse_sse("".join(r.iter_text()))
    saved = [data for name, data in events if name == "check_saved"]
    assert saved, [name for name, _ in events]
    return [data for name, data in events if name == "llm_call"], saved[0]["id"]


def test_a_streamed_check_is_kept_with_its_calls_for_its_key_only(make_app: AppFactory) -> None:
    with TestClient(make_app(api_keys=[KEY, OTHER_KEY], rate_limit_per_minute=0)) as client:
        calls, check_id = streamed(client, "/v1/verify/stream", {"claim": CLAIM, "rounds": 2, "transcript": True})
        kept = client.get(f"/v1/checks/{check_id}", headers=AUTH).json()
        plain_calls, plain_id = streamed(client, "/v1/verify/stream", {"claim": CLAIM, "rounds": 1})
        plain = client.get(f"/v1/checks/{plain_id}", headers=AUTH).json()
        theirs = client.get(f"/v1/checks/{check_id}", headers=OTHER)
    assert len(calls) >= 4 and all(c["messages"] and "reply" in c for c in calls)
    assert kept["calls"] == calls and kept["calls_cut"] == 0  # as the stream sent them, text and all
    # Without the transcript the kept calls have no text either: a check keeps what its stream showed.
    assert plain["calls"] == plain_calls and all("messages" not in c and "reply" not in c for c in plain["calls"])
    assert theirs.status_code == 404 and "calls" not in theirs.text


def test_the_calls_past_the_operators_bound_are_counted_not_kept(make_app: AppFactory) -> None:
    bound = 6000
    with TestClient(make_app(rate_limit_per_minute=0, kept_check_calls_bytes=bound)) as client:
        calls, check_id = streamed(client, "/v1/verify/stream", {"claim": CLAIM, "rounds": 3, "transcript": True})
        kept = client.get(f"/v1/checks/{check_id}", headers=AUTH).json()
    assert 0 < len(kept["calls"]) < len(calls)
    assert kept["calls"] == calls[:len(kept["calls"])]  # the first ones, in the order they ended
    assert kept["calls_cut"] == len(calls) - len(kept["calls"])
    assert sum(len(json.dumps(c, ensure_ascii=False).encode()) for c in kept["calls"]) <= bound
    assert kept["verdict"]["claim"] == CLAIM  # the verdict is kept whole whatever its calls came to

    with TestClient(make_app(rate_limit_per_minute=0, kept_check_calls_bytes=0)) as client:
        _, check_id = streamed(client, "/v1/verify/stream", {"claim": CLAIM, "rounds": 1, "transcript": True})
        none = client.get(f"/v1/checks/{check_id}", headers=AUTH).json()
    assert none["calls"] == [] and none["calls_cut"] == 0 and none["verdict"]["claim"] == CLAIM


def test_a_credential_in_a_prompt_stays_masked_in_the_kept_calls(make_app: AppFactory) -> None:
    claim = "The page https://user:hunter2@example.org/report?api_key=s3cret&id=4 says water boils at 100 C."
    with TestClient(make_app(rate_limit_per_minute=0)) as client:
        calls, check_id = streamed(client, "/v1/verify/stream", {"claim": claim, "rounds": 1, "transcript": True})
        kept = client.get(f"/v1/checks/{check_id}", headers=AUTH).json()
    text = json.dumps(kept["calls"])
    assert "example.org/report" in text and "id=4" in text  # the link is quoted ...
    assert "hunter2" not in text and "s3cret" not in text  # ... its credentials masked, as in the live stream
    assert kept["calls"] == calls


def test_each_of_a_response_checks_calls_names_its_claim(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=0)) as client:
        calls, check_id = streamed(client, "/v1/check-response/stream",
                                   {"response": "Water boils at 100 C. Ice is cold.", "transcript": True})
        kept = client.get(f"/v1/checks/{check_id}", headers=AUTH).json()
    claims = kept["verdict"]["claims"]
    assert len(claims) == 2 and len(kept["calls"]) == len(calls)
    by_claim = {c["claim"] for c in kept["calls"] if "claim" in c}
    assert by_claim == {0, 1}
    for call in kept["calls"]:
        if "claim" in call:  # a claim's debate: its prompt quotes that claim
            assert any(claims[call["claim"]]["claim"] in m["content"] for m in call["messages"]), call["prompt"]
        else:  # the response's own calls (the extraction) belong to no claim
            assert call["role"] != "debater"
    assert [{k: v for k, v in c.items() if k != "claim"} for c in kept["calls"]] == calls


def test_a_checks_calls_go_with_it_when_it_is_trimmed_or_expires(state_target: str) -> None:
    store = CheckStore(open_state_db(state_target), per_key=1, max_age_seconds=100)
    calls = [{"event": "llm_call", "prompt": "debate_answer"}]
    first = store.save("a", "claim", {"n": 1}, now=1000, calls=calls, calls_cut=2)
    assert first
    kept = store.get(first, "a", now=1001)
    assert kept is not None and kept.calls == calls and kept.calls_cut == 2
    second = store.save("a", "claim", {"n": 2}, now=1002, calls=calls)  # trims the first, calls and all
    store.save("b", "claim", {"n": 3}, now=1200, calls=calls)  # expires a's second
    assert second and store.get(second, "a", now=1003) is None

    def rows(db: Any) -> list[str]:
        return sorted(row[0] for row in db.execute("SELECT id FROM check_calls").fetchall())

    remaining = store.db.read(rows)
    assert first not in remaining and second not in remaining and len(remaining) == 1
    store.db.close()
