"""``usage.seconds`` means one thing on every route: the request's time on the service less
the wait for the upstream's answer. On a plain reply that wait is the upstream's call; on a stream it is the
time the upstream took to write the answer, which the streamed check used to count as its own."""

from __future__ import annotations

import asyncio
import time

from factdebate.guard_engine import GuardOptions, StreamingCheck
from tests.guard.support import PARIS_DOC, REPLY, script
from tests.helpers import StaticTool, resources_for

WRITING = 1.5  # seconds the upstream takes between its first sentence and the rest


async def test_a_streams_seconds_leave_out_the_upstreams_writing() -> None:
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, _, _ = resources_for(script(), method="single", tools=tools, guard={"tier": "fast", "max_tier": "fast"})
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions())
        opened = time.perf_counter()
        half = len(REPLY) // 2
        check.feed(REPLY[:half])
        await asyncio.sleep(WRITING)
        check.feed(REPLY[half:])
        last_token = time.perf_counter()
        result = await check.finish()
        ended = time.perf_counter()
    assert ended - opened >= WRITING
    # From the last token to the verdicts, not the writing before it (the first sentence was being checked
    # meanwhile: that is the upstream's time too, as a plain reply's check starts after its answer).
    assert result.usage.seconds <= ended - last_token + 0.001  # the reply rounds to the millisecond
    assert result.claims and all(c.status == "checked" for c in result.claims)
