"""A service with the operator's CPU cap sheds on its CPU forecast before its streams slow
(``guard.max_cpu_share``): with two checks running whose checker work burns the process's CPU (each call spins in
50 ms slices, as a CPU-bound check does), a new request is answered at once, as ``guard.on_overload`` says: a 503
with Retry-After saying the service is out of CPU, or (``pass``) the upstream's reply with its claim unchecked, the
reason said. Without the setting (the default) it is admitted; alone again, the same request is checked.

The cap is 0.1 of a core: two spinning checks use more than a third of that whatever else the machine runs (beside
CPU burners at a load of 8 on two cores the process's spinning thread still gets about a quarter of a core), so
what these tests see does not depend on the machine's load."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from typing import Any

import httpx
import pytest

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.service import Service
from tests.guard.support import script
from tests.server.conftest import AUTH, LiveServer
from tests.server.guard.test_guard_chat import FAST, PARIS, ROME, Guard, guard  # noqa: F401 - the fixture
from tests.server.guard_support import ANSWER, Upstream
from tests.server.ops.test_overload_cpu import _chat  # one chat request, as that module sends it

SPIN_S = 3.0  # each held checker call naming Rome burns the CPU this long in all, in 50 ms slices (the request
# under test must be answered within it: 1.5 s was outrun beside four CPU burners)


class SpinningBackend(ScriptedBackend):
    """While ``hold`` is set, calls naming Rome wait (idle) for ``spin``, then spin the CPU (50 ms busy, 5 ms
    free) for SPIN_S."""

    def __init__(self, responder: Any) -> None:
        super().__init__(responder)
        self.hold, self.spin = threading.Event(), threading.Event()

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        if self.hold.is_set() and "Rome" in messages[0]["content"]:
            while not self.spin.is_set():
                await asyncio.sleep(0.01)
            ends = time.monotonic() + SPIN_S
            while time.monotonic() < ends:
                busy = time.process_time() + 0.05
                while time.process_time() < busy and time.monotonic() < ends:  # the check's CPU work
                    pass
                await asyncio.sleep(0.005)
        return await super().complete(messages, params)


def _while_two_spin(guard: Guard, monkeypatch: pytest.MonkeyPatch, max_cpu_share: float | None,  # noqa: F811
                    on_overload: str) -> tuple[httpx.Response, bool, LiveServer, httpx.Response, httpx.Response | None]:
    """A request sent while two spinning checks run: (its answer, whether they still ran when it came, the
    server, the answer to the same request with a wrong key, then (shedding with 503) streamed, each sent just
    after it). ``max_cpu_share`` None: the shipped default."""
    if max_cpu_share is None:
        monkeypatch.delenv("FACTDEBATE_GUARD__MAX_CPU_SHARE", raising=False)
    else:
        monkeypatch.setenv("FACTDEBATE_GUARD__MAX_CPU_SHARE", str(max_cpu_share))
    monkeypatch.setenv("FACTDEBATE_GUARD__ON_OVERLOAD", on_overload)
    backend = SpinningBackend(script(claims=[PARIS, ROME]))
    server, _ = guard(Upstream(), backend=backend)
    assert _chat(server).status_code == 200  # the first check, alone: never shed
    service: Service = server.server.config.app.state.service
    backend.hold.set()
    running = [threading.Thread(target=_chat, args=(server,)) for _ in range(2)]
    for thread in running:
        thread.start()
    started = time.monotonic()
    # Both admitted (idle, waiting for the spin): nothing to forecast yet. Waited for by the requests' state, not
    # a clock: at load 10 on 2 cores two requests took more than 30 s to be admitted. A request that ended
    # without being held is the failure; the bound only keeps a hang from holding the suite.
    while service.load.running < 2:
        assert all(thread.is_alive() for thread in running), "a held check ended before it was admitted"
        assert time.monotonic() - started < 600, "the held checks never began"
        time.sleep(0.01)
    backend.spin.set()
    # The forecast's window from the spin on: the held checks' idle wait before it is no CPU (as a check waiting
    # on its checker is none), and on a loaded machine that wait is long enough to dilute the spin below the share.
    service.load.cpu.restart()
    time.sleep(0.5)  # more than a window of the forecast (0.25 s) spent spinning
    answer = _chat(server)
    answered_first = all(thread.is_alive() for thread in running)
    unkeyed = httpx.post(f"{server.url}/v1/chat/completions", headers={"Authorization": "Bearer sk-wrong"},
                         json={"model": "scripted", "messages": [{"role": "user", "content": "Hi."}]}, timeout=60)
    streamed = None if on_overload != "503" or not max_cpu_share else httpx.post(
        f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
            "model": "scripted", "stream": True, "messages": [{"role": "user", "content": "Tell me about Paris."}],
            "factdebate": {**FAST, "deadline_s": 30}})
    backend.hold.clear()
    for thread in running:
        thread.join()
    return answer, answered_first, server, unkeyed, streamed


SHARE = 0.1


def test_past_max_cpu_share_a_request_is_refused_at_once_with_retry_after(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Two checks spinning use a large part of a core between them: past 0.1 of one, a third is shed."""
    answer, answered_first, server, unkeyed, streamed = _while_two_spin(guard, monkeypatch, SHARE, "503")
    assert answer.status_code == 503 and answered_first, answer.text  # while the spinning checks went on
    assert answer.headers["Retry-After"] == "1"
    # Answered before the app's middleware (server/guard/openai_chat/shed_gate.py), with the headers every
    # guard reply has.
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.headers["X-Content-Type-Options"] == "nosniff" and answer.headers["Cache-Control"] == "no-store"
    assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["X-Request-Id"])
    assert "X-Factdebate-Check-Id" not in answer.headers  # a shed request keeps no check
    assert answer.headers["X-Check-Not-Kept"] == "the request was refused: no check ran"
    assert unkeyed.status_code == 401 and unkeyed.json()["error"]["code"] == "invalid_api_key"  # never a 503
    # Asked to stream, the same refusal as JSON (an OpenAI client raises its error before reading any stream).
    assert streamed is not None and streamed.status_code == 503, streamed
    assert streamed.headers["Retry-After"] == "1", streamed.text
    assert streamed.json()["error"]["code"] == "overloaded"
    registry = server.server.config.app.state.service.metrics.registry
    assert registry.get_sample_value("factdebate_http_requests_total", {
        "route": "/v1/chat/completions", "method": "POST", "status": "503"}) == 2
    assert registry.get_sample_value("factdebate_shed_requests_total", {"action": "503"}) == 2
    body = answer.json()
    assert body["error"]["code"] == "overloaded"
    detail = body["detail"]
    assert detail.startswith("overloaded: the service is out of CPU: 2 replies being checked use about ") and \
        f"% of a core, and one more would pass guard.max_cpu_share {SHARE:g}; retry in 1 s" in detail, detail
    alone = _chat(server)  # nothing running: the same request is checked
    assert alone.status_code == 200 and alone.json()["factdebate"]["claims"][0]["status"] == "checked"


def test_under_pass_the_reply_goes_out_unchecked_with_the_reason(guard: Guard,  # noqa: F811
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    answer, answered_first, _, _, _ = _while_two_spin(guard, monkeypatch, SHARE, "pass")
    assert answer.status_code == 200 and answered_first
    found = answer.json()["factdebate"]
    assert found["degraded"] and found["usage"]["model_calls"] == 0
    [claim] = found["claims"]
    assert claim["status"] == "unchecked" and claim["reason"].startswith(
        "overloaded: the service is out of CPU: 2 replies being checked use about "), claim["reason"]
    assert f"one more would pass guard.max_cpu_share {SHARE:g}; the reply was passed without a check " \
        "(guard.on_overload: pass)" in claim["reason"]
    text = answer.json()["choices"][0]["message"]["content"]
    assert text.startswith(ANSWER)  # the upstream's reply, passed at once


@pytest.mark.parametrize("share", [0, None], ids=["0", "default"])
def test_without_max_cpu_share_the_same_request_is_checked(guard: Guard, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                                                           share: float | None) -> None:
    """Unset (the default) or 0, the CPU is not watched: the third request is checked however the two spin."""
    answer, _, _, _, _ = _while_two_spin(guard, monkeypatch, share, "503")
    assert answer.status_code == 200, answer.text
    assert answer.json()["factdebate"]["claims"][0]["status"] == "checked"
