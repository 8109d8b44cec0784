"""What a policy does to a streamed reply, for any face: :class:`GuardedStream` (the chat proxy's relay uses
it) and :func:`guard_stream`, the same for a Python caller with an async iterator of text deltas.

- ``annotate``: every delta is shown as it comes; the verdicts come beside it.
- ``flag``: the same, and the footnotes after the last delta, once the check is done.
- ``hold``: each part of the answer is shown once its claims are decided at the first tier, a refuted
  sentence replaced by a notice (guard/hold.py); the footnotes after it.
- ``rewrite``, ``block`` and ``on_unchecked: block``: nothing is shown before the check; then the text the
  policy leaves (the revision, the refusal, or the answer) at once.

Example::

    from factdebate.guard import GuardOptions, guard_stream

    async for out in guard_stream(deltas, settings, resources, options=GuardOptions(policy="hold")):
        if out.kind == "text":
            print(out.text, end="")  # what the reader may see now
        elif out.kind == "result":
            result = out.result  # every verdict; result.text is all that was shown
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

from factdebate.core.runtime import EventSink
from factdebate.guard.stream import StreamingCheck
from factdebate.guard.types import GuardClaim, GuardOptions, GuardResult, Reviser
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings


class GuardedStream:
    """One streamed reply under its policy: ``feed`` each delta (the text to show now back), ``released()``
    for the text a hold lets go later, ``finish()`` for the text to show last and the result."""

    def __init__(self, check: StreamingCheck) -> None:
        self.check = check
        self.mode = check.mode

    def feed(self, delta: str) -> str:
        self.check.feed(delta)
        return delta if self.mode in ("pass", "footnote") else ""

    async def released(self) -> AsyncIterator[str]:
        """Text released after its check (``hold``); nothing under the other policies. Ends after ``finish``."""
        if self.check.held is not None:
            async for text in self.check.held.released():
                yield text

    async def finish(self) -> tuple[str, GuardResult]:
        """(the text to show after everything fed and released, the result)."""
        result = await self.check.finish()
        return self.last_text(result), result

    def last_text(self, result: GuardResult) -> str:
        if self.mode == "whole":
            return result.text
        if self.mode == "hold_back":
            shown = "".join(self.check.held.shown) if self.check.held is not None else ""
            return result.text[len(shown):] if result.text.startswith(shown) else ""
        if self.mode == "footnote" and result.action_taken == "flagged" \
                and result.text.startswith(result.original_text):
            return result.text[len(result.original_text):]
        return ""


@dataclass(frozen=True)
class StreamOut:
    """One thing to pass on: ``text`` to show, a ``claim``'s verdict, or the ``result`` (always last)."""

    kind: Literal["text", "claim", "result"]
    text: str = ""
    claim: GuardClaim | None = None
    result: GuardResult | None = None


async def guard_stream(deltas: AsyncIterable[str], settings: Settings, resources: Resources, *,
                       options: GuardOptions, question: str | None = None, sinks: list[EventSink] | None = None,
                       reviser: Reviser | None = None, caller: str | None = None) -> AsyncIterator[StreamOut]:
    """Check a reply while it streams and yield what its policy lets the reader see, each verdict as it is
    decided, and the result last. Leaving early (closing the generator) stops the check."""
    check = StreamingCheck(settings, resources, options=options, question=question, sinks=sinks, reviser=reviser,
                           caller=caller)
    stream = GuardedStream(check)
    queue: asyncio.Queue[StreamOut | BaseException] = asyncio.Queue()

    async def copy(source: AsyncIterator[Any], kind: Literal["text", "claim"]) -> None:
        async for item in source:
            queue.put_nowait(StreamOut("text", text=item) if kind == "text" else StreamOut("claim", claim=item))

    releases = asyncio.create_task(copy(stream.released(), "text"))
    verdicts = asyncio.create_task(copy(check.verdicts(), "claim"))

    async def read() -> None:
        try:
            async for delta in deltas:
                if now := stream.feed(delta):
                    queue.put_nowait(StreamOut("text", text=now))
            last, result = await stream.finish()
            await asyncio.gather(releases, verdicts)
            if last:
                queue.put_nowait(StreamOut("text", text=last))
            queue.put_nowait(StreamOut("result", result=result))
        except BaseException as exc:  # handed to the reader, which raises it
            queue.put_nowait(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise

    reader = asyncio.create_task(read())
    try:
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            yield item
            if item.kind == "result":
                return
    finally:
        check.cancel()
        for task in (reader, releases, verdicts):
            task.cancel()
        await asyncio.gather(reader, releases, verdicts, return_exceptions=True)
