"""Load shed before it stalls everyone (guard.on_overload): with one check at full speed at once
(``guard.checks_at_once: 1``) and one running, a request whose deadline the reckoned check would pass is
answered at once: a 503 with Retry-After in OpenAI's shape, or (``pass``) the upstream's reply with one
unchecked claim saying it was overloaded, plain and streamed. The same request alone is checked."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest

from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.service import Service
from tests.guard.support import SlowBackend, script
from tests.server.conftest import AUTH, LiveServer
from tests.server.guard.test_guard_chat import FAST, PARIS, ROME, Guard, guard  # noqa: F401 - the fixture
from tests.server.guard_support import ANSWER, Upstream

METRICS_KEY = "metrics-key-0123456789abcdef"
CHECK_S = 1.0  # each checker call naming Rome (the extraction, its fast tier) waits this long


def _service(server: LiveServer) -> Service:
    service: Service = server.server.config.app.state.service
    return service


def _chat(server: LiveServer, deadline_s: float, stream: bool = False, policy: str = "flag") -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
        "model": "scripted", "stream": stream, "messages": [{"role": "user", "content": "Tell me about Paris."}],
        "factdebate": {**FAST, "deadline_s": deadline_s, "policy": policy}})


def _streamed(reply: httpx.Response) -> tuple[str, dict[str, Any]]:
    """A stream's text and its result chunk's factdebate object (the stream ends with [DONE])."""
    chunks = [line[6:] for line in reply.text.splitlines() if line.startswith("data: ")]
    assert chunks[-1] == "[DONE]"
    parsed = [json.loads(c) for c in chunks[:-1]]
    words = "".join((c["choices"][0].get("delta") or {}).get("content") or "" for c in parsed if c["choices"])
    return words, parsed[-1]["factdebate"]


def _loaded(guard: Guard, monkeypatch: pytest.MonkeyPatch, on_overload: str) -> tuple[LiveServer, float, Any]:  # noqa: F811
    """The guard with one check learnt and one running (held by the slow checker): (server, a deadline
    the lone check fits and a second one does not, the running request's thread)."""
    monkeypatch.setenv("FACTDEBATE_GUARD__CHECKS_AT_ONCE", "1")
    monkeypatch.setenv("FACTDEBATE_GUARD__ON_OVERLOAD", on_overload)
    backend: ScriptedBackend = SlowBackend(script(claims=[PARIS, ROME]), {"Rome": CHECK_S})
    server, _ = guard(Upstream(), backend=backend, metrics_key=METRICS_KEY)
    assert _chat(server, 30).status_code == 200  # the first check: what one takes alone is learnt from it
    service = _service(server)
    assert service.load.alone_s is not None
    deadline = 1.5 * service.load.alone_s  # one alone fits it; two sharing the one slot do not
    running = threading.Thread(target=_chat, args=(server, 30))
    running.start()
    started = time.monotonic()
    while service.load.running < 1:
        assert time.monotonic() - started < 30, "the running check never began"
        time.sleep(0.01)
    return server, deadline, running


def test_a_request_that_would_pass_its_deadline_is_refused_at_once(guard: Guard,  # noqa: F811
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    server, deadline, running = _loaded(guard, monkeypatch, "503")
    refused = _chat(server, deadline)
    answered_first = running.is_alive()
    running.join()
    assert refused.status_code == 503 and answered_first  # answered at once: the running check had not ended
    assert int(refused.headers["Retry-After"]) >= 1
    body = refused.json()
    assert body["error"]["code"] == "overloaded" and body["detail"].startswith("overloaded: the service is checking")
    assert f"past its {deadline:.3g} s deadline" in body["detail"]
    # Alone again, the same request is checked.
    alone = _chat(server, deadline)
    assert alone.status_code == 200 and alone.json()["factdebate"]["claims"][0]["status"] == "checked"
    scraped = httpx.get(f"{server.url}/metrics", headers={"Authorization": f"Bearer {METRICS_KEY}"}).text
    assert 'factdebate_shed_requests_total{action="503"} 1.0' in scraped


def test_under_pass_the_reply_goes_out_at_once_unchecked_and_said(guard: Guard,  # noqa: F811
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    server, deadline, running = _loaded(guard, monkeypatch, "pass")
    passed = _chat(server, deadline)
    streamed = _chat(server, deadline, stream=True)
    held = _chat(server, deadline, stream=True, policy="hold")
    answered_first = running.is_alive()
    running.join()
    assert passed.status_code == 200 and answered_first  # both answered while the running check went on
    found = passed.json()["factdebate"]
    assert found["degraded"] and found["label"] is None and found["usage"]["model_calls"] == 0
    [claim] = found["claims"]
    assert claim["status"] == "unchecked" and claim["reason"].startswith("overloaded: the service is checking")
    assert "guard.on_overload: pass" in claim["reason"]
    text = passed.json()["choices"][0]["message"]["content"]
    assert text.startswith(ANSWER) and "overloaded" in text[len(ANSWER):]  # flag's footnote says why
    # Streamed: the upstream's words as they came, the footnote, then the same result.
    words, last = _streamed(streamed)
    assert words.startswith(ANSWER) and "overloaded" in words[len(ANSWER):]
    assert last["degraded"] and last["claims"][0]["reason"].startswith("overloaded:")
    # Under hold, which never streams unchecked text first, the policy's text comes whole at the end.
    words, last = _streamed(held)
    assert words.startswith(ANSWER) and "overloaded" in words[len(ANSWER):]
    assert last["claims"][0]["status"] == "unchecked" and last["policy"] == "hold"
