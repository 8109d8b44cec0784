"""One key cannot turn the admission against the others. A deadline missed lowers the checker's limit of the key
whose check missed, forgotten a deadline after its last miss; the checker's queue serves the keys in turn, by the
seconds their calls take; the checker's slots are reckoned with the asking key's own checks. Driven first piece by
piece, then as a hundred seconds of three keys behind a checker of one slot on a virtual clock (the admission as
``admit_check`` makes it, the checker's calls as the guard's wait for a local server's slot), so what the tests see
is the same on any machine; then through the chat door."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable

import httpx
import pytest

from factdebate.llm import in_flight
from factdebate.llm.call_owner import CallOwner, own_calls
from factdebate.llm.in_flight import CallQueue
from factdebate.server.ops import adaptive, shedding
from factdebate.server.ops.adaptive import BACKOFF, CEILING, CHECKED_FLOOR, KEYS_KEPT, CheckedLimits
from factdebate.server.ops.checker_slots import SHARE, WINDOW, CheckerSlots
from factdebate.server.ops.shedding import CheckLoad
from factdebate.server.service import Service
from tests.guard.support import script
from tests.server.conftest import AUTH, LiveServer
from tests.server.guard.test_guard_chat import FAST, PARIS, Guard, guard  # noqa: F401 - the fixture
from tests.server.ops.test_overload_adaptive import OneSlotBackend
from tests.server.ops.test_overload_fair import AUTH_B, KEY_B
from tests.server.ops.test_overload_fair import KEY as KEY_A
from tests.server.ops.virtual_time import run_virtual

CHECKER = "http://127.0.0.1:9/v1"  # a local server of one slot, as the guard's calls to it queue (never called)


async def _call(seconds: float, who: str, started: list[tuple[str, float]]) -> None:
    own_calls(CallOwner(who))
    async with in_flight.slot(CHECKER, 1):
        started.append((who, asyncio.get_running_loop().time()))
        await asyncio.sleep(seconds)


def test_the_checkers_queue_serves_the_keys_in_turn_by_the_seconds_their_calls_take() -> None:
    async def main() -> tuple[list[tuple[str, float]], float, float, list[tuple[str, float]]]:
        learnt: list[tuple[str, float]] = []
        await _call(1.0, "a", learnt)  # what a call of each takes: a second, a quarter second
        await _call(0.25, "b", learnt)
        started: list[tuple[str, float]] = []
        calls = [asyncio.create_task(_call(1.0, "a", started)) for _ in range(6)]
        await asyncio.sleep(0.5)  # a's first call in hand, five waiting
        [queue] = CallQueue.on_this_loop()
        fifo, b_waits = queue.wait_s(), queue.wait_s("b")  # behind all of a's, or behind the call in hand
        calls += [asyncio.create_task(_call(0.25, "b", started)) for _ in range(4)]
        await asyncio.gather(*calls)
        alone: list[tuple[str, float]] = []  # one owner: first in, first out
        await asyncio.gather(*(_call(0.5, f"{n}", alone) for n in range(3)))
        return started, fifo, b_waits, alone

    started, fifo, b_waits, alone = run_virtual(main())
    assert fifo > b_waits > 0
    # b's calls go after the call in hand, not after a's five waiting: four of its quarter seconds to one second
    # of a's, equal shares of the slot's time
    assert [who for who, _ in started] == ["a", "b", "b", "b", "b", "a", "a", "a", "a", "a"]
    assert next(at for who, at in started if who == "b") == 1.25 + 1.0
    assert [who for who, _ in alone] == ["0", "1", "2"]


def test_a_call_cancelled_while_it_waits_leaves_the_queue_and_the_slot_goes_on() -> None:
    async def main() -> tuple[list[str], int, float]:
        started: list[tuple[str, float]] = []
        first = asyncio.create_task(_call(1.0, "a", started))
        waiting = [asyncio.create_task(_call(1.0, who, started)) for who in ("a", "b", "c")]
        await asyncio.sleep(0.1)
        [queue] = CallQueue.on_this_loop()
        waiting[1].cancel()  # b's deadline cut its check
        await asyncio.sleep(0.1)
        left = queue.waiting
        await asyncio.gather(first, waiting[0], waiting[2])
        return [who for who, _ in started], left, queue.wait_s("b")

    order, left, waits = run_virtual(main())
    assert order == ["a", "c", "a"] and left == 2 and waits == 0.0  # c in its turn, b's gone; nothing waits


def test_a_deadline_missed_lowers_the_limit_of_its_key_alone_until_a_deadline_passes_without_one() -> None:
    now = [0.0]
    limits = CheckedLimits(clock=lambda: now[0])
    limits.missed("a", 20, deadline_s=60)
    assert limits.of("a") == pytest.approx(20 * BACKOFF) and limits.of("b") == CEILING
    limits.missed("b", CHECKED_FLOOR, deadline_s=60)  # a few running say nothing of the checker: nothing kept
    assert limits.of("b") == CEILING and limits.limit == pytest.approx(20 * BACKOFF)
    now[0] = 50.0
    limits.missed("a", 2, deadline_s=60)  # its checks still miss: its limit is kept a deadline from now
    now[0] = 100.0
    assert limits.of("a") == pytest.approx(20 * BACKOFF)
    now[0] = 110.0  # a deadline since a's last miss
    assert limits.of("a") == CEILING and limits.limit == CEILING
    for n in range(KEYS_KEPT + 10):  # many keys: the ones that missed last are kept
        limits.missed(f"k{n}", 20, deadline_s=60)
    assert limits.of("k0") == CEILING and limits.of(f"k{KEYS_KEPT + 9}") < CEILING
    assert len(limits._keys) == KEYS_KEPT


def test_the_checkers_slots_are_reckoned_with_the_asking_keys_own_checks() -> None:
    queue = CallQueue(8)
    slots = CheckerSlots(lambda: [queue])
    deadline = 60.0
    for _ in range(WINDOW):  # a's checks each hold the slots 400 s (many calls at once), b's half a second
        queue.busy_s += 400.5
        slots.check_ended("a", {queue: 400.0})
        slots.check_ended("b", {queue: 0.5})
    heavy, light = slots.bound(deadline, 4, "a"), slots.bound(deadline, 4, "b")
    assert heavy is not None and heavy.checks == CHECKED_FLOOR and "about 4e+02 s" in heavy.why
    assert light is not None and light.checks == int(8 * deadline * SHARE / 0.5)
    service = slots.bound(deadline, 4)  # the service's own average, mostly a's: fewer than its slots
    assert service is not None and service.checks == CHECKED_FLOOR and "about 2e+02 s" in service.why
    new = slots.bound(deadline, 4, "c")  # a key not learnt yet is admitted as by a service that learnt nothing
    assert new is not None and new.checks == 8 and "how long this key's checks hold them is not known" in new.why


# A hundred seconds behind a checker of one slot. Key A's checks each make 40 calls of 1 s at once (a long reply's
# claims checked in parallel): 40 s of the checker alone, more beside others, past their 60 s deadline. A keeps
# four clients asking back to back (a second after a refusal). Keys B and C each ask every 2 s for a check of two
# calls of a quarter second.
DEADLINE_S = 60.0
RUN_S = 100.0
HEAVY = (40, 1.0)
LIGHT = (2, 0.25)


class Simulated:
    """One process's admission as ``admit_check`` makes it (the shed, the fair turn, the start, the check's
    calls owned by its key, its end taught to its key), the key of each client given by ``key``."""

    def __init__(self, key: Callable[[str], str] = lambda client: client) -> None:
        self.key = key
        self.load = CheckLoad()
        self.load.checked = CheckedLimits(clock=lambda: asyncio.get_running_loop().time())
        self.load.lag.on_interval = None  # the loop's limit stays at its floor
        self.outcomes: dict[str, Counter[str]] = {}
        self.refusals: Counter[str] = Counter()

    async def check(self, client: str, calls: int, call_s: float) -> str:
        """``shed``, or ``checked`` or ``missed`` (its deadline cut it)."""
        who, load = self.key(client), self.load
        shed = load.shed(0, DEADLINE_S, 0.0, 0.0, DEADLINE_S, who)
        past = shed is not None and load.fair_turn(who, shed.capacity)
        if shed is not None and not past:
            self.refusals[shed.why.split(" (")[0].split(", ", 1)[1]] += 1
            return self._said(client, "shed")
        owner = CallOwner(who)
        own_calls(owner)
        end = load.start(0, 0.0, who, past, owner.held_s)
        try:
            async with asyncio.timeout(DEADLINE_S):
                await asyncio.gather(*(self._call(call_s) for _ in range(calls)))
            outcome = "checked"
        except TimeoutError:
            outcome = "missed"
        load.check_ended(outcome == "missed", who, DEADLINE_S)
        end()
        return self._said(client, outcome)

    def _said(self, client: str, outcome: str) -> str:
        self.outcomes.setdefault(client, Counter())[outcome] += 1
        return outcome

    @staticmethod
    async def _call(seconds: float) -> None:
        async with in_flight.slot(CHECKER, 1):
            await asyncio.sleep(seconds)

    async def heavy_client(self) -> None:
        while asyncio.get_running_loop().time() < RUN_S:
            if await self.check("A", *HEAVY) == "shed":
                await asyncio.sleep(1.0)

    async def light_client(self, client: str, asked: list[asyncio.Task[str]]) -> None:
        while asyncio.get_running_loop().time() < RUN_S:
            asked.append(asyncio.create_task(self.check(client, *LIGHT)))
            await asyncio.sleep(2.0)

    async def run(self) -> None:
        """The hundred seconds, to the end of the last check admitted in them."""
        asked: list[asyncio.Task[str]] = []
        await asyncio.gather(*(self.heavy_client() for _ in range(4)), self.light_client("B", asked),
                             self.light_client("C", asked))
        await asyncio.gather(*asked)

    async def burst(self, clients: list[str], each: int) -> int:
        """Each of ``clients`` asks ``each`` checks at once: how many were admitted."""
        outcomes = await asyncio.gather(*(self.check(c, *LIGHT) for _ in range(each) for c in clients))
        return sum(outcome != "shed" for outcome in outcomes)


@pytest.fixture(autouse=True)
def _two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's floor as on two cores (16 checks), whatever this machine has."""
    monkeypatch.setattr(adaptive, "CORES", 2.0)
    monkeypatch.setattr(shedding, "CORES", 2.0)


def _admitted(outcomes: Counter[str]) -> float:
    return (outcomes["checked"] + outcomes["missed"]) / sum(outcomes.values())


def test_key_as_slow_checks_behind_one_slot_leave_b_and_c_admitted_and_checked() -> None:
    service = Simulated()
    run_virtual(service.run())
    b, c, a = service.outcomes["B"], service.outcomes["C"], service.outcomes["A"]
    assert sum(b.values()) == sum(c.values()) == RUN_S / 2
    assert _admitted(b) >= 0.9 and _admitted(c) >= 0.9, service.outcomes  # at least half, as the goal asks
    assert b["missed"] == c["missed"] == 0  # and checked in time: their calls are not behind A's
    assert a["missed"] >= 4 and a["shed"] > a["missed"]  # A's checks miss, and A's own requests are shed
    assert service.refusals["as many as its checker answers within their deadlines now"] > 0
    # Every caller one key (allow_anonymous): the same load sheds B's and C's requests, which cannot be told apart
    # from A's
    anonymous = Simulated(key=lambda client: "")
    run_virtual(anonymous.run())
    assert _admitted(anonymous.outcomes["B"]) < 0.5 and _admitted(anonymous.outcomes["C"]) < 0.5


def test_once_key_a_stops_a_burst_is_admitted_as_on_a_fresh_service() -> None:
    async def fresh(clients: list[str]) -> int:
        service = Simulated()
        await service.check("B", *LIGHT)  # the checker called once: its slot is known
        return await service.burst(clients, 12)

    async def after_a(service: Simulated) -> tuple[int, int, int]:
        await service.run()  # A's last check has ended
        others = await service.burst(["B", "C"], 12)  # right after
        newcomers = await service.burst(["D", "E"], 12)
        await asyncio.sleep(DEADLINE_S)  # a deadline after A's last miss
        return others, newcomers, await service.burst(["A"], 12)

    service = Simulated()
    others, newcomers, heavy = run_virtual(after_a(service))
    assert service.load.checked.limit == CEILING  # nothing lowered is left
    one_slot = run_virtual(fresh(["B", "C"]))
    assert one_slot == CHECKED_FLOOR  # a fresh service admits what one slot answers before it has learnt more
    assert others >= one_slot and newcomers >= one_slot and heavy >= run_virtual(fresh(["A"]))
    assert others == newcomers == 16  # B's and C's checks are known to be light: the loop's floor holds them


