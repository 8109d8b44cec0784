"""The stream's ``transcript`` field: checked like every request field, refused where nothing would carry the
text, and when true, each llm_call of the caller's own run carries its prompt messages and reply."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.server.conftest import AUTH, AppFactory, parse_sse

CLAIM = "Water boils at 100 C."


def stream(client: TestClient, path: str, body: dict[str, Any]) -> list[tuple[str, Any]]:
    with client.stream("POST", path, json=body, headers=AUTH) as r:
        assert r.status_code == 200, r.read()
        return parse_sse("".join(r.iter_text()))


def test_a_stream_asked_for_its_transcript_carries_every_calls_text(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        events = stream(client, "/v1/verify/stream", {"claim": CLAIM, "rounds": 1, "transcript": True})
        plain = stream(client, "/v1/verify/stream", {"claim": CLAIM, "rounds": 1})
    calls = [data for name, data in events if name == "llm_call"]
    assert calls and all(c["messages"] and isinstance(c["reply"], str) for c in calls)
    answer = next(c for c in calls if c["prompt"] == "debate_answer")
    # The prompt as sent, naming the claim, and the reply the agent's answer was read from.
    assert any(CLAIM in m["content"] for m in answer["messages"])
    answered = next(data for name, data in events if name == "answer" and data["agent"] == answer["agent"])
    assert answered["response"] and answered["response"] in answer["reply"]
    assert all("messages" not in data and "reply" not in data for name, data in plain if name == "llm_call")
    verdict = events[-1][1]
    assert "transcript" not in str(verdict["config"])  # not a setting: the verdict's settings do not name it


def test_a_response_check_stream_carries_the_text_of_its_claims_calls(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        events = stream(client, "/v1/check-response/stream",
                        {"response": "Water boils at 100 C. Ice is cold.", "transcript": True})
    calls = [data for name, data in events if name == "llm_call"]
    assert calls and all("messages" in c and "reply" in c for c in calls)


def test_the_field_is_checked_and_refused_where_no_event_would_carry_it(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        for value in ("yes", 1, None, [True]):
            bad = client.post("/v1/verify/stream", json={"claim": CLAIM, "transcript": value}, headers=AUTH)
            assert bad.status_code == 422 and "transcript" in bad.text, (value, bad.text)
        whole = client.post("/v1/verify", json={"claim": CLAIM, "transcript": True}, headers=AUTH)
        assert whole.status_code == 422
        assert whole.json()["detail"] == ("transcript: the text of model calls comes with /v1/verify/stream's "
                                          "events; /v1/verify returns only the verdict")
        response = client.post("/v1/check-response", json={"response": "Ice is cold.", "transcript": True},
                               headers=AUTH)
        assert response.status_code == 422 and "/v1/check-response/stream" in response.json()["detail"]
        batch = client.post("/v1/batches?transcript=true", content='{"claim": "Ice is cold."}\n', headers=AUTH)
        assert batch.status_code == 422 and "unknown option(s) transcript" in batch.json()["detail"]
        # false is what every endpoint does anyway
        assert client.post("/v1/verify", json={"claim": CLAIM, "transcript": False}, headers=AUTH).status_code == 200
