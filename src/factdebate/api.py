"""The public Python API: ``verify(claim, **options)``, its async twin ``averify``, ``check_response`` and
``session``. Nothing inside the package imports this module; the CLI, the service and the harness use the
run layer (:mod:`factdebate.run`) directly."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from factdebate.core.runtime import EventSink
from factdebate.core.types import Verdict
from factdebate.llm.base import Backend
from factdebate.run.claim import run_claim, session
from factdebate.run.response import acheck_response, check_response
from factdebate.settings.load import settings_from

__all__ = ["acheck_response", "averify", "check_response", "session", "verify"]


async def averify(claim: str, *, config_file: str | Path | None = None, trace: str | Path | None = None,
                  on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
                  given_evidence: list[Any] | None = None, **options: Any) -> Verdict:
    """Check ``claim``; keyword options are the CLI's (``llm=``, ``rounds=``, ``search=``...).
    ``given_evidence`` (texts, or dicts with text/title/source) comes with the claim; agents read it
    (``evidence="given"``, the default when it is passed, or ``"both"``)."""
    from factdebate.tools.given import documents_from
    from factdebate.tools.given import given_evidence as with_evidence

    if given_evidence is not None:
        options.setdefault("evidence", "given")

    settings = settings_from(options, config_file)
    async with session(settings, backends, on_event, trace) as (resources, sinks):
        with with_evidence(documents_from(given_evidence) if given_evidence is not None else None):
            return await run_claim(claim, settings, resources, sinks=sinks)


def verify(claim: str, **options: Any) -> Verdict:
    """Synchronous :func:`averify`."""
    return asyncio.run(averify(claim, **options))
