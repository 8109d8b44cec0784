"""Admission fair between keys, and a ``Retry-After`` on every 503. With ``guard.checks_at_once: 2`` and key A
holding eight open streams, the service is past what it may admit: A's next request is shed (a 503 whose
``Retry-After`` is the forecast its message gives, in whole seconds), while key B, which holds nothing, has
every request admitted. The guard's 503s with the state database down carry ``Retry-After`` too."""

from __future__ import annotations

import asyncio
import json
import math
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from factdebate.server.ops.shedding import CheckLoad
from factdebate.server.service import Service
from tests.guard.support import SlowBackend, script
from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard.test_guard_chat import FAST, PARIS, Guard, guard  # noqa: F401 - the fixture
from tests.server.guard_support import tokens

KEY_B = "test-key-b-9876543210"
AUTH_B = {"Authorization": f"Bearer {KEY_B}"}
SLOWLY = "Said slowly."  # a reply with it costs the checker CHECK_S (its claims' extraction reads the reply)
CHECK_S = 1.0
LEARN, HOLD = "[learn]", "[hold]"  # what a user's message asks of the upstream below
HELD = 8  # key A's open streams
FORECAST = re.compile(r"room for it is forecast in about (\d+\.\d) s; retry in (\d+) s$")


def held_upstream(release: threading.Event) -> FastAPI:
    """An OpenAI-compatible upstream: a message with LEARN is answered with SLOWLY in it (a slow check to learn
    from); a stream asked with HOLD sends its first chunk, then waits for ``release`` (a stream held open)."""
    app = FastAPI()

    @app.post("/v1/chat/completions", response_model=None)
    async def complete(request: Request) -> JSONResponse | StreamingResponse:
        body = await request.json()
        asked = str(body["messages"][-1]["content"])
        text = f"{PARIS} {SLOWLY}" if LEARN in asked else PARIS
        head = {"id": "chatcmpl-held", "created": int(time.time()), "model": "scripted"}
        if not body.get("stream"):
            return JSONResponse({**head, "object": "chat.completion", "choices": [{
                "index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
        return StreamingResponse(_chunks(head, text, HOLD in asked, release), media_type="text/event-stream")

    return app


async def _chunks(head: dict[str, Any], text: str, hold: bool, release: threading.Event) -> AsyncIterator[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps({**head, 'object': 'chat.completion.chunk', 'choices': [choice]})}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    while hold and not release.is_set():
        await asyncio.sleep(0.01)
    for token in tokens(text):
        yield chunk({"content": token})
    yield chunk({}, "stop")
    yield b"data: [DONE]\n\n"


def _chat(server: LiveServer, auth: dict[str, str], asked: str, deadline_s: float) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers=auth, timeout=60, json={
        "model": "scripted", "messages": [{"role": "user", "content": asked}],
        "factdebate": {**FAST, "deadline_s": deadline_s}})


def _open_stream(server: LiveServer, opened: list[int]) -> None:
    """Key A's stream, read to its end once the upstream lets it go; its status kept in ``opened``."""
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
            "model": "scripted", "stream": True, "messages": [{"role": "user", "content": f"Paris? {HOLD}"}],
            "factdebate": {**FAST, "deadline_s": 30}}) as reply:
        reply.read()
        opened.append(reply.status_code)


def _until(done: Callable[[], bool], what: str) -> None:
    started = time.monotonic()
    while not done():
        assert time.monotonic() - started < 30, f"{what} never happened"
        time.sleep(0.01)


def _retry_after_is_the_forecast(refused: httpx.Response) -> int:
    """The refusal's ``Retry-After``, checked against the forecast its message gives (rounded up, at least 1)."""
    found = FORECAST.search(refused.json()["detail"])
    assert found is not None, refused.json()["detail"]
    forecast, said = float(found.group(1)), int(found.group(2))
    assert refused.headers["Retry-After"] == str(said) == str(max(1, math.ceil(forecast)))
    return said


def test_a_key_holding_nothing_is_admitted_while_the_heavy_keys_requests_are_shed(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("FACTDEBATE_GUARD__CHECKS_AT_ONCE", "2")
    monkeypatch.setenv("FACTDEBATE_GUARD__ON_OVERLOAD", "503")
    release = threading.Event()
    upstream = LiveServer(held_upstream(release)).__enter__()
    server, _ = guard(upstream_url=f"{upstream.url}/v1", api_keys=[KEY, KEY_B],
                      backend=SlowBackend(script(claims=[PARIS]), {SLOWLY: CHECK_S}))
    service: Service = server.server.config.app.state.service
    opened: list[int] = []
    streams = [threading.Thread(target=_open_stream, args=(server, opened)) for _ in range(HELD)]
    try:
        assert _chat(server, AUTH, f"Paris? {LEARN}", 30).status_code == 200  # what one check takes alone, learnt
        assert service.load.alone_s is not None and service.load.alone_s >= CHECK_S
        for stream in streams:
            stream.start()
        _until(lambda: service.load.running == HELD, "key A's streams being admitted")

        def deadline() -> float:  # one check alone fits it; HELD + 1 sharing two at full speed do not
            assert service.load.alone_s is not None
            return 1.5 * service.load.alone_s

        heavy = _chat(server, AUTH, "Paris?", deadline())
        assert heavy.status_code == 503 and heavy.json()["error"]["code"] == "overloaded", heavy.text
        # Eight checks each needing about a second, two at a time, before one more fits: seconds, not one.
        assert _retry_after_is_the_forecast(heavy) >= 2
        light = [_chat(server, AUTH_B, "Paris?", deadline()) for _ in range(8)]
        assert [reply.status_code for reply in light] == [200] * 8, [reply.text for reply in light]
        assert all(reply.json()["factdebate"]["claims"] for reply in light)
        still_heavy = _chat(server, AUTH, "Paris?", deadline())  # the heavy key is still the one shed
        assert still_heavy.status_code == 503
        _retry_after_is_the_forecast(still_heavy)
        assert service.load.held == {service.keys.identify(f"Bearer {KEY}"): HELD}  # B's checks all ended
        registry = service.metrics.registry
        assert registry.get_sample_value("factdebate_shed_requests_total", {"action": "503"}) == 2
    finally:
        release.set()
        for stream in streams:
            if stream.is_alive():
                stream.join()
        upstream.__exit__()
    assert opened == [200] * HELD  # key A's streams were never cut
    assert service.load.running == 0 and service.load.held == {} and service.load.past == 0


def test_a_key_under_its_share_gets_in_only_while_another_holds_more_and_within_checks_at_once() -> None:
    load = CheckLoad()
    ends = [load.start(2, who="a") for _ in range(3)]
    assert load.share("b", 2) == 1 and load.fair_turn("b", 2)  # a holds 3, past its share of 1
    assert not load.fair_turn("a", 2)  # the heaviest key never gets in past the reckoning
    first_b = load.start(2, who="b", past=True)
    assert not load.fair_turn("b", 2)  # b holds its share now
    load.start(2, who="c", past=True)  # a third key: shares of 2 // 3, at least one each
    assert load.share("d", 2) == 1 and not load.fair_turn("d", 2)  # checks_at_once of them already in
    first_b()
    assert load.fair_turn("d", 2) and load.held == {"a": 3, "c": 1}
    for end in ends:
        end()
    assert load.held == {"c": 1} and not load.fair_turn("b", 2)  # nobody holds more than a share: no turn


def test_the_guards_503s_with_the_state_database_down_say_when_to_retry(
        guard: Guard, postgres_url: str) -> None:  # noqa: F811
    from tests.server.test_strict_input_and_state_down import _connections

    server, _ = guard(state_db=postgres_url)
    chat = {"model": "scripted", "messages": [{"role": "user", "content": "Paris?"}], "factdebate": FAST}
    assert httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, json=chat, timeout=60).status_code == 200
    _connections(postgres_url, allowed=False)
    try:
        answers = [httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, json=chat, timeout=60),
                   httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, json={**chat, "stream": True},
                              timeout=60),
                   httpx.post(f"{server.url}/v1/guard/check", headers=AUTH, json={"text": PARIS}, timeout=60),
                   httpx.get(f"{server.url}/v1/health", timeout=60)]
    finally:
        _connections(postgres_url, allowed=True)
    for answer in answers:
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "5", (answer.url, answer.text)
