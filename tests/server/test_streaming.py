"""The SSE relay on its own: bursts, keep-alives, errors and cancellation."""

from __future__ import annotations

import asyncio

from factdebate.core.runtime import EventSink
from factdebate.core.types import Verdict
from factdebate.server.streaming import debate_events
from tests.server.conftest import parse_sse


def _verdict() -> Verdict:
    return Verdict(claim="c", method="test", label=None, decided_by="unparsed")


async def test_events_close_together_share_one_chunk_and_the_result_is_not_delayed() -> None:
    async def run(sinks: list[EventSink]) -> Verdict:
        for name in ("a", "b"):
            sinks[0]({"event": name})
        await asyncio.sleep(0.05)
        sinks[0]({"event": "c"})
        return _verdict()

    started = asyncio.get_running_loop().time()
    chunks = [chunk async for chunk in debate_events(run, flush_seconds=5)]
    assert asyncio.get_running_loop().time() - started < 1  # the end of the debate cut the 5 s wait short
    assert [[name for name, _ in parse_sse(c)] for c in chunks] == [["a", "b", "c", "result"]]


async def test_quiet_debates_get_keep_alive_comments() -> None:
    async def run(sinks: list[EventSink]) -> Verdict:
        await asyncio.sleep(0.12)
        return _verdict()

    text = "".join([chunk async for chunk in debate_events(run, ping_seconds=0.05, flush_seconds=0)])
    assert text.count(": keep-alive") >= 1 and text.rstrip().split("\n")[-2] == "event: result"


async def test_unexpected_failures_do_not_leak_details() -> None:
    async def run(sinks: list[EventSink]) -> Verdict:
        raise RuntimeError("password=hunter2 in some internal message")

    text = "".join([chunk async for chunk in debate_events(run)])
    (name, data), = parse_sse(text)
    assert name == "error" and data["type"] == "internal" and "hunter2" not in text


async def test_closing_the_stream_cancels_the_debate() -> None:
    cancelled = asyncio.Event()

    async def run(sinks: list[EventSink]) -> Verdict:
        sinks[0]({"event": "turn_started"})
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return _verdict()

    stream = debate_events(run, flush_seconds=0)
    assert "turn_started" in await anext(stream)
    await stream.aclose()  # what the server does when the client hangs up
    await asyncio.wait_for(cancelled.wait(), 2)


async def test_a_stream_gives_its_slot_back_before_its_response_ends() -> None:
    """A client that has read a stream's end may ask again at once: by then the slot must be free, or under
    ``max_active_runs`` its next request is refused (the event loop may serve that request before it runs what
    follows the last write)."""
    from collections.abc import AsyncGenerator, MutableMapping
    from typing import Any

    from factdebate.server.admission import SlotStream

    released: list[bool] = []
    free_at_end: list[bool] = []

    async def frames() -> AsyncGenerator[bytes, None]:
        yield b"event: result\ndata: {}\n\n"

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)  # the client stays: only the stream's own end ends the response
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            free_at_end.append(bool(released))

    response = SlotStream(frames(), lambda: released.append(True))
    await response({"type": "http", "asgi": {"spec_version": "2.4"}, "method": "POST", "path": "/"}, receive, send)
    assert free_at_end == [True] and released
