"""The guard's default admission, the adaptive limits on checks in flight (server/ops/adaptive.py), through the
chat door. A few chats are never shed however late the loop runs (the limit pressed to its floor, as a machine
busy with others' work would press it); past the limit a flooding key's requests are shed with ``Retry-After``
while a light key's are admitted and checked; behind a checker of one slot, once checks have run past their
deadlines, what the checker cannot answer in time is shed and what is admitted is checked. The loop's limit is
held where the test puts it (its intervals are not fed), and the checker's waits are sleeps, so what the tests
see does not depend on the machine's load."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.ops import shedding
from factdebate.server.ops.adaptive import CEILING, CHECKED_FLOOR, TARGET_S
from factdebate.server.service import Service
from tests.guard.support import script
from tests.server.conftest import AUTH, LiveServer
from tests.server.guard.test_guard_chat import FAST, PARIS, Guard, guard  # noqa: F401 - the fixture
from tests.server.ops.test_overload_fair import (
    AUTH_B,
    KEY_B,
    _open_stream,
    _retry_after_is_the_forecast,
    _until,
    held_upstream,
)
from tests.server.ops.test_overload_fair import KEY as KEY_A

FLOOD = 4  # the flooding key's open streams
LIMIT = 2  # the adaptive limit in the flooding test


CALL_S = 0.2  # each call of the one-slot checker
# The operator's: four checks of two calls each fit it one after the other (1.6 s), with room for the service's own
# work on a loaded machine (at 2 s, a make test-all at load 8 ran an admitted check past it); fourteen do not.
DEADLINE_S = 3.0


class OneSlotBackend(ScriptedBackend):
    """A checker serving one call at a time, each taking CALL_S, as a local model server with one slot does."""

    def __init__(self, responder: Any) -> None:
        super().__init__(responder)
        self.slot: asyncio.Semaphore | None = None  # made on the service's loop, at its first call

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        self.slot = self.slot or asyncio.Semaphore(1)
        async with self.slot:
            await asyncio.sleep(CALL_S)
            return await super().complete(messages, params)


def _chat(server: LiveServer, auth: dict[str, str], asked: str = "Tell me about Paris.",
          deadline_s: float = 30) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers=auth, timeout=60, json={
        "model": "scripted", "messages": [{"role": "user", "content": asked}],
        "factdebate": {**FAST, "deadline_s": deadline_s}})


def _burst(server: LiveServer, count: int) -> list[httpx.Response]:
    replies: list[httpx.Response] = []
    clients = [threading.Thread(target=lambda: replies.append(_chat(server, AUTH, deadline_s=DEADLINE_S)))
               for _ in range(count)]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    return replies


def _past_deadline(reply: httpx.Response) -> bool:
    """Admitted, not checked within its deadline: the result's typed flag (its reasons say it in words)."""
    missed: bool = reply.json()["factdebate"]["deadline_missed"]
    return missed


