"""The bot's own evidence on the service's faces (``/v1/verify``, ``/v1/check-response``, their streams, the
MCP tools): ``evidence: [{title, text, url}]`` and ``evidence_mode: given|both|retrieved``.

Checked and bounded as the guard checks them (``guard.max_evidence_items``, ``guard.max_evidence_chars``;
each passage's own bounds in :class:`~factdebate.guard_engine.types.GuardEvidence`), split into passages, and
served to the agents by the given-evidence tool (``retrieval.evidence`` set to the request's mode for this
request only): ``both``, the default when evidence is sent, reads the bot's passages first, then the
configured retrieval."""

from __future__ import annotations

from pydantic import BaseModel, Field

from factdebate.engine import Document, EvidenceMode, GuardEvidence, GuardOptions, Settings
from factdebate.util.errors import InputError


class EvidenceChoice(BaseModel):
    evidence: list[GuardEvidence] | None = Field(
        default=None, max_length=GuardOptions.MAX_EVIDENCE_ITEMS,
        description="Passages the caller already has (a RAG bot's retrieved chunks, tool results, documents), "
                    "each {title, text, url}: the agents read them, ranked for each query; long ones are split "
                    "into passages, never cut. At most guard.max_evidence_items items and "
                    "guard.max_evidence_chars characters in all.")
    evidence_mode: EvidenceMode | None = Field(
        default=None, description="given: only the evidence sent; both (the default when evidence is sent): it "
                                  "first, then the configured retrieval; retrieved: ignore it.")


def with_evidence(settings: Settings, choice: EvidenceChoice) -> tuple[Settings, list[Document] | None]:
    """The request's settings serving its evidence, and the passages (None when it sent none). Raises
    ``InputError`` for evidence beyond the bounds, or ``given`` without evidence."""
    if not choice.evidence and choice.evidence_mode is None:
        return settings, None
    resolved = GuardOptions(evidence=choice.evidence, evidence_mode=choice.evidence_mode).resolve(settings)
    if resolved.evidence_mode == "retrieved":
        return settings, None
    retrieval = settings.retrieval.model_copy(update={"evidence": resolved.evidence_mode})
    return settings.model_copy(update={"retrieval": retrieval}), resolved.passages()


def checked_evidence(settings: Settings, choice: EvidenceChoice) -> tuple[Settings, list[Document] | None]:
    """:func:`with_evidence` for the HTTP routes: a problem is the caller's (422)."""
    from fastapi import HTTPException

    try:
        return with_evidence(settings, choice)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc
