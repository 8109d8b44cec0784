"""Checking an answer while it is still arriving: each complete sentence is checked as soon as it is fed."""

from __future__ import annotations

from collections.abc import AsyncIterator

from factdebate.core.runtime import EventSink
from factdebate.guard.types import GuardClaim, GuardOptions, GuardResult, Reviser
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings


class StreamingCheck:
    """``feed`` each delta of the answer; ``verdicts()`` yields each claim's verdict when ready; ``finish()``
    (after the last delta) waits within the deadline and applies the policy."""

    def __init__(self, settings: Settings, resources: Resources, *, options: GuardOptions,
                 question: str | None = None, sinks: list[EventSink] | None = None,
                 reviser: Reviser | None = None) -> None:
        raise NotImplementedError

    def feed(self, delta: str) -> None:
        raise NotImplementedError

    async def verdicts(self) -> AsyncIterator[GuardClaim]:
        raise NotImplementedError
        yield  # pragma: no cover

    async def finish(self) -> GuardResult:
        raise NotImplementedError
