"""Every guard route answers alike: ``/v1/chat/completions``, ``/v1/guard/check`` and
LiteLLM's guardrail route share one check setup, so each refusal (a wrong key's 401, a bad option's 422, 413
too large, 429, 503 at the server's limit) is OpenAI's error object (beside this API's ``detail``), and every
answer carries the request's ``X-Factdebate-Check-Id`` (its check is kept under it), and every refusal the
request's ``X-Request-Id`` with ``X-Check-Not-Kept`` (no check ran, so no check id is handed out)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import ANSWER, Upstream, scripted_checker_app, upstream_app

HEADER = "X-Factdebate-Check-Id"
ID = re.compile(r"^[0-9a-f]{32}$")
FAST = {"tier": "fast", "method": "single"}
CHAT = "/v1/chat/completions"
CHECK = "/v1/guard/check"
LITELLM = "/beta/litellm_basic_guardrail_api"
ROUTES = [CHAT, CHECK, LITELLM]


def body(route: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A request of ``route`` whose reply (or text) is ANSWER, with ``options`` as its guard options."""
    options = {**FAST, **(options or {})}
    if route == CHAT:
        return {"model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}],
                "factdebate": options}
    if route == CHECK:
        return {"text": ANSWER, "question": "Tell me about Paris.", "factdebate": options}
    return {"input_type": "response", "texts": [ANSWER], "additional_provider_specific_params": options}


@pytest.fixture
def upstream_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with LiveServer(upstream_app(Upstream())) as model:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        yield model.url


def client(tmp_path: Path, **fields: Any) -> TestClient:
    return TestClient(scripted_checker_app(tmp_path, [KEY], **fields))


def openai_shaped(reply: Any, status: int) -> dict[str, Any]:
    """The reply's OpenAI error object, after checking its shape, its status and the request's id."""
    assert reply.status_code == status, (status, reply.text)
    error = reply.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["message"], error
    assert reply.json()["detail"] == error["message"]  # this API's own callers read it alike
    assert ID.match(reply.headers["X-Request-Id"]) and HEADER not in reply.headers, reply.headers
    assert reply.headers["X-Check-Not-Kept"] == "the request was refused: no check ran"
    return error


@pytest.mark.parametrize("route", ROUTES)
def test_an_answer_carries_the_id_its_check_is_kept_under(route: str, tmp_path: Path, upstream_url: str) -> None:
    with client(tmp_path) as http:
        reply = http.post(route, json=body(route), headers=AUTH)
        assert reply.status_code == 200, reply.text
        check_id = reply.headers[HEADER]
        kept = http.get(f"/v1/checks/{check_id}", headers=AUTH)
    assert ID.match(check_id) and kept.status_code == 200 and kept.json()["verdict"]["original_text"] == ANSWER
    found = reply.json()
    result = found["factdebate"] if route == CHAT else found if route == CHECK else found["factdebate"][0]
    assert result["check_id"] == check_id


@pytest.mark.parametrize("route", ROUTES)
def test_a_wrong_key_a_bad_option_and_a_body_too_large_are_openai_errors(route: str, tmp_path: Path,
                                                                        upstream_url: str) -> None:
    with client(tmp_path, max_batch_bytes=20_000) as http:
        wrong = openai_shaped(http.post(route, json=body(route), headers={"Authorization": "Bearer nope"}), 401)
        missing = openai_shaped(http.post(route, json=body(route)), 401)
        bad = openai_shaped(http.post(route, json=body(route, {"policy": "ignore"}), headers=AUTH), 422)
        large = openai_shaped(http.post(route, json={**body(route), "padding": "x" * 30_000}, headers=AUTH), 413)
        not_json = openai_shaped(http.post(route, content=b"[1, 2", headers={**AUTH, "Content-Type":
                                                                            "application/json"}), 422)
        ids = http.get("/v1/checks", params={"conversation_id": "none-kept"}, headers=AUTH).json()["checks"]
    assert wrong["code"] == missing["code"] == "invalid_api_key" and wrong["type"] == "invalid_request_error"
    assert "API key" in wrong["message"]
    assert bad["type"] == "invalid_request_error" and "policy" in bad["message"]
    assert large["code"] == "request_too_large" and "20000 bytes" in large["message"]
    assert not_json["type"] == "invalid_request_error"
    assert ids == []


@pytest.mark.parametrize("route", ROUTES)
def test_the_rate_limit_and_a_full_server_are_openai_errors(route: str, tmp_path: Path, upstream_url: str) -> None:
    with client(tmp_path, rate_limit_per_minute=0.01, rate_burst=1) as http:
        http.post(route, json=body(route, {"policy": "ignore"}), headers=AUTH)  # the one token
        limited = http.post(route, json=body(route), headers=AUTH)
    error = openai_shaped(limited, 429)
    assert error["type"] == "rate_limit_error" and limited.headers["Retry-After"]
    with client(tmp_path / "full", max_active_runs=1) as http:
        http.app.state.service.active_runs = 1  # type: ignore[attr-defined]  # a check in progress elsewhere
        full = http.post(route, json=body(route), headers=AUTH)
    error = openai_shaped(full, 503)
    assert error["type"] == "server_error" and error["code"] == "overloaded" and full.headers["Retry-After"] == "1"


