"""The bot's own evidence on the service's HTTP routes (``/v1/verify``, ``/v1/check-response``, their streams):
``evidence: [{title, text, url}]`` and ``evidence_mode: given|both|retrieved``, the library's
:class:`~factdebate.guard_engine.types.GivenEvidence`, which checks and bounds them as the guard does and
serves them to the agents."""

from __future__ import annotations

from factdebate.engine import Document, GivenEvidence, Settings
from factdebate.util.errors import InputError


def checked_evidence(settings: Settings, choice: GivenEvidence) -> tuple[Settings, list[Document] | None]:
    """:meth:`GivenEvidence.applied` for the HTTP routes: a problem is the caller's (422)."""
    from fastapi import HTTPException

    try:
        return choice.applied(settings)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc
