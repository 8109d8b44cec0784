"""A service out of CPU sheds before its streams slow (``guard.max_loop_lag_ms``): with two
checks running whose checker work holds the event loop (each call blocks it in 50 ms slices, as a CPU-bound
process's work does), a new request is answered at once with a 503 saying the service is out of CPU, where
without the setting it is admitted to slow with the others; alone again, the same request is checked."""

from __future__ import annotations

import asyncio
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
from tests.server.guard_support import Upstream

HOG_S = 2.0  # each checker call naming Rome holds the loop this long in all, in 50 ms slices


class HoggingBackend(ScriptedBackend):
    """Calls naming Rome keep the event loop busy (50 ms blocked, 5 ms free) for HOG_S, while ``hog`` is set."""

    def __init__(self, responder: Any) -> None:
        super().__init__(responder)
        self.hog = threading.Event()

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        if self.hog.is_set() and "Rome" in messages[0]["content"]:
            ends = time.monotonic() + HOG_S
            while time.monotonic() < ends:
                time.sleep(0.05)  # the loop's CPU work, held on purpose
                await asyncio.sleep(0.005)
        return await super().complete(messages, params)


def _chat(server: LiveServer) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
        "model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}],
        "factdebate": {**FAST, "deadline_s": 30}})


@pytest.mark.parametrize(("max_lag_ms", "expected"), [(5, 503), (0, 200)])
def test_a_request_to_a_service_out_of_cpu_is_shed_at_once(guard: Guard, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                                                           max_lag_ms: int, expected: int) -> None:
    monkeypatch.setenv("FACTDEBATE_GUARD__CHECKS_AT_ONCE", "8")  # lag counts from 2 checks running
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_LOOP_LAG_MS", str(max_lag_ms))
    backend = HoggingBackend(script(claims=[PARIS, ROME]))
    server, _ = guard(Upstream(), backend=backend)
    assert _chat(server).status_code == 200  # the first check, on an idle loop
    service: Service = server.server.config.app.state.service
    backend.hog.set()
    running = [threading.Thread(target=_chat, args=(server,)) for _ in range(2)]
    for thread in running:
        thread.start()
    started = time.monotonic()
    # Both hogging, the loop seen late (off, the lateness is not watched: the hog given time to hold the loop).
    while service.load.running < 2 or (max_lag_ms and service.load.lag.late_s < 0.02):
        assert time.monotonic() - started < 30, "the running checks never held the loop"
        time.sleep(0.01)
    if not max_lag_ms:
        time.sleep(0.3)
    answer = _chat(server)
    answered_first = any(thread.is_alive() for thread in running)
    backend.hog.clear()
    for thread in running:
        thread.join()
    assert answer.status_code == expected, answer.text
    if expected == 503:
        assert answered_first  # answered while the hogging checks went on
        assert int(answer.headers["Retry-After"]) >= 1
        detail = answer.json()["detail"]
        assert detail.startswith("overloaded: the service is out of CPU: its event loop runs") and \
            "replies being checked (guard.max_loop_lag_ms 5)" in detail, detail
        alone = _chat(server)  # the loop on time again: the same request is checked
        assert alone.status_code == 200 and alone.json()["factdebate"]["claims"][0]["status"] == "checked"
    else:
        assert answer.json()["factdebate"]["claims"][0]["status"] == "checked"
