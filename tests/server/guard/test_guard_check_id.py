"""The chat guard's check id on every reply of ``/v1/chat/completions`` (plain, streamed before its body,
errors and refusals too), a wrong key's 401 in OpenAI's error shape, and ``GET /v1/checks?conversation_id=``
listing a conversation's kept checks, newest first, to their owner only."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import ANSWER, Upstream, scripted_checker_app, upstream_app

OTHER_KEY = "other-key-9876543210"
OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}
HEADER = "X-Factdebate-Check-Id"
ID = re.compile(r"^[0-9a-f]{32}$")
# annotate: the upstream's words pass as they came (no footnote of the default flag), which these tests compare
FAST = {"tier": "fast", "method": "single", "policy": "annotate"}
ASK: dict[str, Any] = {"model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}]}

Start = Callable[..., LiveServer]


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Start]:
    started: list[LiveServer] = []

    def start(upstream: Upstream | None = None, **fields: Any) -> LiveServer:
        model = LiveServer(upstream_app(upstream or Upstream())).__enter__()
        started.append(model)
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        server = LiveServer(scripted_checker_app(tmp_path, [KEY, OTHER_KEY], **fields)).__enter__()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.__exit__()


def chat(server: LiveServer, options: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
         **body: Any) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers={**AUTH, **(headers or {})}, timeout=30,
                      json={**ASK, "factdebate": {**FAST, **(options or {})}, **body})


def test_a_plain_reply_carries_the_id_of_its_kept_check(guard: Start) -> None:
    server = guard()
    reply = chat(server)
    assert reply.status_code == 200 and ID.match(reply.headers[HEADER])
    assert reply.json()["factdebate"]["check_id"] == reply.headers[HEADER]
    kept = httpx.get(f"{server.url}/v1/checks/{reply.headers[HEADER]}", headers=AUTH)
    assert kept.status_code == 200 and kept.json()["verdict"]["original_text"] == ANSWER


def test_a_stream_sends_the_id_in_its_headers_before_the_body(guard: Start) -> None:
    server = guard(Upstream(token_delay=0.02))
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30,
                      json={**ASK, "stream": True, "factdebate": FAST}) as reply:
        check_id = reply.headers[HEADER]  # read before a byte of the body
        assert reply.status_code == 200 and ID.match(check_id)
        frames = [line[6:] for line in reply.iter_lines() if line.startswith("data: ") and line != "data: [DONE]"]
    last = json.loads(frames[-1])
    assert last["factdebate"]["check_id"] == check_id  # the finished check was kept under the header's id
    kept = httpx.get(f"{server.url}/v1/checks/{check_id}", headers=AUTH).json()
    assert kept["kind"] == "guard" and kept["verdict"]["original_text"] == ANSWER


def test_the_sdk_reads_the_streams_id_from_its_headers(guard: Start) -> None:
    server = guard()
    raw = openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0, timeout=30) \
        .chat.completions.with_raw_response.create(model="scripted", messages=ASK["messages"], stream=True,
                                                   extra_body={"factdebate": FAST})
    assert ID.match(raw.headers[HEADER])
    assert "".join(c.choices[0].delta.content or "" for c in raw.parse() if c.choices) == ANSWER


def test_a_refusal_names_its_request_and_says_no_check_was_kept(guard: Start) -> None:
    server = guard(max_batch_bytes=20_000)
    url = f"{server.url}/v1/chat/completions"
    wrong_key = httpx.post(url, json=ASK, headers={"Authorization": "Bearer nope"}, timeout=30)
    no_key = httpx.post(url, json=ASK, timeout=30)
    bad_option = chat(server, {"policy": "ignore"})
    too_large = httpx.post(url, json={**ASK, "padding": "x" * 30_000}, headers=AUTH, timeout=30)
    bad_conversation = chat(server, headers={"X-Factdebate-Conversation-Id": "a b/c"})
    for reply, status in [(wrong_key, 401), (no_key, 401), (bad_option, 422), (too_large, 413),
                          (bad_conversation, 422)]:
        assert reply.status_code == status and HEADER not in reply.headers, (status, reply.headers)
        assert ID.match(reply.headers["X-Request-Id"]), (status, reply.headers)
        assert reply.headers["X-Check-Not-Kept"] == "the request was refused: no check ran"
        kept = httpx.get(f"{server.url}/v1/checks/{reply.headers['X-Request-Id']}", headers=AUTH, timeout=30)
        assert kept.status_code == 404  # which is why no check id was handed out
    ids = {r.headers["X-Request-Id"] for r in (wrong_key, no_key, bad_option, too_large)}
    assert len(ids) == 4  # one per request
    assert httpx.get(f"{server.url}/v1/models", headers=AUTH, timeout=30).headers.get(HEADER) is None


def test_a_wrong_key_is_openais_401(guard: Start) -> None:
    server = guard()
    reply = httpx.post(f"{server.url}/v1/chat/completions", json=ASK, headers={"Authorization": "Bearer nope"},
                       timeout=30)
    error = reply.json()["error"]
    assert reply.status_code == 401 and reply.headers["WWW-Authenticate"] == "Bearer"
    assert error["type"] == "invalid_request_error" and error["code"] == "invalid_api_key"
    assert "API key" in error["message"]
    sdk = openai.OpenAI(base_url=f"{server.url}/v1", api_key="nope", max_retries=0, timeout=30)
    with pytest.raises(openai.AuthenticationError) as raised:
        sdk.chat.completions.create(model="scripted", messages=ASK["messages"])
    assert "API key" in str(raised.value)


def test_a_conversations_checks_are_listed_newest_first_to_their_owner_only(guard: Start) -> None:
    server = guard()
    first = chat(server, {"conversation_id": "conv-1"}).headers[HEADER]
    chat(server, {"conversation_id": "conv-2"})
    chat(server)  # no conversation: listed under none
    second = chat(server, headers={"X-Factdebate-Conversation-Id": "conv-1"}).headers[HEADER]
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30,
                      json={**ASK, "stream": True, "factdebate": {**FAST, "conversation_id": "conv-1"}}) as reply:
        third = reply.headers[HEADER]
        reply.read()
    listed = httpx.get(f"{server.url}/v1/checks", params={"conversation_id": "conv-1"}, headers=AUTH, timeout=30)
    page = listed.json()
    assert listed.status_code == 200 and [c["id"] for c in page["checks"]] == [third, second, first]
    assert all(c["kind"] == "guard" and c["verdict"]["original_text"] == ANSWER for c in page["checks"])
    assert page["next_before"] is None
    # Pages: two, then the rest from the last one's id.
    top = httpx.get(f"{server.url}/v1/checks", params={"conversation_id": "conv-1", "limit": 2}, headers=AUTH).json()
    assert [c["id"] for c in top["checks"]] == [third, second] and top["next_before"] == second
    rest = httpx.get(f"{server.url}/v1/checks", headers=AUTH,
                     params={"conversation_id": "conv-1", "limit": 2, "before": second}).json()
    assert [c["id"] for c in rest["checks"]] == [first] and rest["next_before"] is None
    # Another key sees nothing of them, by the list or by the id.
    theirs = httpx.get(f"{server.url}/v1/checks", params={"conversation_id": "conv-1"}, headers=OTHER).json()
    assert theirs["checks"] == []
    assert httpx.get(f"{server.url}/v1/checks/{first}", headers=OTHER).status_code == 404
    assert httpx.get(f"{server.url}/v1/checks", headers=OTHER,
                     params={"conversation_id": "conv-1", "before": second}).json()["checks"] == []


@pytest.mark.parametrize("params", [{}, {"conversation_id": "a b"}, {"conversation_id": "x" * 200},
                                    {"conversation_id": "c", "limit": 0}, {"conversation_id": "c", "limit": 101},
                                    {"conversation_id": "c", "limit": "many"},
                                    {"conversation_id": "c", "before": "not-an-id"}])
def test_the_lists_query_is_checked(guard: Start, params: dict[str, Any]) -> None:
    server = guard()
    reply = httpx.get(f"{server.url}/v1/checks", params=params, headers=AUTH, timeout=30)
    assert reply.status_code == 422 and "detail" in reply.json()
    assert httpx.get(f"{server.url}/v1/checks", params={"conversation_id": "c"}, timeout=30).status_code == 401


def test_the_header_and_the_option_must_name_one_conversation(guard: Start) -> None:
    server = guard()
    reply = chat(server, {"conversation_id": "conv-1"}, headers={"X-Factdebate-Conversation-Id": "conv-2"})
    assert reply.status_code == 422 and "two conversations" in reply.json()["error"]["message"]
    same = chat(server, {"conversation_id": "conv-1"}, headers={"X-Factdebate-Conversation-Id": "conv-1"})
    assert same.status_code == 200
