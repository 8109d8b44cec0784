"""What the checker's known slots answer within a deadline (server/ops/checker_slots.py), read from the queues
of calls to its server (llm/in_flight.py): driven by given queues and check ends, with no clock, so what the bound
says is the same on any machine; then through the chat door behind a checker of one slot, from a cold start."""

from __future__ import annotations

import threading

import httpx
import pytest

from factdebate.llm import in_flight
from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.in_flight import CallQueue
from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.ops.adaptive import CHECKED_FLOOR
from factdebate.server.ops.checker_slots import SHARE, WINDOW, CheckerSlots
from factdebate.server.ops.shedding import CheckLoad
from factdebate.server.service import Service
from tests.guard.support import script
from tests.server.conftest import AUTH, LiveServer
from tests.server.guard.test_guard_chat import FAST, PARIS, Guard, guard  # noqa: F401 - the fixture

DEADLINE_S = 5.0


class Queue(CallQueue):
    """A queue whose calls and their seconds are given, not timed."""

    def __init__(self, slots: int, call_s: float | None = None, waiting: int = 0, running: int = 0) -> None:
        super().__init__(slots)
        self.call_s, self.waiting = call_s, waiting
        self._since = {number: 0.0 for number in range(running)}


def _ended(slots: CheckerSlots, queue: CallQueue, checks: int, call_seconds_each: float) -> None:
    for _ in range(checks):
        queue.busy_s += call_seconds_each
        slots.check_ended()


def test_until_a_window_of_checks_has_ended_no_more_run_than_the_checker_has_slots_never_fewer_than_a_few() -> None:
    queue = Queue(16)
    slots = CheckerSlots(lambda: [queue])
    bound = slots.bound(DEADLINE_S, running=0)
    assert bound is not None and bound.checks == 16 and "16 slots at once" in bound.why
    one = Queue(1)
    assert (least := CheckerSlots(lambda: [queue, one]).bound(DEADLINE_S, 0)) is not None
    assert least.checks == CHECKED_FLOOR  # the least of the servers called; a few chats are never shed


def test_learnt_it_admits_what_the_slots_answer_within_the_deadline() -> None:
    queue = Queue(16, call_s=1.0)
    slots = CheckerSlots(lambda: [queue])
    _ended(slots, queue, WINDOW, 4.0)  # each check held the server 4 call-seconds
    bound = slots.bound(DEADLINE_S, running=3)
    assert bound is not None and bound.checks == int(16 * DEADLINE_S * SHARE / 4.0)
    assert "16 slots" in bound.why and "about 4 s" in bound.why
    four = Queue(4, call_s=1.0)
    slots = CheckerSlots(lambda: [four])
    _ended(slots, four, WINDOW, 4.0)
    assert (few := slots.bound(DEADLINE_S, running=3)) is not None and few.checks == CHECKED_FLOOR
    _ended(slots, four, WINDOW, 0.0)  # cached answers: the call-seconds a check takes fall, the bound rises
    assert (more := slots.bound(DEADLINE_S, running=3)) is not None and more.checks > few.checks


def test_a_queue_standing_past_the_deadlines_share_admits_no_more_than_run() -> None:
    queue = Queue(4, call_s=1.0, waiting=20, running=4)  # a call asked now waits 21 calls / 4 slots, 5.25 s
    slots = CheckerSlots(lambda: [queue])
    _ended(slots, queue, WINDOW, 0.1)  # what was learnt would admit hundreds
    bound = slots.bound(DEADLINE_S, running=9)
    assert bound is not None and bound.checks == 9 and "would wait about 5.2 s" in bound.why
    assert queue.wait_s() == pytest.approx(21 / 4)


def test_no_queue_bounds_nothing_and_checks_that_hold_no_slot_time_bound_nothing() -> None:
    assert CheckerSlots(lambda: []).bound(DEADLINE_S, 100) is None
    queue = Queue(2, call_s=0.5)
    slots = CheckerSlots(lambda: [queue])
    _ended(slots, queue, WINDOW, 0.0)
    assert slots.bound(DEADLINE_S, 100) is None


def test_the_load_sheds_past_the_bound_and_an_operators_checks_at_once_wins() -> None:
    queue = Queue(2)
    load = CheckLoad()
    load.checker_slots = CheckerSlots(lambda: [queue])
    for _ in range(CHECKED_FLOOR):
        assert load.shed_now(0, 0.0, DEADLINE_S) is None
        load.start(0, who="a")
    shed = load.shed_now(0, 0.0, DEADLINE_S)
    assert shed is not None and shed.capacity == CHECKED_FLOOR and "2 slots at once" in shed.message
    assert load.shed_now(0, 0.0, 0.0) is None  # no deadline given: not reckoned
    assert load.shed_now(100, 0.0, DEADLINE_S) is None  # the operator's count of checks at once


CALL_S = 0.1  # each call of the one-slot checker
CHAT_DEADLINE_S = 3.0  # four checks of two calls each, one after the other: 0.8 s of the checker's time


class OneSlotServer(ScriptedBackend):
    """A checker whose calls wait in the queue of a model server of one slot (llm/in_flight.py), as the guard's
    calls to a local llama.cpp of one slot wait, each taking CALL_S."""

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        async with in_flight.slot("http://127.0.0.1:9/v1", 1):
            self.latency = CALL_S
            return await super().complete(messages, params)


def _chat(server: LiveServer) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
        "model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}],
        "factdebate": {**FAST, "deadline_s": CHAT_DEADLINE_S}})


def test_from_a_cold_start_behind_one_slot_a_burst_is_admitted_to_what_the_slot_answers_and_all_of_it_checked(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Nothing has missed a deadline yet: the queue's slot count alone bounds the burst (the loop's floor, 16 on
    two cores, would have let all twelve in to queue past their deadlines). The guard knows the server once it
    has called it: one chat first."""
    monkeypatch.setenv("FACTDEBATE_GUARD__ON_OVERLOAD", "503")
    monkeypatch.setenv("FACTDEBATE_GUARD__DEADLINE_S", str(CHAT_DEADLINE_S))
    server, _ = guard(backend=OneSlotServer(script(claims=[PARIS])))
    service: Service = server.server.config.app.state.service
    assert _chat(server).status_code == 200
    replies: list[httpx.Response] = []
    clients = [threading.Thread(target=lambda: replies.append(_chat(server))) for _ in range(12)]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    admitted = [reply for reply in replies if reply.status_code == 200]
    shed = [reply for reply in replies if reply.status_code == 503]
    assert len(admitted) + len(shed) == 12 and shed, [reply.text for reply in replies]
    assert all("its checker serves 1 slot at once" in reply.json()["detail"] for reply in shed), shed[0].text
    assert not any(reply.json()["factdebate"]["deadline_missed"] for reply in admitted)
    assert all(reply.json()["factdebate"]["claims"][0]["status"] == "checked" for reply in admitted)
    assert service.load.checked.limit > CHECKED_FLOOR  # no miss taught the checker's limit anything
