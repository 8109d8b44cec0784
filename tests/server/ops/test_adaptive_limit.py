"""The adaptive limit on checks in flight (server/ops/adaptive.py), driven by given intervals rather than a real
loop, so what it does is the same on any machine: it grows while the limit binds and the loop keeps up, falls to a
share of the checks running under a standing delay, and never falls below its floor; the load's admission sheds
past it with a forecast, fair between keys."""

from __future__ import annotations

import math
import os
import re

import pytest

from factdebate.server.ops import adaptive
from factdebate.server.ops.adaptive import BACKOFF, FLOOR_PER_CORE, TARGET_S, AdaptiveLimit, floor_of
from factdebate.server.ops.shedding import CheckLoad

LATE, ON_TIME = 10 * TARGET_S, 0.0


def test_the_floor_is_eight_checks_a_core_or_checks_at_once_where_larger() -> None:
    cores = os.cpu_count() or 1
    assert floor_of(0) == FLOOR_PER_CORE * cores
    assert floor_of(100_000) == 100_000  # an operator's high checks_at_once lifts the floor: the limit is off


def test_it_grows_while_it_binds_and_the_loop_keeps_up() -> None:
    limit = AdaptiveLimit()
    assert limit.at_least(16) == 16
    limit.observe(ON_TIME, 16)
    assert limit.limit == 20.0  # by its square root
    limit.observe(ON_TIME, 4)  # few running: the limit does not bind, nothing learnt of room above it
    assert limit.limit == 20.0
    for _ in range(20):  # four seconds of intervals
        limit.observe(ON_TIME, int(limit.limit))
    assert limit.limit > 200  # a capacity of hundreds is found within seconds


def test_a_standing_delay_brings_it_to_a_share_of_the_checks_running_never_below_the_floor() -> None:
    limit = AdaptiveLimit()
    limit.at_least(16)
    limit.limit = 400.0
    limit.observe(LATE, 50)  # a limit far above the checks running falls to what ran, not by a tenth of itself
    assert limit.limit == pytest.approx(50 * BACKOFF)
    for _ in range(100):
        limit.observe(LATE, 40)
    assert limit.limit == 16.0 and limit.at_least(16) == 16


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


def test_the_limit_found_is_the_admission_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adaptive, "FLOOR_PER_CORE", 0)
    load = CheckLoad()
    ends = [load.start(2, who="k") for _ in range(2)]
    assert load.shed_now(2) is not None  # at its floor of 2
    load.adaptive.observe(ON_TIME, load.running)  # an interval on time with the limit full
    assert load.adaptive.limit == pytest.approx(2 + math.sqrt(2))
    ends.append(load.start(2, who="k"))
    assert load.shed_now(2) is not None  # 3 running of a limit of 3.4: a fourth waits
    for end in ends:
        end()
