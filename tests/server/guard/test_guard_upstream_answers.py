"""What a streamed chat request's caller receives whatever the upstream on loopback answers it with: Server-Sent
Events holding a byte that is not UTF-8 beside the operator's upstream key, comments and ``data:`` lines that are
not JSON, a ``text/plain`` or binary body, or one JSON completion (an upstream that ignores ``stream``). The
caller never reads the key or the host (asserted on the raw bytes it gets), never an upstream byte that is no
chunk; a body that is no stream is a 502 holding none of it; a whole completion is checked and arrives as
Server-Sent Events. A key written reversed or in capitals is masked, and so is one written in two halves with
text between them (in one reply, or across the stream's frames); a half alone arrives as it was written."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.app import create_app
from tests.guard.support import script
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build

UPSTREAM_KEY = "sk-upstream-Qx81Zw27Lm55Rt09"  # the key the guard sends its upstream: held by the process
HOST = "gw-node-3.corp.internal:8443"  # named by a URL in the environment
PARIS = "Paris is the capital of France."
HEAD = {"id": "chatcmpl-answers", "created": 1700000000, "model": "answers"}
CHAT = {"model": "answers", "stream": True, "messages": [{"role": "user", "content": "Where is Paris?"}]}


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    body = {**HEAD, "object": "chat.completion.chunk", **extra,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def completion(content: str) -> dict[str, Any]:
    return {**HEAD, "object": "chat.completion", "usage": {"prompt_tokens": 5, "completion_tokens": 7,
                                                           "total_tokens": 12},
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


def upstream(body: bytes, media_type: str, plain: str = PARIS) -> FastAPI:
    """An upstream that answers a streamed request with ``body`` as ``media_type`` (a plain one with ``plain``
    as a completion)."""
    app = FastAPI()

    @app.post("/v1/chat/completions", response_model=None)
    async def complete(request: Request) -> Response:
        if not (await request.json()).get("stream"):
            return JSONResponse(completion(plain))
        return Response(body, media_type=media_type)

    return app


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The guard in front of an upstream answering ``body`` as ``media_type`` (its checker scripted: the one
    claim, Paris, is supported)."""
    started: list[LiveServer] = []

    def start(body: bytes, media_type: str = "text/event-stream", plain: str = PARIS) -> LiveServer:
        model = LiveServer(upstream(body, media_type, plain)).__enter__()
        started.append(model)
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        monkeypatch.setenv("FACTDEBATE_GUARD_UPSTREAM_KEY", UPSTREAM_KEY)
        monkeypatch.setenv("GATEWAY_URL", f"https://{HOST}/v1")
        backend = ScriptedBackend(script(claims=[PARIS]))
        server = LiveServer(create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                                       build=lambda settings: offline_build(settings, backend),
                                       rate_limit_per_minute=0)).__enter__()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.__exit__()


def post(server: LiveServer, policy: str = "annotate", stream: bool = True) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
        **CHAT, "stream": stream, "factdebate": {"tier": "fast", "method": "single", "policy": policy}})


def assert_private(raw: bytes) -> None:
    for piece in (UPSTREAM_KEY, UPSTREAM_KEY[::-1], UPSTREAM_KEY.upper(), UPSTREAM_KEY[:14], UPSTREAM_KEY[14:],
                  HOST, "gw-node-3", "corp.internal"):
        assert piece.encode() not in raw, (piece, raw)
    # the port as a number of its own: a random check id's hex may hold its digits
    assert not re.search(rb"(?<![0-9A-Za-z])8443(?![0-9A-Za-z])", raw), raw


