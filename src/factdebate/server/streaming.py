"""Server-Sent Events for one debate: every trace event as it happens, then ``result`` (the verdict JSON)
or ``error``, then the stream ends.

Events are written in small bursts: after the first pending event the stream waits up to ``flush_seconds``
for the events that follow it (the two agents of a round finish within moments of each other) and sends
them in one chunk. Under load this divides the socket writes per debate several times over; the last
frames go out at once, so a verdict is never delayed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from factdebate.engine import EventSink, Verdict
from factdebate.util.errors import FactDebateError
from factdebate.util.scrub import hide_endpoints

log = logging.getLogger("factdebate.server")

RunFn = Callable[[list[EventSink]], Awaitable[Verdict]]
TRANSCRIPT_CHARS = 12_000  # of each text of a model call that a stream's transcript carries (VerifyOptions says it)
_DONE: dict[str, Any] = {"event": "__done__"}
_PING: dict[str, Any] = {"event": "__ping__"}
# An event's fields that may name an endpoint: a failure's reason, and a model call's model ("openai:x@<url>").
_NAMES_ENDPOINT = ("error", "message", "reason", "model")


def sse(event: str, data: Any) -> str:
    """One SSE frame. JSON never holds a raw newline, so a single ``data:`` line is enough."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return f"event: {event}\ndata: {payload}\n\n"


def for_caller(exc: Exception) -> str:
    """What a service's caller reads of ``exc``: its message without the operator's addresses and secrets, or
    what the error gives a caller in its place where the message is the operator's alone (a data folder the
    service cannot use: the operator's to fix, and its path the operator's to know)."""
    if isinstance(exc, FactDebateError) and exc.caller_message is not None:
        return exc.caller_message
    return hide_endpoints(str(exc))


def error_payload(exc: BaseException) -> dict[str, str]:
    if isinstance(exc, FactDebateError):
        log.warning("a streamed check failed: %s", exc)  # the endpoint's address stays in the server's log
        return {"type": type(exc).__name__, "message": for_caller(exc)}
    # Unexpected failures keep their details in the server log, not in the client's stream.
    return {"type": "internal", "message": "the verification failed unexpectedly; see the server log"}


class _Relay:
    """Collects one debate's events from its sinks and hands them to the stream in bursts."""

    def __init__(self, ping_seconds: float) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.ping_seconds = ping_seconds
        # One timer per stream for keep-alives rather than a timeout around every wait: far cheaper under load.
        self.pinger = self.loop.call_later(ping_seconds, self.ping)
        self.waiter: asyncio.Future[None] | None = None

    def sink(self, event: dict[str, Any]) -> None:
        try:
            on_loop = asyncio.get_running_loop() is self.loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self.queue.put_nowait(event)
        else:  # an event from a worker thread
            self.loop.call_soon_threadsafe(self.queue.put_nowait, event)

    def ping(self) -> None:
        self.queue.put_nowait(_PING)
        self.pinger = self.loop.call_later(self.ping_seconds, self.ping)

    def wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def finished(self, _: object) -> None:
        self.queue.put_nowait(_DONE)
        self.wake()  # the verdict goes out now, not at the end of a flush wait

    async def linger(self, seconds: float) -> None:
        """Wait ``seconds`` for the events that follow, or less if the debate ends meanwhile."""
        self.waiter = self.loop.create_future()
        timer = self.loop.call_later(seconds, self.wake)
        try:
            await self.waiter
        finally:
            timer.cancel()
            self.waiter = None

    def close(self) -> None:
        self.pinger.cancel()


class _Transcribed:
    """A stream's sink that asks for the text of its run's model calls in their ``llm_call`` events, each text cut
    after ``transcript`` characters (the run reads it from its sinks: core/runtime.py)."""

    transcript = TRANSCRIPT_CHARS

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink

    def __call__(self, event: dict[str, Any]) -> None:
        self.sink(event)


def transcribed(run: RunFn, wanted: bool) -> RunFn:
    """``run`` with the text of its model calls in its ``llm_call`` events when the request asked for it
    (``"transcript": true``; llm/transcript.py): its stream's sinks ask for it, so no other run is touched."""
    if not wanted:
        return run

    async def with_text(sinks: list[EventSink]) -> Verdict:
        return await run([_Transcribed(sink) for sink in sinks])

    return with_text


async def debate_events(run: RunFn, ping_seconds: float = 15.0,
                        flush_seconds: float = 0.01) -> AsyncGenerator[str, None]:
    """Runs the debate in a task and relays its events; the task is cancelled if the client goes away."""
    relay = _Relay(ping_seconds)
    task = asyncio.ensure_future(run([relay.sink]))
    task.add_done_callback(relay.finished)
    try:
        while True:
            frames = [_frame(await relay.queue.get())]
            if flush_seconds > 0 and frames[0] is not None and not task.done():
                await relay.linger(flush_seconds)
            while not relay.queue.empty():
                frames.append(_frame(relay.queue.get_nowait()))
            text = "".join(f for f in frames if f)
            if None in frames:
                yield text + _final_frame(task)
                return
            if text:
                yield text
    finally:
        relay.close()
        if not task.done():
            task.cancel()


async def debate_stream(run: RunFn, ping_seconds: float = 15.0,
                        flush_seconds: float = 0.01) -> AsyncGenerator[bytes, None]:
    """:func:`debate_events` as the bytes a response writes. Whatever happens, the stream ends with
    ``result`` or ``error``: text no UTF-8 socket can carry (a lone surrogate) is replaced rather than
    left to fail the write, and a fault in making a frame becomes an ``error`` event."""
    try:
        # aclosing: when the response closes this stream, the events' generator is closed at once too,
        # which cancels the debate (not whenever the generator is collected).
        async with contextlib.aclosing(debate_events(run, ping_seconds, flush_seconds)) as events:
            async for text in events:
                yield text.encode("utf-8", "replace")
    except Exception as exc:  # the caller learns the run failed; the details go to the server log
        log.error("debate stream failed", exc_info=exc)
        yield sse("error", error_payload(exc)).encode("utf-8", "replace")


def _frame(event: dict[str, Any]) -> str | None:
    """The SSE text of one queued item; None marks the end of the debate."""
    if event is _DONE:
        return None
    if event is _PING:
        return ": keep-alive\n\n"
    for key in _NAMES_ENDPOINT:  # where the operator's model server is stays the operator's
        if isinstance(event.get(key), str) and "://" in event[key]:
            event = {**event, key: hide_endpoints(event[key])}
    return sse(str(event.get("event", "event")), event)


def _final_frame(task: asyncio.Future[Verdict]) -> str:
    if task.cancelled():
        return sse("error", {"type": "cancelled", "message": "the verification was cancelled"})
    exc = task.exception()
    if exc is not None:
        if not isinstance(exc, FactDebateError):
            log.error("debate failed", exc_info=exc)
        return sse("error", error_payload(exc))
    return sse("result", task.result().model_dump_json())
