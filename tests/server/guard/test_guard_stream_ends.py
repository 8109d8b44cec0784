"""Guard streams that always end (and what of items 6 and 7 the guard's relay owns):
strict JSON bodies, every fault ending the stream with an error chunk, a relay that holds the upstream back
instead of filling the memory, a caller who leaves stopping the upstream, and the upstream's errors passed
on with their Retry-After and without the operator's hosts or keys. Each against a real upstream on loopback
and the guard as ``serve`` runs it."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.guard_engine.stream import StreamingCheck
from factdebate.server.guard import upstream as guard_upstream
from factdebate.server.guard.openai_chat import stream as guard_stream
from factdebate.server.guard.upstream import scrubbed
from tests.fake_openai import FakeOpenAI
from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import ANSWER, Upstream, scripted_checker_app, upstream_app
from tests.server.stubborn_upstreams import Endless, Silent, Trickle, endless_app, raw_request, still

# annotate: the upstream's words pass as they came (no footnote of the default flag), which these tests compare
FAST = {"tier": "fast", "method": "single", "policy": "annotate"}
HI = [{"role": "user", "content": "Tell me about Paris."}]
CHAT = "/v1/chat/completions"
Guard = Callable[..., LiveServer]


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    """The guard in front of ``upstream_url``, with scripted checker models; stops with the test."""
    started: list[LiveServer] = []

    def start(upstream_url: str, **fields: Any) -> LiveServer:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", upstream_url)
        server = LiveServer(scripted_checker_app(tmp_path, [KEY], **fields)).__enter__()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.__exit__()


@pytest.fixture
def scripted() -> Iterator[tuple[LiveServer, Upstream]]:
    upstream = Upstream()
    with LiveServer(upstream_app(upstream)) as model:
        yield model, upstream


def active_runs(server: LiveServer) -> int:
    return int(httpx.get(f"{server.url}/v1/health").json()["active_runs"])


def wait_idle(server: LiveServer, timeout: float = 20.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while active_runs(server):
        assert time.monotonic() < deadline, "a run slot is still taken"
        time.sleep(0.05)


def stream_lines(server: LiveServer, body: dict[str, Any], **headers: str) -> list[str]:
    with httpx.stream("POST", f"{server.url}{CHAT}", headers={**AUTH, **headers}, timeout=30,
                      json={"model": "m", "stream": True, "messages": HI, "factdebate": FAST, **body}) as reply:
        assert reply.status_code == 200, reply.read()
        return [line[6:] for line in reply.iter_lines() if line.startswith("data: ")]


def test_nan_and_infinity_are_a_422_on_every_route_and_take_no_slot(
        guard: Guard, scripted: tuple[LiveServer, Upstream]) -> None:
    """A streamed guard request holding NaN hung for ever and kept its slot (httpx would not send it)."""
    model, upstream = scripted
    server = guard(f"{model.url}/v1", max_active_runs=2)
    chat = '{"model": "m", "stream": true, "temperature": NaN, "messages": [{"role": "user", "content": "Hi"}]}'
    sent = [(CHAT, chat), (CHAT, chat), (CHAT, chat.replace("NaN", "Infinity").replace("true", "false")),
            ("/v1/verify", '{"claim": "Water is wet.", "rounds": -Infinity}'),
            ("/v1/check-response", '{"response": "Paris is in France.", "k": NaN}'),
            ("/v1/guard/check", '{"text": "Paris is in France.", "factdebate": {"deadline_s": NaN}}'),
            ("/v1/batches", '{"claim": "Water is wet."}\n{"claim": "Fire is cold.", "score": NaN}\n')]
    for path, body in sent:
        reply = httpx.post(f"{server.url}{path}", content=body, timeout=10,
                           headers={**AUTH, "Content-Type": "application/json"})
        assert reply.status_code == 422, (path, reply.text)
        assert "not strict JSON" in reply.json()["detail"] and reply.json()["error"]["code"] == "invalid_json"
    assert "line 2" in reply.json()["detail"]  # the batch's line
    for stream in ("true", "false"):  # 1e400 reads as infinity: JSON no encoder writes, so it is not sent on
        reply = httpx.post(f"{server.url}{CHAT}", content=chat.replace("NaN", "1e400").replace("true", stream),
                           headers={**AUTH, "Content-Type": "application/json"}, timeout=10)
        assert reply.status_code == 422 and reply.json()["error"]["code"] == "invalid_json", reply.text
    assert active_runs(server) == 0 and upstream.requests == []
    assert "".join(json.loads(line)["choices"][0]["delta"].get("content") or ""
                   for line in stream_lines(server, {})[:-1] if json.loads(line).get("choices")) == ANSWER


def test_a_fault_in_the_relay_ends_the_stream_with_an_openai_error_and_frees_the_slot(
        guard: Guard, scripted: tuple[LiveServer, Upstream], monkeypatch: pytest.MonkeyPatch) -> None:
    """Only an UpstreamError ended the stream; any other failure of the reading waited for ever."""
    model, _ = scripted
    server = guard(f"{model.url}/v1")
    events = guard_upstream.sse_events

    async def failing(chunks: Any, limit: int = guard_upstream.MAX_EVENT_BYTES) -> Any:
        number = 0
        async for event in events(chunks, limit):
            number += 1
            if number == 3:
                raise RuntimeError("a fault nobody planned for")
            yield event

    monkeypatch.setattr(guard_upstream, "sse_events", failing)
    last = json.loads(stream_lines(server, {})[-1])
    assert last["error"]["code"] == "stream_failed" and "fault nobody planned" not in json.dumps(last)
    wait_idle(server)
    monkeypatch.setattr(guard_upstream, "sse_events", events)

    def broken_feed(self: Any, delta: str) -> None:
        raise ValueError("the check could not take this")

    monkeypatch.setattr(StreamingCheck, "feed", broken_feed)
    last = json.loads(stream_lines(server, {})[-1])
    assert last["error"]["code"] == "stream_failed" and last["error"]["type"] == "server_error"
    wait_idle(server)


def test_a_caller_that_does_not_read_holds_the_upstream_back_and_leaving_ends_it(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:
    """The relay's queue had no bound; a caller that never read grew the process by gigabytes."""
    relays: list[guard_stream.Relay] = []
    made = guard_stream.Relay.__init__

    def recorded(self: guard_stream.Relay, *args: Any) -> None:
        made(self, *args)
        relays.append(self)

    monkeypatch.setattr(guard_stream.Relay, "__init__", recorded)
    state = Endless()
    with LiveServer(endless_app(state)) as model:
        server = guard(f"{model.url}/v1")
        caller = raw_request(server.url, CHAT, {"model": "m", "stream": True, "messages": HI, "factdebate": FAST},
                             KEY)
        try:
            deadline = time.monotonic() + 60  # (a loaded machine took longer than still()'s quiet second to get here)
            while not (relays and state.sent):
                assert time.monotonic() < deadline, "the request never reached the upstream through a relay"
                time.sleep(0.02)
            still(lambda: state.sent)  # the upstream stops writing: TCP holds it back once the relay is full
            assert relays and relays[0].queue.qsize() <= guard_stream.RELAY_EVENTS
        finally:
            caller.close()
        wait_idle(server)  # the caller gone, its slot is free and the upstream's request ended
        written = still(lambda: state.sent)
        assert still(lambda: state.sent, quiet=1.0) == written


