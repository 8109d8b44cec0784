"""Checking one whole text: the check-worthiness gate, claim extraction, each claim decided tier by tier
within the deadline, spans, corrections, and the policy."""

from __future__ import annotations

from factdebate.core.runtime import EventSink
from factdebate.guard.types import GuardOptions, GuardResult, Reviser
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings


async def check_text(text: str, settings: Settings, resources: Resources, *, options: GuardOptions,
                     question: str | None = None, sinks: list[EventSink] | None = None,
                     reviser: Reviser | None = None) -> GuardResult:
    """Check ``text`` (an assistant's reply) and apply the policy; never raises for a claim that could not be
    decided (it is ``unchecked``), raises ``InputError`` for options or text out of bounds."""
    raise NotImplementedError
