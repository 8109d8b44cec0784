"""``GET /v1/checks/{id}``: a finished check reopened from the service (the page's ``/?check=<id>`` links),
and :func:`keep`, which the verify and check-response routes call when a check finishes to store it and
tell the caller its id: the ``X-Check-Id`` header of a plain answer, a ``check_saved`` event before a
stream's ``result``. A check, plain or streamed, is kept with its model calls (server/kept_calls.py), which
the same ``GET`` answers beside the verdict."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from factdebate.core.runtime import EventSink
from factdebate.core.types import ResponseVerdict, Verdict
from factdebate.server.check_store import CHECK_ID
from factdebate.server.kept_calls import CallKeeper
from factdebate.server.service import CallerDep, Service, ServiceDep

router = APIRouter(prefix="/v1")
log = logging.getLogger("factdebate.server")
CHECK_ID_HEADER = "X-Check-Id"


class CheckRecord(BaseModel):
    id: str
    kind: str
    created: float
    verdict: dict[str, Any]
    calls: list[dict[str, Any]] = Field(default_factory=list, description="The check's llm_call events as a "
                                        "stream sends them (with their text only when a stream asked for the "
                                        "transcript, which a plain request cannot; in a response check each "
                                        "claim's also names its `claim` index); empty when the operator keeps none.")
    calls_cut: int = Field(default=0, description="Calls the check made after the kept ones, left out because "
                           "they passed the operator's kept_check_calls_bytes.")


def call_keeper(service: Service) -> CallKeeper | None:
    """A sink to gather a check's model calls (plain or streamed), or None when nothing of them would be kept:
    then a plain verify builds no events at all."""
    limit = service.config.kept_check_calls_bytes
    return CallKeeper(limit) if service.checks.enabled and limit > 0 else None


async def keep(service: Service, who: str, verdict: Verdict | ResponseVerdict,
               sinks: Sequence[EventSink] = (), calls: CallKeeper | None = None) -> str | None:
    """Store the finished ``verdict`` (and the model calls ``calls`` gathered) for ``who``; its id (None: the
    operator keeps none, or storing failed, which must not cost the caller the verdict itself)."""
    kind = "response" if isinstance(verdict, ResponseVerdict) else "claim"
    try:
        check_id = await asyncio.to_thread(service.checks.save, who, kind, verdict.model_dump(mode="json"),
                                           calls=calls.calls if calls else None, calls_cut=calls.cut if calls else 0)
    except Exception:
        log.warning("could not keep a finished check in the state database", exc_info=True)
        return None
    if check_id is not None:
        for sink in sinks:
            sink({"event": "check_saved", "id": check_id})
    return check_id


@router.get("/checks/{check_id}", tags=["verify"], summary="A finished check of this key, by the id it was given",
            description="Every finished verify or check-response (plain or streamed) is kept for a while, per key "
                        "(the operator's kept_checks_per_key and kept_checks_days), and answered here by its id, "
                        "with its model calls. Another key's check is as absent as an unknown one.")
async def get_check(check_id: str, service: ServiceDep, who: CallerDep) -> CheckRecord:
    if not CHECK_ID.match(check_id):
        raise HTTPException(422, "a check id is 32 lower-case hex digits")
    kept = await asyncio.to_thread(service.checks.get, check_id, who)
    if kept is None:  # unknown, expired or another key's: one answer for all three
        raise HTTPException(404, f"no check '{check_id}'")
    return CheckRecord(id=kept.id, kind=kept.kind, created=kept.created, verdict=kept.verdict, calls=kept.calls,
                       calls_cut=kept.calls_cut)