@pytest.mark.parametrize("route", [CHECK, LITELLM])
def test_the_conversation_header_is_read_by_every_route(route: str, tmp_path: Path, upstream_url: str) -> None:
    """The same setup: the conversation's id from its header files the check, on each route."""
    with client(tmp_path) as http:
        kept = http.post(route, json=body(route), headers={**AUTH, "X-Factdebate-Conversation-Id": "conv-7"})
        clash = http.post(route, json=body(route, {"conversation_id": "conv-8"}),
                          headers={**AUTH, "X-Factdebate-Conversation-Id": "conv-7"})
        listed = http.get("/v1/checks", params={"conversation_id": "conv-7"}, headers=AUTH).json()["checks"]
    assert kept.status_code == 200 and [c["id"] for c in listed] == [kept.headers[HEADER]]
    assert "two conversations" in openai_shaped(clash, 422)["message"]


def _streamed(http: TestClient, options: dict[str, Any]) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """(the text a stream showed, its closing factdebate object, any error chunks)."""
    import json

    shown, result, errors = "", dict[str, Any](), list[dict[str, Any]]()
    with http.stream("POST", CHAT, headers=AUTH, json={**body(CHAT, options), "stream": True}) as reply:
        assert reply.status_code == 200 and ID.match(reply.headers[HEADER])
        for line in reply.iter_lines():
            if not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            errors += [chunk] if "error" in chunk else []
            result = chunk.get("factdebate", result)
            shown += "".join((c.get("delta") or {}).get("content") or "" for c in chunk.get("choices") or [])
    return shown, result, errors


def test_a_reply_past_the_limit_gets_one_behaviour_plain_streamed_and_held(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past guard.max_message_chars, the reply is checked to its last sentence within the
    limit and the rest is one unchecked claim: plain, streamed, under hold (whose relay ended the stream with
    answer_too_long, where guard_stream() showed the rest marked unchecked) and under the policies that hold
    the answer back whole (which ended it with answer_too_long too)."""
    tail = "Lyon has a street named number 1. " * 8
    with LiveServer(upstream_app(Upstream(answer=f"{ANSWER} {tail}".strip()))) as model:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        monkeypatch.setenv("FACTDEBATE_GUARD__MAX_MESSAGE_CHARS", "200")
        with client(tmp_path) as http:
            plain = http.post(CHAT, json=body(CHAT), headers=AUTH).json()["factdebate"]
            _, streamed, errors = _streamed(http, {})
            held_text, held, held_errors = _streamed(http, {"policy": "hold"})
            # The policies that hold the answer back whole ended such a stream with answer_too_long.
            blocked_text, blocked, blocked_errors = _streamed(http, {"policy": "block"})
            withheld_text, withheld, withheld_errors = _streamed(http, {"on_unchecked": "block"})
            plain_withheld = http.post(CHAT, json=body(CHAT, {"on_unchecked": "block"}), headers=AUTH).json()
    assert errors == held_errors == blocked_errors == withheld_errors == []
    results = (plain, streamed, held, blocked, withheld)
    verdicts = [[(c["span"]["start"] if c["span"] else None, c["status"], c["label"]) for c in r["claims"]]
                for r in results]
    assert all(found == verdicts[0] for found in verdicts), verdicts
    assert blocked["action_taken"] == withheld["action_taken"] == "blocked"
    assert blocked_text.startswith("This answer was withheld") and "Lyon has a street named number 1. L" not in \
        blocked_text  # (the refusal quotes the rest's claim, never shows it as the answer)
    assert withheld_text == plain_withheld["choices"][0]["message"]["content"]
    assert withheld_text.startswith("This answer was withheld") and "could not be checked" in withheld_text
    for result in results:
        rest = result["claims"][-1]
        assert rest["status"] == "unchecked" and "guard.max_message_chars (200 characters)" in rest["reason"]
        assert not result["degraded"] and result["label"] != "SUPPORTS"
    # Under hold the refuted sentence is withheld (its footnote quotes it) and the rest shown, then marked.
    assert "The Eiffel Tower is in Rome. I think" not in held_text
    assert held_text.index("Lyon has a street") < held_text.index("could not be checked")


def test_the_responses_api_is_a_404_that_names_the_api_to_call(tmp_path: Path) -> None:
    """The Vercel AI SDK's ``openai()`` provider calls the Responses API and got a bare ``Not Found``;
    the 404 now says, in OpenAI's shape, that the guard speaks Chat Completions and which client to use."""
    with client(tmp_path) as http:
        reply = http.post("/v1/responses", json={"model": "gpt-4o-mini", "input": "Hi"}, headers=AUTH)
    assert reply.status_code == 404
    error = reply.json()["error"]
    assert error["code"] == "responses_api_not_served" and error["type"] == "not_found_error"
    assert "/v1/chat/completions" in error["message"] and "@ai-sdk/openai-compatible" in error["message"]