@pytest.mark.parametrize("stream", [True, False])
def test_a_caller_that_leaves_before_the_first_chunk_ends_the_upstream_request(guard: Guard, stream: bool) -> None:
    """Nothing watched the caller while the upstream had not answered (up to upstream_timeout_s)."""
    upstream = Silent()
    try:
        server = guard(upstream.url)
        caller = raw_request(server.url, CHAT, {"model": "m", "stream": stream, "messages": HI, "factdebate": FAST},
                             KEY)
        assert upstream.connected.wait(20), "the request never reached the upstream"
        assert active_runs(server) == 1
        caller.shutdown(socket.SHUT_RDWR)
        caller.close()
        assert upstream.closed.wait(10), "the upstream's request was left open"
        wait_idle(server)
    finally:
        upstream.close()


def test_leaving_after_the_verdicts_pays_for_the_claims_checked(guard: Guard) -> None:
    """A caller who read every claim's verdict and left before the end paid one token, not one a claim."""
    upstream = Upstream(answer=ANSWER + " Do you agree?" * 300, token_delay=0.01)
    with LiveServer(upstream_app(upstream)) as model:
        server = guard(f"{model.url}/v1", rate_limit_per_minute=600, claims_per_minute=0.6, claims_burst=3)
        verdicts = 0
        with httpx.stream("POST", f"{server.url}{CHAT}", headers={**AUTH, "X-Factdebate-Verdicts": "each"},
                          timeout=30, json={"model": "m", "stream": True, "messages": HI, "factdebate": FAST}) as reply:
            for line in reply.iter_lines():
                verdicts += '"factdebate_claim"' in line
                if verdicts == 2:
                    break  # both claims decided, the answer still streaming: leave now
        assert verdicts == 2
        wait_idle(server)
        # 3 claim tokens: its two claims' are gone, one is left (its reservation of response.max_claims was
        # settled): one more check is let in, and its claims leave none for the next.
        probe = {"text": ANSWER, "factdebate": FAST}
        assert httpx.post(f"{server.url}/v1/guard/check", headers=AUTH, json=probe, timeout=30).status_code == 200
        refused = httpx.post(f"{server.url}/v1/guard/check", headers=AUTH, json=probe, timeout=30)
        assert refused.status_code == 429 and "claims per minute" in refused.text


