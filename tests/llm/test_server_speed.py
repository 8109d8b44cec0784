"""The timeout advice of docs/configuration.md: ``benchmarks/server_speed.py`` measures
a server's reading and writing speeds through factdebate's client and sizes ``llm.timeout`` from the
slowest call at those speeds, so a busy 2-core machine at 0.3-1.5 tokens/s gets minutes, not 120 s."""

from __future__ import annotations

import pytest

from benchmarks.server_speed import Speed, measure, suggested_timeout
from factdebate.run.build import build_resources
from tests.fake_openai import FakeOpenAI
from tests.llm.test_in_flight import settings_for


def test_the_timeout_is_the_slowest_call_at_the_measured_speed_with_a_margin() -> None:
    slow = Speed(prompt_tps=20.0, gen_tps=1.5)  # a busy 2-core machine: 2000/20 + 480/1.5 = 420 s
    assert suggested_timeout(slow) == 840
    assert suggested_timeout(slow, margin=1.0) == 420
    assert suggested_timeout(Speed(prompt_tps=500.0, gen_tps=50.0)) == 120  # fast: the default stays


async def test_measure_reads_the_speeds_from_the_servers_usage(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(reply="yes", one_at_a_time=True, delay=0.2) as server:  # usage: 11 prompt, 3 generated
        llm = build_resources(settings_for(server, monkeypatch, timeout=30)).llm("debater")  # type: ignore[arg-type]
        speed = await measure(llm, prompt_words=20, gen_tokens=8, repeats=1)
    assert 0 < speed.prompt_tps < 11 / 0.2 + 1 and speed.gen_tps > 0
    assert len(server.requests) == 2
