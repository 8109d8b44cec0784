"""``POST /v1/chat/completions`` through the official ``openai`` SDK: a scripted upstream model over HTTP, the
guard as ``factdebate serve`` runs it, scripted checker models (deterministic verdicts), plain and streamed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from factdebate.server.app import create_app
from tests.guard.support import SlowBackend, script
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, closed_port, offline_build
from tests.server.guard_support import ANSWER, REVISE_MARK, REVISED, Upstream, upstream_app, words_of

UPSTREAM_KEY = "upstream-secret-key-0123"
FAST = {"tier": "fast", "method": "single"}  # one scripted call per claim and tier
ROME = "The Eiffel Tower is in Rome."
PARIS = "Paris is the capital of France."

Guard = Callable[..., tuple[LiveServer, Upstream]]


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    """Starts a scripted upstream and the guard in front of it; both stop with the test."""
    started: list[LiveServer] = []

    def start(upstream: Upstream | None = None, backend: Any = None, upstream_url: str | None = None,
              **fields: Any) -> tuple[LiveServer, Upstream]:
        upstream = upstream or Upstream()
        model = LiveServer(upstream_app(upstream)).__enter__()
        started.append(model)
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", upstream_url or f"{model.url}/v1")
        monkeypatch.setenv("FACTDEBATE_GUARD_UPSTREAM_KEY", UPSTREAM_KEY)
        from factdebate.llm.scripted import ScriptedBackend

        backend = backend or ScriptedBackend(script(claims=[PARIS, ROME]))
        app = create_app(**{"api_keys": [KEY], "defaults": PLAIN, "db_path": tmp_path / "service.sqlite",
                            "build": lambda settings: offline_build(settings, backend),
                            "rate_limit_per_minute": 0, **fields})
        server = LiveServer(app).__enter__()
        started.append(server)
        return server, upstream

    yield start
    for server in reversed(started):
        server.__exit__()


def client(server: LiveServer, **kw: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0, timeout=30, **kw)


def ask(server: LiveServer, factdebate: dict[str, Any] | None = None, **kw: Any) -> Any:
    return client(server).chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": "Tell me about Paris."}],
        extra_body={"factdebate": {**FAST, **(factdebate or {})}}, **kw)


def test_the_sdk_gets_the_upstreams_answer_with_each_claims_verdict_and_place(guard: Guard) -> None:
    server, upstream = guard()
    raw = client(server).chat.completions.with_raw_response.create(
        model="scripted", messages=[{"role": "user", "content": "Tell me about Paris."}],
        extra_body={"factdebate": FAST})
    completion = raw.parse()
    # the default policy, flag: the upstream's answer, then the footnote on the refuted claim, in the text itself
    content = completion.choices[0].message.content
    assert content.startswith(ANSWER + "\n\n---\nFact check:\n- \"The Eiffel Tower is in Rome.\" is contradicted")
    assert raw.headers["X-Factdebate-Action"] == "flagged" and raw.headers["X-Factdebate-Refuted"] == "1"
    found = completion.model_extra["factdebate"]
    claims = {c["claim"]: c for c in found["claims"]}
    assert words_of(claims[PARIS], ANSWER) == PARIS and words_of(claims[ROME], ANSWER) == ROME
    assert claims[PARIS]["label"] == "SUPPORTS" and claims[PARIS]["status"] == "checked"
    # The passage found ("The Eiffel Tower opened in 1889.") does not say Paris: the corrector's "The Eiffel Tower is
    # in Paris." is not shown as grounded in it, and the claim says why (guard_engine/correct.py).
    assert claims[ROME]["label"] == "REFUTES" and claims[ROME]["correction"] is None
    assert "its quote does not say paris" in claims[ROME]["correction_note"]
    assert claims[PARIS]["evidence"][0]["quote"] and claims[PARIS]["tier"] == "fast"
    assert found["label"] == "REFUTES" and found["action_taken"] == "flagged" and not found["degraded"]
    assert found["policy"] == "flag" and found["answer_format"] == "text"
    assert found["usage"]["model_calls"] >= 3 and "original_text" not in found
    # The kept check: its id in the header and the result, reopened as kind "guard" with both texts.
    check_id = raw.headers["X-Factdebate-Check-Id"]
    assert found["check_id"] == check_id
    kept = httpx.get(f"{server.url}/v1/checks/{check_id}", headers=AUTH).json()
    assert kept["kind"] == "guard" and kept["verdict"]["original_text"] == ANSWER and kept["calls"]
    # The operator's key went to the upstream, never the caller's; the guard's options did not go at all.
    assert upstream.headers[0]["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert KEY not in json.dumps(upstream.headers) and "factdebate" not in upstream.requests[0]


def test_the_sdk_streams_the_answer_then_the_verdicts_in_a_last_chunk(guard: Guard) -> None:
    server, _ = guard(Upstream(token_delay=0.03))
    stream = client(server).chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": "Tell me about Paris."}], stream=True,
        extra_body={"factdebate": FAST}, extra_headers={"X-Factdebate-Verdicts": "each"})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith(ANSWER + "\n\n---\nFact check:\n") and ROME in text[len(ANSWER):]  # flag: the default
    assert chunks[-1].choices == [] and "factdebate" in chunks[-1].model_extra
    found = chunks[-1].model_extra["factdebate"]
    assert {words_of(c, text) for c in found["claims"]} == {PARIS, ROME}
    assert {c["claim"]: c["label"] for c in found["claims"]} == {PARIS: "SUPPORTS", ROME: "REFUTES"}
    each = [c.model_extra["factdebate_claim"] for c in chunks if "factdebate_claim" in (c.model_extra or {})]
    assert sorted(c["claim"] for c in each) == sorted([PARIS, ROME])
    # Sentences are checked while the answer arrives: the first claim's verdict came before its last words (the
    # footnote, after them, comes once the check is done).
    last_text = max(i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.content
                    and not c.choices[0].delta.content.startswith("\n\n---\nFact check:"))
    first_verdict = min(i for i, c in enumerate(chunks) if "factdebate_claim" in (c.model_extra or {}))
    assert first_verdict < last_text


def test_a_stream_whose_first_chunk_has_text_arrives_in_order(guard: Guard) -> None:
    server, _ = guard(Upstream(role_chunk=False))  # every chunk at once: the first is read with several more
    for _ in range(3):
        chunks = list(ask(server, stream=True))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text.startswith(ANSWER + "\n\n---\nFact check:\n")  # the answer, then flag's footnote


def test_a_client_that_leaves_stops_the_upstream(guard: Guard) -> None:
    server, upstream = guard(Upstream(answer="Paris is in France. " * 150, token_delay=0.01))
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30, json={
            "model": "m", "stream": True, "messages": [{"role": "user", "content": "Hi"}],
            "factdebate": FAST}) as reply:
        for line in reply.iter_lines():
            if '"content": "Paris' in line:
                break
    # The guard hung up on the upstream too: its stream was closed before its end (453 chunks, 4.5 s at a
    # word per 10 ms), waited for as an event rather than counted after a sleep.
    assert upstream.cut.wait(30), f"the upstream's stream was not closed ({upstream.sent} chunks sent)"
    assert upstream.sent < 453, upstream.sent


def test_a_claim_not_decided_within_the_deadline_is_unchecked_never_supported(guard: Guard) -> None:
    def fast(claim: str) -> str:  # the window's call gives no verdict of Paris: its own call is asked
        return "no idea" if claim == PARIS else json.dumps({"label": "REFUTES", "passage": 1, "quote": ""})

    backend = SlowBackend(script(claims=[PARIS, ROME], fast=fast), {f"Claim: {PARIS}": 30.0,
                                                                    f"Statement: {PARIS}": 30.0})
    server, _ = guard(backend=backend)
    # Paris's own checks wait 30 s, so they miss any deadline; the deadline must still leave the extraction time
    # to list the claims: 0.5 s did not on a loaded machine (Paris was not listed at all, load 12-18).
    for stream in (False, True):
        if stream:
            found = list(ask(server, {"deadline_s": 2.0}, stream=True))[-1].model_extra["factdebate"]
        else:
            found = ask(server, {"deadline_s": 2.0}).model_extra["factdebate"]
        listed = {c["claim"]: c for c in found["claims"]}
        assert PARIS in listed, found
        slow = listed[PARIS]
        assert slow["status"] == "unchecked" and slow["label"] is None, slow
        assert found["label"] != "SUPPORTS" and found["deadline_s"] == 2.0


@pytest.mark.parametrize("stream", [False, True])
def test_policies_flag_rewrite_and_block(guard: Guard, stream: bool) -> None:
    server, upstream = guard()

    def answer(policy: str, **extra: Any) -> tuple[str, dict[str, Any], str | None]:
        if not stream:
            done = ask(server, {"policy": policy, **extra})
            return done.choices[0].message.content or "", done.model_extra["factdebate"], \
                done.choices[0].finish_reason
        chunks = list(ask(server, {"policy": policy, **extra}, stream=True))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        ends = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
        last_text = max(i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.content)
        assert all(i > last_text for i, c in enumerate(chunks) if c.choices and c.choices[0].finish_reason)
        return text, chunks[-1].model_extra["factdebate"], ends[-1] if ends else None

    text, found, _ = answer("flag")
    assert found["action_taken"] == "flagged" and text.startswith(ANSWER) and "Fact check:" in text
    assert ROME in text[len(ANSWER):]
    text, found, _ = answer("rewrite")
    assert found["action_taken"] == "rewritten" and text == REVISED
    revise = upstream.requests[-1]["messages"]
    assert revise[-2] == {"role": "assistant", "content": ANSWER} and REVISE_MARK in revise[-1]["content"]
    assert ROME in revise[-1]["content"]
    text, found, finish = answer("block")
    assert found["action_taken"] == "blocked" and ANSWER not in text and ROME in text
    assert finish == "content_filter"


@pytest.mark.parametrize("stream", [False, True])
def test_block_can_end_as_an_ordinary_answer(guard: Guard, stream: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """guard.block_finish_reason: stop: the refusal ends like any answer, for clients (OpenClaw) that report
    content_filter as a failed run; the refusal's text is the same."""
    monkeypatch.setenv("FACTDEBATE_GUARD__BLOCK_FINISH_REASON", "stop")
    server, _ = guard()
    if stream:
        chunks = list(ask(server, {"policy": "block"}, stream=True))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
        found = chunks[-1].model_extra["factdebate"]
    else:
        done = ask(server, {"policy": "block"})
        text, finish, found = done.choices[0].message.content or "", [done.choices[0].finish_reason], \
            done.model_extra["factdebate"]
    assert found["action_taken"] == "blocked" and ANSWER not in text and ROME in text
    assert finish == ["stop"]