def test_an_upstream_429_keeps_its_retry_after(guard: Guard) -> None:
    """The upstream's Retry-After was dropped, so OpenAI clients retried at once."""
    with FakeOpenAI(failures=[(429, "7"), (429, "7")]) as model:
        server = guard(model.base_url)
        for stream in (False, True):
            reply = httpx.post(f"{server.url}{CHAT}", headers=AUTH, timeout=30,
                               json={"model": "m", "stream": stream, "messages": HI, "factdebate": FAST})
            assert reply.status_code == 429 and reply.headers["retry-after"] == "7", reply.text


def test_the_upstreams_error_text_names_no_host_and_no_key(guard: Guard) -> None:
    """An upstream's error that quoted a key or named a host reached the caller as it was."""
    message = ("Incorrect API key provided: sk-proj-AbCdEf1234567890XyZ. The gateway llm-gw.internal.corp:8443 "
               "(10.20.30.40) refused it; see https://admin:pw@llm-gw.internal.corp/status")
    with FakeOpenAI(failures=[(401, None)], error_message=message) as model:
        server = guard(model.base_url)
        reply = httpx.post(f"{server.url}{CHAT}", headers=AUTH, timeout=30,
                           json={"model": "m", "messages": HI, "factdebate": FAST})
    shown = reply.json()["error"]["message"]
    assert reply.status_code == 401 and "Incorrect API key provided" in shown
    for secret in ("AbCdEf1234567890", "internal.corp", "10.20.30.40", "8443", "admin", "pw@"):
        assert secret not in shown, (secret, shown)


def test_scrubbing_leaves_ordinary_words_alone() -> None:
    assert scrubbed("model gpt-4o-mini has no 3.5 variant at temperature 0.7") == (
        "model gpt-4o-mini has no 3.5 variant at temperature 0.7")
    assert scrubbed("Bearer abc.def-123 at [::1]:8080 or localhost:11434") == (
        "Bearer *** at the operator's host or the operator's host")
    assert scrubbed("token ghp_0123456789abcdefABCDEF0123 leaked") == "token *** leaked"


