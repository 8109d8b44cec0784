"""Progress notifications for MCP tool calls that take longer than a second: an agent waiting on a
check that takes tens of seconds learns it is alive and how far it got, instead of guessing from silence.

While a tool runs, a notification goes out every :data:`EVERY_S` seconds: the seconds elapsed as ``progress``
(it must grow with each notification) and, as ``message``, what the run last reported (its events: claims
extracted, a claim decided, a round begun). The SDK sends them only to a request that asked for them (a
``progressToken`` in its ``_meta``); for any other it does nothing."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.mcpserver import Context

from factdebate.engine import EventSink

EVERY_S = 1.0


def describe(event: dict[str, Any]) -> str | None:
    """A run's event as a person reads it, or None for the events that say nothing new."""
    kind = event.get("event")
    if kind == "claims_extracted":
        return f"{len(event.get('claims', []))} claim(s) to check"
    if kind == "run_started":
        return f"checking: {str(event.get('claim', ''))[:70]}"
    if kind == "turn_started":
        return f"{event.get('agent', 'an agent')} is answering"
    if kind == "round":
        return f"round {event.get('round')} done"
    if kind == "verdict":
        return f"claim decided: {event.get('label') or 'no label'}"
    return None


@contextlib.asynccontextmanager
async def reporting(context: Context[Any, Any] | None, what: str) -> AsyncIterator[EventSink]:
    """Send progress while the block runs; yields the sink that the run's events go to."""
    latest = [what]
    started = time.monotonic()

    def sink(event: dict[str, Any]) -> None:
        latest[0] = describe(event) or latest[0]

    async def tick() -> None:
        assert context is not None
        sent = 0.0
        while True:
            await asyncio.sleep(EVERY_S)
            elapsed = time.monotonic() - started
            sent = max(round(elapsed, 2), sent + 0.01)  # MCP: each notification's progress above the last
            try:
                await context.report_progress(sent, None, f"{latest[0]} ({elapsed:.1f} s)")
            except (ValueError, RuntimeError):  # no request to report to (a call made in process): stop
                return

    ticker = asyncio.create_task(tick()) if context is not None else None
    try:
        yield sink
    finally:
        if ticker is not None:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
