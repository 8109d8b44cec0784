"""The adaptive limits on checks in flight (server/ops/adaptive.py), driven by given intervals and check ends
rather than a real loop and checker, so what they do is the same on any machine: the loop's limit grows while it
binds and the loop keeps up, falls to the checks running when the loop is late, and never falls below its floor;
the checker's limit falls on checks past their deadlines and grows on checks within them; the load's admission
sheds past either with a forecast, fair between keys."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from factdebate.server.ops import adaptive
from factdebate.server.ops.adaptive import (
    BACKOFF,
    CEILING,
    CHECKED_FLOOR,
    FLOOR_PER_CORE,
    TARGET_S,
    AdaptiveLimit,
    CheckedLimit,
    floor_of,
)
from factdebate.server.ops.shedding import CheckLoad
from factdebate.util.cores import usable_cores

LATE, ON_TIME = 10 * TARGET_S, 0.0


def test_the_floor_is_eight_checks_a_core_or_checks_at_once_where_larger() -> None:
    assert floor_of(0) == int(FLOOR_PER_CORE * max(1.0, usable_cores()))
    assert floor_of(100_000) == 100_000  # an operator's high checks_at_once lifts the floor: the limit is off


def test_it_grows_while_it_binds_and_the_loop_keeps_up() -> None:
    limit = AdaptiveLimit()
    assert limit.at_least(16) == 16
    limit.observe(ON_TIME, 16)
    assert limit.limit == pytest.approx(16 + 0.3 * 4)  # its square root as room, smoothed
    grown = limit.limit
    limit.observe(ON_TIME, 4)  # few running: the limit does not bind, nothing learnt of room above it
    assert limit.limit == grown
    for _ in range(50):  # ten seconds of intervals
        limit.observe(ON_TIME, int(limit.limit))
    assert limit.limit > 100


def test_at_the_target_it_holds_and_a_late_loop_brings_it_down_to_the_checks_running_never_below_the_floor() -> None:
    limit = AdaptiveLimit()
    limit.at_least(16)
    limit.limit = 100.0
    limit.observe(TARGET_S / 0.9, 100)  # a gradient of 0.9 with room of 10: the limit stays where it is
    assert limit.limit == pytest.approx(100.0)
    limit.limit = 400.0
    limit.observe(LATE, 50)  # far above the checks running: down to them at once, with room for random peaks
    assert limit.limit == pytest.approx(50 + adaptive.LATE_ROOM * 50 ** 0.5)
    for _ in range(100):
        limit.observe(LATE, 40)
    assert limit.limit == 16.0 and limit.at_least(16) == 16


def test_the_checkers_limit_falls_on_checks_past_their_deadlines_and_grows_back_on_checks_within_them() -> None:
    checker = CheckedLimit()
    checker.checked(3)
    assert checker.limit == CEILING  # nothing missed: no limit
    checker.missed(CHECKED_FLOOR)  # a few slow checks say nothing of the checker's slots
    assert checker.limit == CEILING
    checker.missed(20)
    assert checker.limit == pytest.approx(20 * BACKOFF)
    for _ in range(50):
        checker.missed(20)
    assert checker.limit == CHECKED_FLOOR  # a second check is always admitted
    checker.checked(1)  # not binding: nothing learnt
    assert checker.limit == CHECKED_FLOOR
    for _ in range(CHECKED_FLOOR):  # as many checks within their deadlines as the limit: one more
        checker.checked(CHECKED_FLOOR)
    assert checker.limit == pytest.approx(CHECKED_FLOOR + 1, rel=0.1)


def test_past_the_limit_a_request_is_shed_with_a_forecast_and_a_light_key_still_gets_its_share(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adaptive, "FLOOR_PER_CORE", 0)  # the floor is checks_at_once alone: a small limit
    load = CheckLoad()
    ends = [load.start(4, who="heavy") for _ in range(4)]
    shed = load.shed_now(4)
    assert shed is not None and shed.capacity == 4
    assert re.fullmatch(r"the service is checking 4 replies at once, what it serves now \(a limit that falls "
                        r"while its event loop runs late and grows while it keeps up, never below 4\); room for "
                        r"it is forecast in about \d+\.\d s", shed.why), shed.why
    assert shed.retry_after_s >= 1
    assert not load.fair_turn("heavy", shed.capacity)  # the flood's next request is the one shed
    assert load.fair_turn("light", shed.capacity)  # the light key is under its share of 2, the heavy above it
    light = [load.start(4, who="light", past=True)]
    assert load.fair_turn("light", shed.capacity)
    light.append(load.start(4, who="light", past=True))
    assert not load.fair_turn("light", shed.capacity)  # its share of the limit reached
    for end in ends + light:
        end()
    assert load.shed_now(4) is None and load.running == 0 and load.past == 0 and load.held == {}


def test_checks_past_their_deadlines_shed_what_the_checker_would_not_answer_in_time() -> None:
    load = CheckLoad()
    ends = [load.start(0, who="k") for _ in range(CHECKED_FLOOR + 2)]
    assert load.shed_now(0) is None  # under the loop's floor
    for _ in range(3):
        load.check_ended(past_deadline=True)
    shed = load.shed_now(0)
    assert shed is not None and shed.capacity == CHECKED_FLOOR
    assert shed.why.startswith(f"the service is checking {CHECKED_FLOOR + 2} replies at once, as many as its "
                               f"checker answers within their deadlines now (checks that ran past their deadlines "
                               f"brought it to {CHECKED_FLOOR})"), shed.why
    for end in ends:
        end()
    assert load.shed_now(0) is None  # nothing running: the next check is admitted


def test_at_the_capacity_admissions_are_paced_and_below_it_none_are(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adaptive, "FLOOR_PER_CORE", 0)  # the floor is checks_at_once alone: a limit of 8
    load = CheckLoad()
    ends = [load.start(8, who="heavy") for _ in range(7)]
    load.pace.ended(800.0)  # a check holds its place 800 s: a credit every 800 / 8 / PACE seconds, none here
    assert load.shed_now(8) is None  # the limit has refused nothing (below the capacity): never paced
    ends.append(load.start(8, who="heavy"))
    full = load.shed_now(8)  # the limit refuses: the service is at its capacity
    assert full is not None and full.capacity == 8
    ends.pop()()  # room under the limit, and no credit in hand: the next is paced
    paced = load.shed_now(8)
    assert paced is not None and paced.capacity == 7 and paced.retry_after_s >= 1  # what the pace holds
    assert re.fullmatch(r"the service is checking 7 replies at once, at its capacity, and admits one more as its "
                        r"pace allows; room for it is forecast in about \d+\.\d s", paced.why), paced.why
    assert load.fair_turn("light", paced.capacity)  # max-min fair under the pace as under the limit
    assert not load.fair_turn("heavy", paced.capacity)
    load.pace.credit = 5.0  # credits in hand (they came while it waited): at most PACE_BURST together
    assert load.shed_now(8) is None
    ends.append(load.start(8, who="heavy"))
    for end in ends[:2]:
        end()
    ends = ends[2:]
    assert load.shed_now(8) is None  # the second of PACE_BURST
    ends.append(load.start(8, who="heavy"))
    ends.pop()()
    assert load.shed_now(8) is not None  # none left in hand
    while load.running >= adaptive.PACE_FROM * 8:  # few running for the limit: never paced
        ends.pop()()
    assert load.shed_now(8) is None
    ends += [load.start(8, who="heavy") for _ in range(8 - load.running - 1)]
    assert load.shed_now(8) is not None  # paced again at 7 of 8
    load.pace._full_at -= 1000  # the limit has refused nothing for longer than a check holds its place
    assert load.shed_now(8) is None
    for end in ends:
        end()


def test_unpaced_a_full_limit_admits_each_freed_place_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adaptive, "FLOOR_PER_CORE", 0)
    monkeypatch.setattr(adaptive, "PACE", 0.0)  # pacing off (benchmarks/guard_load.py --variant compares it)
    load = CheckLoad()
    ends = [load.start(8, who="k") for _ in range(8)]
    load.pace.ended(800.0)
    assert load.shed_now(8) is not None
    ends.pop()()
    assert load.shed_now(8) is None
    for end in ends:
        end()


def test_a_key_under_its_share_of_the_checks_running_is_not_paced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adaptive, "FLOOR_PER_CORE", 0)  # a limit of 8
    load = CheckLoad()
    heavy = [load.start(8, who="heavy") for _ in range(8)]
    load.pace.ended(800.0)  # no credit comes within the test
    assert load.shed_now(8) is not None  # full: paced from here
    for end in heavy[:3]:
        end()
    light = load.start(8, who="light")
    paced = load.shed_now(8)  # 6 running, under the limit: the pace refuses
    assert paced is not None and paced.capacity == 6 and "pace" in paced.why
    assert load.fair_turn("light", paced.capacity)  # 1 of 6, under its share of 3, while the flood holds 5
    assert not load.fair_turn("heavy", paced.capacity)  # the flood's next request is the one paced
    for end in [light, *heavy[3:]]:
        end()


def test_the_floor_counts_the_cores_this_process_may_use_not_the_host_s() -> None:
    """Pinned to one core of a larger machine (taskset, a container's cpuset), the floor is one core's: a guard
    that counted the host's sixteen would shed nothing below 128 checks on a core that serves far fewer."""
    if not hasattr(os, "sched_getaffinity") or (os.cpu_count() or 1) < 2:
        pytest.skip("needs a machine with an affinity mask of more than one core")
    code = ("import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
            "from factdebate.server.ops.adaptive import floor_of, FLOOR_PER_CORE; "
            "print(floor_of(0), FLOOR_PER_CORE)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) == int(out[1])  # one core's floor
