"""``usage`` as the wire saw it: every model call sent counts, one the deadline cut before its answer too, and
answers taken from the model cache are counted apart (``cached_calls``), never as calls sent. A check's clock
starts at the request's arrival when there is one (guard_engine/clock.py)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from factdebate.guard_engine import GuardOptions, check_text
from factdebate.guard_engine.clock import not_counted, request_clock
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings
from tests.guard.support import REPLY, SlowBackend, run_check, script
from tests.helpers import BagOfWordsEncoder, StaticTool

ROME_CHECK = "Statement: The Eiffel Tower is in Rome."  # the fast tier's prompt for that claim, not the extractor's
WINDOW = "in one pass"  # the fast tier's window call (guard.window_call, the default): claims and verdicts at once


async def test_a_call_the_deadline_cut_is_counted_as_sent() -> None:
    backend = SlowBackend(script(), slow={ROME_CHECK: 30.0})
    result, scripted = await run_check(None, backend=backend, tier="fast", deadline_s=1.0,
                                       guard={"window_call": False})
    rome = next(c for c in result.claims if "Rome" in c.claim)
    assert rome.status == "unchecked"
    # The backend answered the extraction, the Paris claim and its stance (guard_engine/stance.py); the Rome call
    # was sent and cut: four sent.
    assert len(scripted.calls) == 3 and result.usage.model_calls == 4 and result.usage.cached_calls == 0


async def test_a_window_call_the_deadline_cut_is_counted_as_sent() -> None:
    backend = SlowBackend(script(), slow={WINDOW: 30.0})
    result, scripted = await run_check(None, backend=backend, tier="fast", deadline_s=1.0)
    assert result.deadline_missed and all("deadline" in (c.reason or "") for c in result.claims)
    # The one call was sent and cut before its answer: one sent, none answered.
    assert len(scripted.calls) == 0 and result.usage.model_calls == 1 and result.usage.cached_calls == 0


async def test_cached_answers_are_counted_apart_from_calls_sent(tmp_path: Path) -> None:
    settings = load_settings(overrides={"method": "single", "llm": {"cache": True}}, environ={})
    tools = {kind: StaticTool(kind) for kind in ("rag", "search")}
    from factdebate.llm.scripted import ScriptedBackend

    backend = ScriptedBackend(script())
    resources = build_resources(settings, backends={"debater": backend}, tool_factory=lambda kind: tools[kind],
                                encoder_factory=BagOfWordsEncoder, cache_path=tmp_path / "cache.sqlite")
    options = GuardOptions(tier="fast", deadline_s=30)
    async with resources:
        first = await check_text(REPLY, settings, resources, options=options)
        sent = len(backend.calls)
        second = await check_text(REPLY, settings, resources, options=options)
    # What the backend was sent, exactly; an answer one call took from another identical one is apart.
    assert first.usage.model_calls == sent
    asked = first.usage.model_calls + first.usage.cached_calls
    # The same reply again: every answer comes from the cache, nothing is sent, and usage says so.
    assert len(backend.calls) == sent
    assert second.usage.model_calls == 0 and second.usage.cached_calls == asked


async def test_the_deadline_counts_from_the_requests_arrival_less_the_upstreams_wait() -> None:
    backend = SlowBackend(script(), slow={WINDOW: 30.0})
    with request_clock(time.perf_counter() - 0.8):  # the service spent 0.8 s before the check began
        with not_counted():
            await asyncio.sleep(0.3)  # the upstream's answer: not the check's time
        began = time.perf_counter()
        result, _ = await run_check(None, backend=backend, tier="fast", deadline_s=2.0)
        took = time.perf_counter() - began
    # 0.8 s of the 2 s were gone before the check began: it ends well before 2 s more, and says 2 s or more.
    assert took < 1.9 and result.usage.seconds >= 2.0
    assert result.deadline_missed and result.label is None


async def test_without_a_request_the_clock_starts_with_the_check() -> None:
    result, _ = await run_check(None, tier="fast", deadline_s=5.0, backend=SlowBackend(script(), slow={}))
    assert result.usage.seconds < 5.0 and all(c.status == "checked" for c in result.claims)
