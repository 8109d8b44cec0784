"""The public Python API: ``verify(claim, **options)``, its async twin ``averify``, ``check_response``,
``guard`` (a chat reply checked within a deadline) and ``session``. Nothing inside the package imports this
module; the CLI, the service and the harness use the run layer (:mod:`factdebate.run`) directly."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from factdebate.core.runtime import EventSink
from factdebate.core.types import ResponseVerdict, Verdict
from factdebate.guard.public import aguard, guard
from factdebate.guard.types import GuardResult
from factdebate.llm.base import Backend
from factdebate.run.claim import run_claim, session
from factdebate.run.response import acheck_response as _acheck_response
from factdebate.settings.load import settings_from

__all__ = ["acheck_response", "aguard", "averify", "check_response", "guard", "session", "verify"]


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


async def acheck_response(response: str, *, question: str | None = None, evidence: list[Any] | str | None = None,
                          evidence_mode: str | None = None, tier: str | None = None, deadline_s: float | None = None,
                          **options: Any) -> ResponseVerdict | GuardResult:
    """Check a long answer claim by claim; keyword options are the CLI's (``llm=``, ``rounds=``...).

    ``evidence``: passages the answer rests on (``[{"title", "text", "url"}]`` or texts), read by the agents
    before (``evidence_mode="both"``, the default) or instead of (``"given"``) retrieval. With ``tier``
    (``fast``, ``standard``, ``deep``) or ``deadline_s`` the answer is checked as the guard checks a chat
    reply and a :class:`~factdebate.guard.types.GuardResult` comes back (each claim's span, tier, evidence
    and correction; claims not decided in time ``unchecked``); without them, a ``ResponseVerdict`` as before.

    Example::

        import factdebate as fd
        result = fd.check_response("The Eiffel Tower is in Rome.", tier="fast", deadline_s=10,
                                   evidence=[{"title": "Guide", "text": "The Eiffel Tower is in Paris."}])
    """
    if isinstance(evidence, str):  # the settings option of the same name (retrieval.evidence), as before
        options["evidence"] = evidence
        evidence = None
    items = None if evidence is None else [{"text": e} if isinstance(e, str) else e for e in evidence]
    if tier is not None or deadline_s is not None:
        guard_options: dict[str, Any] = {"tier": tier, "deadline_s": deadline_s, "evidence": items,
                                         "evidence_mode": evidence_mode}
        return await aguard(response, question=question,
                            **{k: v for k, v in guard_options.items() if v is not None}, **options)
    if items is None:
        if evidence_mode is not None:
            options["evidence"] = evidence_mode
        return await _acheck_response(response, question=question, **options)
    from factdebate.guard.evidence import passages
    from factdebate.guard.types import GuardEvidence
    from factdebate.tools.given import given_evidence

    options["evidence"] = evidence_mode or "both"
    docs = passages([GuardEvidence.model_validate(item) for item in items])
    with given_evidence(docs):
        return await _acheck_response(response, question=question, **options)


def check_response(response: str, **options: Any) -> ResponseVerdict | GuardResult:
    """Synchronous :func:`acheck_response`."""
    return asyncio.run(acheck_response(response, **options))