DOOR_DEADLINE_S = 2.0  # test_overload_adaptive's: a burst of 12 in one slot of 0.2 s a call misses it


def _burst(server: LiveServer, auth: dict[str, str], count: int) -> list[httpx.Response]:
    replies: list[httpx.Response] = []

    def chat() -> None:
        replies.append(httpx.post(f"{server.url}/v1/chat/completions", headers=auth, timeout=60, json={
            "model": "scripted", "messages": [{"role": "user", "content": "Tell me about Paris."}],
            "factdebate": {**FAST, "deadline_s": DOOR_DEADLINE_S}}))

    clients = [threading.Thread(target=chat) for _ in range(count)]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    return replies


def test_through_the_chat_door_one_keys_missed_deadlines_shed_its_own_requests_and_no_one_elses(
        guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("FACTDEBATE_GUARD__ON_OVERLOAD", "503")
    monkeypatch.setenv("FACTDEBATE_GUARD__DEADLINE_S", str(DOOR_DEADLINE_S))
    server, _ = guard(backend=OneSlotBackend(script(claims=[PARIS])), api_keys=[KEY_A, KEY_B])
    service: Service = server.server.config.app.state.service
    now = [0.0]
    service.load.checked.clock = lambda: now[0]  # the keys' limits are forgotten when the test says
    first = _burst(server, AUTH, 12)
    assert [reply.status_code for reply in first] == [200] * 12, [reply.text for reply in first]
    assert sum(reply.json()["factdebate"]["deadline_missed"] for reply in first) >= 4
    other = _burst(server, AUTH_B, 12)  # right after: A's misses lowered A's limit, not B's
    assert [reply.status_code for reply in other] == [200] * 12, [reply.text for reply in other]
    again = _burst(server, AUTH, 8)
    shed = [reply for reply in again if reply.status_code == 503]
    assert shed and all(reply.status_code == 200 for reply in again if reply not in shed)
    assert all("as many as its checker answers within their deadlines now" in reply.json()["detail"]
               and "for this key" in reply.json()["detail"] for reply in shed), [reply.text for reply in shed]
    now[0] += DOOR_DEADLINE_S  # a deadline without a miss of A's: its limit is forgotten
    fresh = _burst(server, AUTH, 12)
    assert [reply.status_code for reply in fresh] == [200] * 12, [reply.text for reply in fresh]