def test_max_tokens_sent_upstream_is_capped_by_the_operator(guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller's max_tokens went to the upstream as it was (1e9 tokens of the operator's money)."""
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_TOKENS", "50")
    with FakeOpenAI(reply="Paris is the capital of France.") as model:
        server = guard(model.base_url)
        for asked in ({"max_tokens": 1_000_000_000}, {"max_completion_tokens": 70}, {"max_tokens": 20}):
            reply = httpx.post(f"{server.url}{CHAT}", headers=AUTH, timeout=30,
                               json={"model": "m", "messages": HI, "factdebate": FAST, **asked})
            assert reply.status_code == 200, reply.text
        wrong = httpx.post(f"{server.url}{CHAT}", headers=AUTH, timeout=30,
                           json={"model": "m", "messages": HI, "max_tokens": "lots"})
        sent = [request["body"] for request in model.requests if request["body"]["messages"] == HI]
    assert [(b.get("max_tokens"), b.get("max_completion_tokens")) for b in sent] == [(50, None), (None, 50),
                                                                                      (20, None)]
    assert wrong.status_code == 422 and "max_tokens" in wrong.json()["detail"]


def test_lone_surrogates_and_deep_json_are_a_422_or_said_never_a_500(
        guard: Guard, scripted: tuple[LiveServer, Upstream]) -> None:
    """A lone surrogate in a tool message or a checked reply, and JSON nested 30,000 levels, were 500s."""
    model, upstream = scripted
    server = guard(f"{model.url}/v1")
    tool = [*HI, {"role": "tool", "tool_call_id": "call-1", "content": "The tower is in Paris \ud800."}]
    deep = "[" * 30_000 + "]" * 30_000  # under every route's size limit
    sent: list[tuple[str, Any]] = [
        (CHAT, json.dumps({"model": "m", "messages": tool, "factdebate": FAST})),
        ("/v1/guard/check", json.dumps({"text": "The tower is in Paris \ud800.", "factdebate": FAST})),
        ("/v1/guard/check", json.dumps({"text": "The tower is in Paris.", "messages": tool, "factdebate": FAST})),
        *[(path, deep) for path in (CHAT, "/v1/guard/check", "/v1/verify", "/beta/litellm_basic_guardrail_api")],
        (CHAT, '{"model": "m", "messages": ' + "[" * 980 + "]" * 980 + "}")]
    for path, body in sent:
        reply = httpx.post(f"{server.url}{path}", content=body, timeout=30,
                           headers={**AUTH, "Content-Type": "application/json"})
        assert reply.status_code == 422, (path, body[:80], reply.text)
    assert "valid Unicode" in httpx.post(f"{server.url}{CHAT}", content=sent[0][1], headers=AUTH).json()["detail"]
    # The upstream's own reply with a lone surrogate is checked and said, whole or streamed.
    upstream.answer = "Paris is the capital of France. The tower is in Paris \ud800."
    lines = stream_lines(server, {})
    assert lines[-1] == "[DONE]" and "factdebate" in json.loads(lines[-2])
    with FakeOpenAI(reply=upstream.answer) as plain_model:
        server = guard(plain_model.base_url)
        reply = httpx.post(f"{server.url}{CHAT}", headers=AUTH, timeout=30,
                           json={"model": "m", "messages": HI, "factdebate": FAST})
    assert reply.status_code == 200 and reply.json()["factdebate"]["degraded"], reply.text


def test_a_tools_list_past_openais_limit_is_refused(guard: Guard, scripted: tuple[LiveServer, Upstream]) -> None:
    model, upstream = scripted
    server = guard(f"{model.url}/v1")
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
    reply = httpx.post(f"{server.url}{CHAT}", headers=AUTH, timeout=30,
                       json={"model": "m", "messages": HI, "tools": [tool] * 129})
    assert reply.status_code == 422 and "the limit is 128" in reply.json()["detail"]
    assert upstream.requests == []


def test_an_upstream_event_that_never_ends_is_an_error_not_a_growing_buffer() -> None:
    async def pieces() -> Any:
        yield b"data: {"
        for _ in range(100):
            yield b"x" * 100

    async def read() -> None:
        async for _ in guard_upstream.sse_events(pieces(), limit=5000):
            pass

    import asyncio

    with pytest.raises(guard_upstream.UpstreamError, match=r"longer than 4\.9 KiB"):
        asyncio.run(read())


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_stops_within_its_grace_period_while_a_request_hangs(tmp_path: Path, workers: int) -> None:
    """A server with a hanging stream ignored SIGTERM for an hour and a half; with ``--workers`` each
    worker process arms its own watchdog (server/ops/workers.py). Issue 57 item 3: the requests still running near
    the grace period's end answer for themselves, a plain one with OpenAI's 503 (it was uvicorn's plain-text
    500) and a stream with a ``stream_failed`` chunk before it ends (it was cut without a word)."""
    import signal
    import subprocess
    import threading

    from factdebate.server.ops.shutdown import EXIT_MARGIN_S
    from tests.server.conftest import free_port
    from tests.server.test_commands import EXE, _env, _wait_until_up

    trickle = Trickle()  # the stream's answer never ends; the plain request waits for a body that never ends
    upstream = LiveServer(trickle.app()).__enter__()
    service = tmp_path / "service.yaml"
    service.write_text("shutdown_grace_s: 2\n")
    port = free_port()
    env = {k: v for k, v in _env(tmp_path).items() if k != "FACTDEBATE_LLM"}
    process = subprocess.Popen([EXE, "serve", "--no-auth", "--port", str(port), "--llm", "scripted:agree",
                                "--agents", "none,none", "--no-scoring", "--no-cache", "--guard-upstream",
                                f"{upstream.url}/v1", "--service-config", str(service), "--workers", str(workers)],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    got: dict[bool, tuple[int, str]] = {}
    streaming = threading.Event()

    def hang(stream: bool) -> None:
        body = {"model": "m", "stream": stream, "messages": HI, "factdebate": FAST}
        with httpx.stream("POST", f"{url}{CHAT}", timeout=300, json=body) as reply:
            lines = []
            for line in reply.iter_lines():
                lines.append(line)
                if line.startswith("data: {"):
                    streaming.set()
            got[stream] = (reply.status_code, "\n".join(lines))

    try:
        _wait_until_up(url, process)
        threads = [threading.Thread(target=hang, args=(stream,), daemon=True) for stream in (True, False)]
        for thread in threads:
            thread.start()
        assert streaming.wait(30), "the stream never started"
        while trickle.requests < 2:
            assert trickle.came.wait(30), "the plain request never reached the upstream"
            trickle.came.clear()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=2 + EXIT_MARGIN_S + 20)  # the grace period, the margin, and room for a loaded machine
        for thread in threads:
            thread.join(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        output, _ = process.communicate(timeout=30)
        trickle.release.set()
        upstream.__exit__()
    status, text = got[False]
    assert status == 503 and json.loads(text)["error"]["code"] == "server_shutting_down", (text, output)
    status, text = got[True]
    chunks = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
    assert status == 200 and chunks[-1]["error"]["code"] == "stream_failed", (text[-2000:], output)
    assert "shutting down" in chunks[-1]["error"]["message"]


def test_a_process_held_by_one_computation_still_exits_after_grace_and_margin() -> None:
    """A loop frozen by one long computation never reached uvicorn's shutdown; the watchdog ends it."""
    import signal
    import subprocess
    import sys

    held = subprocess.Popen([sys.executable, "-c", "import time\n"
                             "from factdebate.server.ops.shutdown import exit_within\n"
                             "exit_within(1, margin_s=0.5)\nprint('armed', flush=True)\ntime.sleep(300)"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert held.stdout is not None and held.stdout.readline().strip() == "armed"
        held.send_signal(signal.SIGTERM)  # nothing but the watchdog would end the sleep
        assert held.wait(timeout=1.5 + 20) == 128 + signal.SIGTERM
    finally:
        if held.poll() is None:
            held.kill()
        held.communicate()