def test_tool_calls_pass_unchecked_and_tool_messages_are_evidence(guard: Guard) -> None:
    from factdebate.llm.scripted import ScriptedBackend

    backend = ScriptedBackend(script(claims=[PARIS, ROME]))
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    server, _ = guard(Upstream(tool_calls=[call]), backend=backend)
    done = client(server).chat.completions.create(
        model="scripted", extra_body={"factdebate": {**FAST, "evidence_mode": "given", "evidence": [
            {"title": "Guide", "text": "The Louvre and the Eiffel Tower are landmarks of Paris.", "url": None}]}},
        messages=[{"role": "user", "content": "Where is the tower?"},
                  {"role": "assistant", "content": None, "tool_calls": [call]},
                  {"role": "tool", "tool_call_id": "call_1", "content": "Atlas: the Eiffel Tower stands in Paris."}])
    assert done.choices[0].message.tool_calls[0].function.name == "lookup"
    found = done.model_extra["factdebate"]
    assert any("tool call" in item and "lookup" in item for item in found["passed_through"])
    fast = [m[0]["content"].split("\nAnswer:\n")[0] for info, m in backend.calls if info.prompt == "guard_window"]
    # The bot's passages, sent and from its tool, are what the checker read (evidence_mode given: nothing else).
    assert fast and all("the Eiffel Tower stands in Paris" in p and "landmarks of Paris" in p for p in fast)
    assert not any("Paris landmarks" in p for p in fast)  # the service's own search tool was not used


