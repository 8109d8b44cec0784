"""What a policy does to a streamed reply, for any face: :class:`GuardedStream` (the chat proxy's relay) and
:func:`guard_stream` over an async iterator of text deltas (``factdebate.aguard_stream`` through the one call).

- ``annotate``: every delta is shown as it comes; the verdicts come beside it.
- ``flag``: the same, and the footnotes after the last delta, once the check is done.
- ``hold``: each part is shown once its claims are decided at the first tier, the refuted sentences replaced
  by a notice (guard_engine/hold.py); the footnotes after it.
- ``rewrite``, ``block`` and ``on_unchecked: block``: nothing is shown before the check; then the text the
  policy leaves at once.

What is kept of the answer is bounded (:func:`kept_chars`). Past it the text is only counted: shown as it comes
under ``annotate`` and ``flag``, dropped with a notice under the policies that show the answer after its check,
and said in ``passed_through`` either way (a JSON answer held back and cut is replaced by a JSON error object that
says so: :meth:`GuardedStream.cut_text`). What is shown is scrubbed as the reader sees it
(util/scrub/window.py): a delta's end that could still become part of a secret waits for the next delta.

Example::

    import factdebate

    async for out in factdebate.aguard_stream(deltas, policy="hold", tier="fast", deadline_s=10):
        if out.kind == "text":
            print(out.text, end="")  # what the reader may see now
        elif out.kind == "result":
            result = out.result  # every verdict; result.text is all that was shown
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

from factdebate.core.runtime import EventSink
from factdebate.guard_engine.call import Begun, CheckCall, Host, kept_chars
from factdebate.guard_engine.policy import json_answer, no_text_result
from factdebate.guard_engine.stream import StreamingCheck
from factdebate.guard_engine.types import GuardClaim, GuardOptions, GuardResult, Reviser
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings
from factdebate.util.scrub import ScrubWindow

ANSWER_CUT = "answer_cut"  # the type of the JSON error object that replaces a JSON answer cut (GuardedStream.cut)


class GuardedStream:
    """One streamed reply under its policy: ``feed`` each delta (the text to show now back), ``released()``
    for the text a hold lets go later, ``finish()`` for the text to show last and the result."""

    def __init__(self, check: StreamingCheck, *, keep: int) -> None:
        self.check = check
        self.mode = check.mode
        self.keep = keep
        self.kept = 0  # characters of the answer handed to the check
        self.dropped = 0  # characters past ``keep``: counted only

    @classmethod
    def of(cls, begun: Begun, resources: Resources, sinks: list[EventSink]) -> GuardedStream:
        """The streamed reply of a begun check (:meth:`~factdebate.guard_engine.call.Host.begin`): its check
        (:attr:`check`) made with ``resources`` and ``sinks``, keeping what :func:`kept_chars` allows."""
        check = StreamingCheck(begun.settings, resources, options=begun.resolved, question=begun.question,
                               sinks=sinks or None, reviser=begun.reviser,
                               caller=begun.host.caller, messages=begun.messages)
        return cls(check, keep=begun.kept_chars)

    def without_text(self, passed: list[str], *, called: bool) -> GuardResult:
        """The result of a reply that streamed no text (a tool call alone passes): nothing was checked, and the
        check is stopped."""
        self.check.cancel()
        return no_text_result(self.check.options, passed, called=called)

    def feed(self, delta: str) -> str:
        if isinstance(delta, str) and self.kept + len(delta) > self.keep:
            room = max(0, self.keep - self.kept)
            self.dropped += len(delta) - room
            if room:
                self.check.feed(delta[:room])
                self.kept += room
        else:
            self.check.feed(delta)  # (it refuses what is not text)
            self.kept += len(delta)
        return delta if self.mode in ("pass", "footnote") else ""

    async def released(self) -> AsyncIterator[str]:
        """Text released after its check (``hold``); nothing under the other policies. Ends after ``finish``."""
        if self.check.held is not None:
            async for text in self.check.held.released():
                yield text

    async def finish(self) -> tuple[str, GuardResult]:
        """(the text to show after everything fed and released, the result)."""
        result = self.cut(await self.check.finish())
        return self.last_text(result), result

    def cut(self, result: GuardResult) -> GuardResult:
        """``result`` saying what of the answer was not kept, if anything."""
        if not self.dropped:
            return result
        shown = self.mode in ("pass", "footnote")
        note = (f"the answer went on for {self.dropped} characters past the first {self.keep} (twice "
                "guard.max_message_chars, what the guard keeps of a streamed answer): "
                + ("passed on as they came, unchecked, and not kept" if shown else "not kept and not shown"))
        update: dict[str, Any] = {"passed_through": [*result.passed_through, note]}
        if not shown and result.action_taken != "blocked":
            update["text"] = self.cut_text(result)
        return result.model_copy(update=update)

    def cut_text(self, result: GuardResult) -> str:
        """The text shown of an answer held back and cut (:meth:`cut`): what was kept, then a notice. A JSON
        answer cut is no JSON: it is replaced by a JSON error object (``answer_cut``) that says so, which the
        client's parse reads, as a refusal's (guard_engine/policy.py's ``refused_text``)."""
        said = f"it went on for {self.dropped} characters more than the guard keeps of a streamed answer"
        if json_answer(result):
            return json.dumps({"error": {"type": ANSWER_CUT, "message": f"The answer was cut: {said}."}})
        return result.text.rstrip() + f"\n\n[The answer was cut here: {said}.]"

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
    """Yield what the policy lets the reader see, each verdict, and the result last; closing early stops it."""
    check = StreamingCheck(settings, resources, options=options, question=question, sinks=sinks, reviser=reviser,
                           caller=caller)
    async for out in check_outs(check, deltas, settings):
        yield out


async def stream_outs(begun: Begun, deltas: AsyncIterable[str], resources: Resources,
                      sinks: list[EventSink]) -> AsyncIterator[StreamOut]:
    """:func:`guard_stream` within the one call (guard_engine/call.py's ``Host.begin``)."""
    host_sinks, _ = begun.host.sinks()
    async for out in check_outs(GuardedStream.of(begun, resources, [*sinks, *host_sinks]).check, deltas,
                                begun.settings):
        yield out


async def check_stream(call: CheckCall, deltas: AsyncIterable[str], host: Host) -> AsyncIterator[StreamOut]:
    """The one call for a reply that streams, its admission released however the stream ends."""
    begun = await host.begin(call)
    claims = 0
    try:
        async with host.session(begun.settings) as (resources, sinks):
            async for out in stream_outs(begun, deltas, resources, sinks):
                if out.result is not None:
                    claims = len(out.result.claims)
                    out = StreamOut("result", result=await begun.finish(out.result, None, True))
                yield out
    finally:
        begun.admission.charge(claims)
        begun.admission.release()


async def check_outs(check: StreamingCheck, deltas: AsyncIterable[str], settings: Settings) -> AsyncIterator[StreamOut]:
    """``deltas`` fed to ``check`` under its policy: what to show, each verdict, and the result last."""
    stream = GuardedStream(check, keep=kept_chars(settings))
    queue: asyncio.Queue[StreamOut | BaseException] = asyncio.Queue()
    # One scrub window over all the text shown, whichever policy releases it.
    window = ScrubWindow()

    def whole(text: str) -> str:
        return window.feed(text) + window.flush()

    async def copy(source: AsyncIterator[Any], kind: Literal["text", "claim"]) -> None:
        async for item in source:
            if kind == "claim":
                queue.put_nowait(StreamOut("claim", claim=item))
            elif text := whole(item):
                queue.put_nowait(StreamOut("text", text=text))

    releases = asyncio.create_task(copy(stream.released(), "text"))
    verdicts = asyncio.create_task(copy(check.verdicts(), "claim"))

    async def read() -> None:
        try:
            async for delta in deltas:
                if (now := stream.feed(delta)) and (shown := window.feed(now)):
                    queue.put_nowait(StreamOut("text", text=shown))
            last, result = await stream.finish()
            await asyncio.gather(releases, verdicts)
            if last := whole(last):
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