def streamed(reply: httpx.Response) -> tuple[str, list[dict[str, Any]]]:
    """The text a streaming client reads (the deltas' content joined) and the chunks; the stream ends in [DONE]."""
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/event-stream")
    lines = [line[6:] for line in reply.text.splitlines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    chunks = [json.loads(line) for line in lines[:-1]]
    return "".join((c["choices"][0]["delta"].get("content") or "") for c in chunks if c.get("choices")), chunks


def test_a_byte_that_is_not_utf8_beside_the_key_hides_neither_key_nor_host(guard: Any) -> None:
    """One 0xFF byte in a comment line, and in a chunk's field the guard passes on as the upstream wrote it."""
    leak = f" {UPSTREAM_KEY} at {HOST} ".encode()
    body = (b": \xff" + leak + b"\n\n" + chunk({"role": "assistant", "content": ""})[:-3]
            + b', "x": "\xff' + leak + b'"}\n\n' + chunk({"content": PARIS}) + chunk({}, "stop") + b"data: [DONE]\n\n")
    reply = post(guard(body))
    text, chunks = streamed(reply)
    assert_private(reply.content)
    assert b"\xff *** at the operator's host " in reply.content  # the upstream's other bytes as it wrote them
    assert text == PARIS and chunks[-1]["factdebate"]["claims"][0]["label"] == "SUPPORTS"


def test_comments_become_the_guards_keep_alive_and_data_that_is_not_json_is_dropped(guard: Any) -> None:
    body = (b": OPENROUTER PROCESSING\n\n" + chunk({"role": "assistant", "content": PARIS})
            + b"data: not json at all\n\n" + b"event: ping\ndata: 42\n\n" + chunk({}, "stop") + b"data: [DONE]\n\n")
    reply = post(guard(body))
    text, _ = streamed(reply)
    assert text == PARIS
    for piece in (b"OPENROUTER", b"not json", b"event: ping", b"data: 42"):
        assert piece not in reply.content, reply.content
    assert reply.content.startswith(b": checking\n\n")  # the upstream's comment, as the guard's own


@pytest.mark.parametrize(("body", "media_type"), [
    (f"Paris is the capital of France. My key is {UPSTREAM_KEY} at {HOST}.".encode(), "text/plain"),
    (b"\x00\xff\xfe" + UPSTREAM_KEY.encode() + b"\x80", "application/octet-stream"),
    (chunk({"content": PARIS}) + b"data: [DONE]\n\n", "text/html"),
])
@pytest.mark.parametrize("policy", ["annotate", "block"])
def test_a_streamed_answer_that_is_no_event_stream_is_a_502_without_its_bytes(
        guard: Any, body: bytes, media_type: str, policy: str) -> None:
    reply = post(guard(body, media_type), policy)
    assert reply.status_code == 502, reply.text
    error = reply.json()["error"]
    assert error["code"] == "upstream_not_sse"
    assert error["message"].startswith("the upstream model did not answer with Server-Sent Events")
    assert_private(reply.content)
    assert b"Paris" not in reply.content and b"\xff" not in reply.content


@pytest.mark.parametrize("policy", ["annotate", "flag", "hold", "block"])
def test_a_json_completion_to_a_stream_request_is_checked_and_arrives_as_events(guard: Any, policy: str) -> None:
    reply = post(guard(json.dumps(completion(PARIS)).encode(), "application/json"), policy)
    text, chunks = streamed(reply)
    assert text.startswith(PARIS), text
    assert all(c["object"] == "chat.completion.chunk" and c["id"] == HEAD["id"] for c in chunks)
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]] \
        == ["stop"]
    assert any(c.get("usage") == completion(PARIS)["usage"] for c in chunks)
    result = chunks[-1]["factdebate"]
    assert result["policy"] == policy and result["claims"][0]["label"] == "SUPPORTS"


def test_a_key_reversed_or_in_capitals_is_masked(guard: Any) -> None:
    leaky = f"{PARIS} Backwards: {UPSTREAM_KEY[::-1]}. Loud: {UPSTREAM_KEY.upper()}. Quiet: {UPSTREAM_KEY.lower()}."
    reply = post(guard(json.dumps(completion(leaky)).encode(), "application/json"))
    text, _ = streamed(reply)
    assert_private(reply.content)
    assert UPSTREAM_KEY.lower().encode() not in reply.content
    assert text.startswith(PARIS) and "Backwards: ***. Loud: ***. Quiet: ***." in text, text


HALF = len(UPSTREAM_KEY) // 2
IN_HALVES = f"{PARIS} The key begins {UPSTREAM_KEY[:HALF]}, then after a word or two,\nit ends {UPSTREAM_KEY[HALF:]}."


def stream_of(*texts: str) -> bytes:
    """An upstream's stream that writes ``texts`` one chunk each (a role first, a finish and [DONE] last)."""
    return (chunk({"role": "assistant", "content": ""}) + b"".join(chunk({"content": t}) for t in texts)
            + chunk({}, "stop") + b"data: [DONE]\n\n")


@pytest.mark.parametrize("policy", ["annotate", "flag", "hold", "block"])
def test_a_key_in_two_halves_with_text_between_reaches_the_caller_masked(guard: Any, policy: str) -> None:
    """The halves in one plain reply, and in two frames of a stream with a frame of text between them."""
    first, between, last = IN_HALVES.partition(", then after a word or two,\n")
    server = guard(stream_of(first[:-HALF], first[-HALF:], between, last), plain=IN_HALVES)
    masked = f"{PARIS} The key begins ***, then after a word or two,\nit ends ***."
    streamed_reply = post(server, policy)
    text, _ = streamed(streamed_reply)
    plain_reply = post(server, policy, stream=False)
    assert plain_reply.status_code == 200, plain_reply.text
    for raw in (streamed_reply.content, plain_reply.content):
        assert_private(raw)
    assert text.startswith(masked), text
    assert plain_reply.json()["choices"][0]["message"]["content"].startswith(masked), plain_reply.text


@pytest.mark.parametrize("policy", ["annotate", "hold"])
def test_a_half_of_the_key_alone_arrives_as_it_was_written(guard: Any, policy: str) -> None:
    """A text that holds a string the shape of one half (a ticket's number, say) and never the other half."""
    ticket = f"{PARIS} Ticket {UPSTREAM_KEY[HALF:]} is closed."
    server = guard(stream_of(ticket[:40], ticket[40:]), plain=ticket)
    text, _ = streamed(post(server, policy))
    plain_reply = post(server, policy, stream=False)
    assert text.startswith(ticket), text
    assert plain_reply.json()["choices"][0]["message"]["content"].startswith(ticket), plain_reply.text


def test_a_json_error_or_a_body_without_choices_is_a_502_that_names_no_address(guard: Any) -> None:
    error = {"error": {"message": f"quota exceeded for {UPSTREAM_KEY} at {HOST}", "type": "insufficient_quota"}}
    reply = post(guard(json.dumps(error).encode(), "application/json"))
    assert reply.status_code == 502 and "quota exceeded" in reply.json()["error"]["message"]
    assert_private(reply.content)
    reply = post(guard(b'{"object": "list"}', "application/json"))
    assert reply.status_code == 502 and reply.json()["error"]["message"].endswith("has no choices")