def test_a_streamed_tool_call_passes_unchecked(guard: Guard) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    server, _ = guard(Upstream(answer="", tool_calls=[call]))
    chunks = list(client(server).chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": "Where is the tower?"}], stream=True,
        extra_body={"factdebate": FAST}, extra_headers={"X-Factdebate-Verdicts": "each"}))
    calls = [c.choices[0].delta.tool_calls for c in chunks if c.choices and c.choices[0].delta.tool_calls]
    assert calls and calls[0][0].function.name == "lookup"  # type: ignore[union-attr]
    found = chunks[-1].model_extra["factdebate"]
    assert found["claims"] == [] and found["action_taken"] == "none"
    assert any("lookup" in item for item in found["passed_through"])


def test_errors_come_in_openais_shape(guard: Guard) -> None:
    server, upstream = guard(Upstream(fail=(429, {"error": {"message": "slow down", "type": "rate_limit",
                                                             "param": None, "code": "rate_limited"}})))
    with pytest.raises(openai.RateLimitError) as caught:
        ask(server)
    assert caught.value.status_code == 429 and caught.value.body["message"] == "slow down"  # type: ignore[index]
    with pytest.raises(openai.RateLimitError):
        ask(server, stream=True)
    upstream.fail = None
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{server.url}/v1", api_key="wrong-key-0123456789", max_retries=0).chat.completions \
            .create(model="scripted", messages=[{"role": "user", "content": "Hi"}])
    # A session of any length is answered: 201 messages used to be refused for good.
    long_session = [{"role": "user", "content": "Hi"}] * 201
    assert client(server).chat.completions.create(model="scripted", messages=long_session).choices  # type: ignore[arg-type]
    with pytest.raises(openai.UnprocessableEntityError, match="control character"):
        client(server).chat.completions.create(model="scripted", messages=[{"role": "user", "content": "Hi\x07"}])
    with pytest.raises(openai.UnprocessableEntityError, match="tier"):
        ask(server, {"tier": "ultra"})


