"""``GET /v1/checks/{id}``: a finished check reopened from the service (the page's ``/?check=<id>`` links),
and :func:`keep`, which the verify and check-response routes call when a check finishes to store it and
tell the caller its id: the ``X-Check-Id`` header of a plain answer, a ``check_saved`` event before a
stream's ``result``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel

from factdebate.core.runtime import EventSink
from factdebate.core.types import ResponseVerdict, Verdict
from factdebate.server.check_store import CHECK_ID
from factdebate.server.service import CallerDep, Service, ServiceDep

router = APIRouter(prefix="/v1")
log = logging.getLogger("factdebate.server")
CHECK_ID_HEADER = "X-Check-Id"


class CheckRecord(BaseModel):
    id: str
    kind: str
    created: float
    verdict: dict[str, Any]


async def keep(service: Service, who: str, verdict: Verdict | ResponseVerdict,
               sinks: Sequence[EventSink] = ()) -> str | None:
    """Store the finished ``verdict`` for ``who``; its id (None: the operator keeps none, or storing failed,
    which must not cost the caller the verdict itself)."""
    kind = "response" if isinstance(verdict, ResponseVerdict) else "claim"
    try:
        check_id = await asyncio.to_thread(service.checks.save, who, kind, verdict.model_dump(mode="json"))
    except Exception:
        log.warning("could not keep a finished check in the state database", exc_info=True)
        return None
    if check_id is not None:
        for sink in sinks:
            sink({"event": "check_saved", "id": check_id})
    return check_id


@router.get("/checks/{check_id}", tags=["verify"], summary="A finished check of this key, by the id it was given",
            description="Every finished verify or check-response (plain or streamed) is kept for a while, per key "
                        "(the operator's kept_checks_per_key and kept_checks_days), and answered here by its id. "
                        "Another key's check is as absent as an unknown one.")
async def get_check(check_id: str, service: ServiceDep, who: CallerDep) -> CheckRecord:
    if not CHECK_ID.match(check_id):
        raise HTTPException(422, "a check id is 32 lower-case hex digits")
    kept = await asyncio.to_thread(service.checks.get, check_id, who)
    if kept is None:  # unknown, expired or another key's: one answer for all three
        raise HTTPException(404, f"no check '{check_id}'")
    return CheckRecord(id=kept.id, kind=kept.kind, created=kept.created, verdict=kept.verdict)
