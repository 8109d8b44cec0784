"""A secret streamed in pieces reaches no caller: an upstream on loopback that writes its answer ONE CHARACTER A
FRAME (the operator's upstream key, the checker's key URL-encoded, in hex and inside a base64 payload, an internal
host, a Bearer token) delivers none of it under any policy (annotate, flag, block, rewrite, hold), asserted on the
text the HTTP client reads (its deltas joined) and on the raw body. Every chunk the caller gets is still an OpenAI
``chat.completion.chunk`` of the upstream's id, and the answer's last text comes before the chunk that ends it.
Prose with nothing secret in it arrives exactly as written. The same at the chunk level for the relay of a reply
the service had no room to check, and for ``factdebate.aguard_stream``."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

import factdebate as fd
from factdebate.guard_engine.types import GuardResult, Policy, ResolvedGuardOptions
from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.app import create_app
from factdebate.server.guard.openai_chat.overloaded_chunks import OverloadedChunks
from tests.guard.support import script
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build
from tests.server.secret_forms import gives_away, written

UPSTREAM_KEY = "sk-upstream-Qx81Zw27Lm55Rt09"  # the key the guard sends its upstream: held by the process
CHECKER_KEY = "Op3r/t0r+Key=Secret2026"  # the checker's key, from the environment
HOST = "gw-node-3.corp.internal:8443"  # named by a URL in the environment
BEARER = "tok9.abc-def-5566"  # no one's held key: masked by its shape after "Bearer "
PARIS = "Paris is the capital of France."
LEAKY = (f"My key is {UPSTREAM_KEY} and my host is {HOST}. {PARIS} The checker's key is {CHECKER_KEY}, or "
         f"{written(CHECKER_KEY)['url']} in a query, {written(UPSTREAM_KEY)['hex']} in hex, "
         f"{written(CHECKER_KEY)['base64 at offset 1']} in a payload, {written(HOST)['base64 alone']} as a "
         f"header, and Authorization: Bearer {BEARER} to call it.")
PROSE = ("Basic principles of production matter. The bearer of bad news named check "
         "3f2a9c0d1e4b5a6c7d8e9f0011223344, see https://en.wikipedia.org/wiki/Paris for more. " + PARIS)
POLICIES = ["annotate", "flag", "block", "rewrite", "hold"]
CHUNK_ID = "chatcmpl-one-char"


def one_char_upstream(answer: str) -> FastAPI:
    """An OpenAI-compatible model that streams ``answer`` one character a frame (a role chunk first, a finish
    chunk and [DONE] last), and answers a plain request (a revision's, say) with it whole."""
    app = FastAPI()

    @app.post("/v1/chat/completions", response_model=None)
    async def complete(request: Request) -> JSONResponse | StreamingResponse:
        body = await request.json()
        head = {"id": CHUNK_ID, "created": 1700000000, "model": "one-char"}
        if not body.get("stream"):
            return JSONResponse({**head, "object": "chat.completion", "choices": [{
                "index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]})

        def frame(delta: dict[str, Any], finish: str | None = None) -> bytes:
            chunk = {**head, "object": "chat.completion.chunk",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            return f"data: {json.dumps(chunk)}\n\n".encode()

        async def frames() -> AsyncIterator[bytes]:
            yield frame({"role": "assistant", "content": ""})
            for char in answer:
                yield frame({"content": char})
            yield frame({}, "stop")
            yield b"data: [DONE]\n\n"

        return StreamingResponse(frames(), media_type="text/event-stream")

    return app


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Starts the one-character upstream with ``answer`` and the guard in front of it (its checker scripted: the
    answer's one claim, Paris, is supported, so every policy shows the answer)."""
    started: list[LiveServer] = []

    def start(answer: str) -> LiveServer:
        model = LiveServer(one_char_upstream(answer)).__enter__()
        started.append(model)
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        monkeypatch.setenv("FACTDEBATE_GUARD_UPSTREAM_KEY", UPSTREAM_KEY)
        monkeypatch.setenv("CHECKER_API_KEY", CHECKER_KEY)
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


def chat(server: LiveServer, policy: str, stream: bool) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
        "model": "one-char", "stream": stream, "messages": [{"role": "user", "content": "Where is the gateway?"}],
        "factdebate": {"tier": "fast", "method": "single", "policy": policy}})


def received(reply: httpx.Response) -> tuple[str, list[dict[str, Any]]]:
    """The text a streaming client reads (the deltas' content joined) and the chunks, checked to be the
    upstream's: OpenAI chunks of its id, ending with [DONE], no text after the chunk that ends the answer."""
    assert reply.status_code == 200, reply.text
    lines = [line[6:] for line in reply.text.splitlines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    chunks = [json.loads(line) for line in lines[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["id"] == CHUNK_ID for c in chunks), chunks[:3]
    texts = [(c["choices"][0]["delta"].get("content") or "") if c["choices"] else "" for c in chunks]
    ends = [i for i, c in enumerate(chunks) if c["choices"] and c["choices"][0].get("finish_reason")]
    assert len(ends) == 1 and not any(texts[ends[0]:]), "text came with or after the answer's end"
    return "".join(texts), chunks


def assert_private(where: str, text: str) -> None:
    for secret in (UPSTREAM_KEY, CHECKER_KEY, HOST):
        assert gives_away(secret, text) is None, (where, secret, gives_away(secret, text), text)
    for piece in (BEARER, "gw-node-3", "corp.internal"):
        assert piece not in text, (where, piece, text)
    # the port as a number of its own: a random check id's hex ("...557844372a...") may hold its digits
    assert not re.search(r"(?<![0-9A-Za-z])8443(?![0-9A-Za-z])", text), (where, "8443", text)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_secret_streamed_one_character_a_frame_reaches_no_caller(guarded: Any, policy: str) -> None:
    server = guarded(LEAKY)
    text, chunks = received(chat(server, policy, stream=True))
    reply = chat(server, policy, stream=False)
    for where, shown in (("streamed text", text), ("plain reply", reply.text)):
        assert_private(where, shown)
        assert "My key is *** and my host is the operator's host." in shown, shown
        assert PARIS in shown
    assert chunks[-1]["factdebate"]["claims"][0]["label"] == "SUPPORTS"


def test_the_raw_stream_holds_no_piece_of_a_secret_under_annotate(guarded: Any) -> None:
    """The frames themselves, not only their joined text: a key cut across frames is masked before it is
    framed, so no frame holds a piece of it that a client could join with the next."""
    server = guarded(LEAKY)
    reply = chat(server, "annotate", stream=True)
    _, chunks = received(reply)
    assert_private("raw body", reply.text)
    for chunk in chunks[1:]:  # (the upstream's first chunk has its role and no text, as it came)
        for choice in chunk["choices"]:
            if set(choice["delta"]) == {"content"} and not choice["finish_reason"]:
                assert choice["delta"]["content"], "a chunk with all its text held back was sent"


@pytest.mark.parametrize("policy", ["annotate", "flag", "hold"])
def test_prose_with_nothing_secret_arrives_as_it_was_written(guarded: Any, policy: str) -> None:
    server = guarded(PROSE)
    text, _ = received(chat(server, policy, stream=True))
    assert text.startswith(PROSE), text


def _options(policy: Policy) -> ResolvedGuardOptions:
    return ResolvedGuardOptions(policy=policy, deadline_s=5, tier="fast", max_tier="fast", method="single",
                                evidence=[], evidence_mode="retrieved", on_unchecked="pass", conversation_id=None)


def test_an_unchecked_reply_relayed_under_overload_is_scrubbed_across_chunks_too() -> None:
    """openai_chat/overloaded_chunks.py (the relay of a reply the service had no room to check): its chunks, sent as
    they come under annotate, carry the answer with the key masked, the rest before the ending. The secrets are
    remembered here as the service remembers them at start, so the test holds whichever test ran before it."""
    from factdebate.util.scrub import remember_endpoints, remember_secrets

    remember_secrets([UPSTREAM_KEY, CHECKER_KEY])
    remember_endpoints([f"https://{HOST}/v1"])
    chunks = OverloadedChunks(_options("annotate"), keep=10_000)
    head = {"id": CHUNK_ID, "object": "chat.completion.chunk", "created": 0, "model": "m"}
    sent: list[dict[str, Any]] = []
    ended: list[dict[str, Any]] = []
    for delta, finish in [({"role": "assistant", "content": ""}, None), *(({"content": c}, None) for c in LEAKY),
                          ({}, "stop")]:
        chunk = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        fate = chunks.feed(chunk, len(json.dumps(chunk)))
        if fate == "send":
            out = chunks.out(chunk)
            sent += [chunk] if out is None else out
        elif fate == "end":
            ended.append(chunk)
    result = GuardResult.model_construct(text=LEAKY)
    sent += chunks.closing(result, ended)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in sent if c["choices"])
    assert_private("overloaded stream", text)
    assert text.startswith("My key is *** and my host is the operator's host.") and PARIS in text
    assert sent[-1]["choices"][0]["finish_reason"] == "stop" and not sent[-1]["choices"][0]["delta"]


@pytest.mark.parametrize("policy", ["annotate", "flag", "hold", "block"])
async def test_aguard_stream_shows_no_secret_given_one_character_a_delta(policy: Policy,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.util.scrub import remember_endpoints, remember_secrets

    remember_secrets([UPSTREAM_KEY, CHECKER_KEY])
    remember_endpoints([f"https://{HOST}/v1"])

    async def deltas() -> AsyncIterator[str]:
        for char in LEAKY:
            yield char

    outs = [out async for out in fd.aguard_stream(
        deltas(), policy=policy, tier="fast", method="single", llm="scripted:agree", search="local", cache=False,
        evidence=["Paris is the capital of France."], evidence_mode="given",
        backends={"debater": ScriptedBackend(script(claims=[PARIS]))})]
    shown = "".join(out.text for out in outs if out.kind == "text")
    assert_private(f"aguard_stream {policy}", shown)
    assert PARIS in shown and outs[-1].kind == "result"


def test_the_basic_credential_of_a_bearer_scheme_is_held_until_its_token_is_whole() -> None:
    """A key-shaped token or a Basic credential cut right after its scheme word: the scheme waits with it."""
    from factdebate.server.guard.openai_chat.chunk_scrub import ChunkScrub

    scrub = ChunkScrub()
    credential = base64.b64encode(b"ops:hunter22").decode()
    text = f"send Authorization: Basic {credential} now"
    out = [scrub.delta({"content": c}).get("content", "") for c in text]
    out.append(scrub.rest().get("content", ""))
    assert "".join(out) == "send Authorization: Basic *** now"