def test_an_unreachable_upstream_is_a_502_and_no_upstream_a_404(guard: Guard, monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    server, _ = guard(upstream_url=f"http://127.0.0.1:{closed_port()}/v1")
    reply = httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH,
                       json={"model": "m", "messages": [{"role": "user", "content": "Hi"}]})
    assert reply.status_code == 502 and reply.json()["error"]["code"] == "upstream_unreachable"
    monkeypatch.delenv("FACTDEBATE_GUARD__UPSTREAM")
    off = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "off.sqlite", build=offline_build)
    with LiveServer(off) as plain:
        reply = httpx.post(f"{plain.url}/v1/chat/completions", headers=AUTH,
                           json={"model": "m", "messages": [{"role": "user", "content": "Hi"}]})
    assert reply.status_code == 404 and "--guard-upstream" in reply.json()["error"]["message"]


def test_each_checked_claim_costs_a_claim_token(guard: Guard) -> None:
    # the key's claims, apart from its requests; rate_limit_per_minute 0 would turn both off
    server, _ = guard(rate_limit_per_minute=600, claims_per_minute=3, claims_burst=3)
    ask(server)  # two claims: one token left
    ask(server)  # allowed on the last token; its claims take the bucket below zero
    with pytest.raises(openai.RateLimitError, match="claims per minute"):
        ask(server)