def test_three_back_to_back_chats_are_never_shed_with_the_limit_pressed_to_its_floor(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.delenv("FACTDEBATE_GUARD__MAX_CPU_SHARE", raising=False)  # the shipped defaults
    monkeypatch.delenv("FACTDEBATE_GUARD__CHECKS_AT_ONCE", raising=False)
    server, _ = guard()
    load = server.server.config.app.state.service.load
    statuses: list[int] = []

    def chats() -> None:
        for _ in range(8):
            load.adaptive.observe(10 * TARGET_S, load.running)  # a standing queue each time: the limit falls
            statuses.append(_chat(server, AUTH).status_code)

    clients = [threading.Thread(target=chats) for _ in range(3)]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    assert statuses == [200] * 24
    assert load.adaptive.limit == load.adaptive.floor >= 3  # pressed to its floor, and it held the three


def test_a_light_key_is_admitted_and_checked_while_a_flooding_keys_requests_are_shed(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(shedding, "floor_of", lambda checks_at_once: LIMIT)
    monkeypatch.setenv("FACTDEBATE_GUARD__ON_OVERLOAD", "503")
    release = threading.Event()
    upstream = LiveServer(held_upstream(release)).__enter__()
    server, _ = guard(upstream_url=f"{upstream.url}/v1", api_keys=[KEY_A, KEY_B])
    service: Service = server.server.config.app.state.service
    service.load.lag.on_interval = None  # the limit stays at LIMIT, whatever the loop does
    opened: list[int] = []
    flood = [threading.Thread(target=_open_stream, args=(server, opened)) for _ in range(FLOOD)]
    try:
        for stream in flood:
            stream.start()
        _until(lambda: len(opened) == FLOOD - LIMIT and service.load.running == LIMIT,
               "the flood filling the limit and its other streams being refused")
        assert opened == [503] * (FLOOD - LIMIT)  # the newest shed; the streams admitted run on
        shed = _chat(server, AUTH)
        assert shed.status_code == 503 and shed.json()["error"]["code"] == "overloaded", shed.text
        assert "what it serves now" in shed.json()["detail"]
        _retry_after_is_the_forecast(shed)
        light = [_chat(server, AUTH_B) for _ in range(3)]
        assert [reply.status_code for reply in light] == [200] * 3, [reply.text for reply in light]
        assert all(reply.json()["factdebate"]["claims"][0]["status"] == "checked" for reply in light)
        assert _chat(server, AUTH).status_code == 503  # the flood is still the one shed
        registry = service.metrics.registry
        assert registry.get_sample_value("factdebate_shed_requests_total", {"action": "503"}) == FLOOD - LIMIT + 2
    finally:
        release.set()
        for stream in flood:
            stream.join()
        upstream.__exit__()
    assert opened.count(200) == LIMIT  # the flood's admitted streams were never cut
    assert service.load.running == 0 and service.load.held == {} and service.load.past == 0


def test_behind_a_checker_of_one_slot_what_it_cannot_answer_in_time_is_shed_and_what_is_admitted_is_checked(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("FACTDEBATE_GUARD__ON_OVERLOAD", "503")
    monkeypatch.setenv("FACTDEBATE_GUARD__DEADLINE_S", str(DEADLINE_S))  # misses at the operator's deadline count
    # The arithmetic above counts the checker's calls without the stance step's (one a claim, queued behind the
    # burst's window calls in the one slot): what is measured here is admission, not the stance.
    monkeypatch.setenv("FACTDEBATE_GUARD__STANCE_STEP", "false")
    server, _ = guard(backend=OneSlotBackend(script(claims=[PARIS])))
    service: Service = server.server.config.app.state.service
    first = _burst(server, 14)  # 28 calls of 0.2 s in one slot: the checks queue past their deadlines
    assert all(reply.status_code == 200 for reply in first), [reply.text for reply in first]
    missed = sum(_past_deadline(reply) for reply in first)
    assert missed >= 4  # admitted, not checked
    registry = service.metrics.registry
    assert registry.get_sample_value("factdebate_guard_deadline_missed_replies_total") == missed
    assert service.load.checked.limit == CHECKED_FLOOR  # halved at each miss with more than that running
    second = _burst(server, 8)
    shed = [reply for reply in second if reply.status_code == 503]
    admitted = [reply for reply in second if reply.status_code == 200]
    assert len(shed) + len(admitted) == 8 and shed and admitted, [reply.text for reply in second]
    assert all("as many as its checker answers within their deadlines now" in reply.json()["detail"]
               and int(reply.headers["Retry-After"]) >= 1 for reply in shed), [reply.text for reply in shed]
    assert not any(_past_deadline(reply) for reply in admitted)  # what was admitted was checked
    assert registry.get_sample_value("factdebate_guard_deadline_missed_replies_total") == missed
    assert all(reply.json()["factdebate"]["claims"][0]["status"] == "checked" for reply in admitted)


def test_a_caller_asking_for_deadlines_shorter_than_the_operators_does_not_lower_the_checkers_limit(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Its misses are the deadline it chose: counted, they would let one key shed every other key's requests."""
    monkeypatch.setenv("FACTDEBATE_GUARD__DEADLINE_S", "30")
    server, _ = guard(backend=OneSlotBackend(script(claims=[PARIS])))
    service: Service = server.server.config.app.state.service
    replies = _burst(server, 12)  # at DEADLINE_S, shorter than the operator's 30 s
    assert sum(_past_deadline(reply) for reply in replies) >= 4
    assert service.load.checked.limit == CEILING
