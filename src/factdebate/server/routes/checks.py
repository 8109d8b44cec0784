"""``GET /v1/checks/{id}``: a finished check reopened from the service (the page's ``/?check=<id>`` links),
and :func:`keep`, which the verify and check-response routes call when a check finishes to store it and
tell the caller its id: the ``X-Check-Id`` header of a plain answer, a ``check_saved`` event before a
stream's ``result``. A check, plain or streamed, is kept with its model calls (server/state/kept_calls.py), which
the same ``GET`` answers beside the verdict. ``GET /v1/checks?conversation_id=`` lists a conversation's
kept guard checks, newest first."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Response
from pydantic import BaseModel, Field

from factdebate.engine import EventSink, GuardOptions, ResponseVerdict, Verdict
from factdebate.server.service import CallerDep, Service, ServiceDep
from factdebate.server.state.check_store import CHECK_ID, MAX_PAGE
from factdebate.server.state.kept_calls import CallKeeper
from factdebate.server.state.storage_words import public_reason
from factdebate.util.storage_full import STORAGE

router = APIRouter(prefix="/v1")
log = logging.getLogger("factdebate.server")
CHECK_ID_HEADER = "X-Check-Id"
NOT_KEPT_HEADER = "X-Check-Not-Kept"
KEPT_PART = "kept checks"


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


class ListedCheck(BaseModel):
    id: str
    kind: str
    created: float
    verdict: dict[str, Any] = Field(description="The kept verdict, as `GET /v1/checks/{id}` answers it (its "
                                    "model calls are there, not here).")


class CheckPage(BaseModel):
    conversation_id: str
    checks: list[ListedCheck] = Field(description="Newest first.")
    next_before: str | None = Field(default=None, description="When the page is full: the `before` that asks "
                                    "for the next (older) page. Null when there is none.")


def call_keeper(service: Service) -> CallKeeper | None:
    """A sink to gather a check's model calls (plain or streamed), or None when nothing of them would be kept:
    then a plain verify builds no events at all."""
    limit = service.config.kept_check_calls_bytes
    return CallKeeper(limit) if service.checks.enabled and limit > 0 else None


def not_kept(exc: Exception) -> str:
    """What a caller is told of a finished check the state database could not keep (``exc``: why), in the
    words of the storage's problem where it is one (a full disk, a read-only store: ``/v1/health`` says so
    too)."""
    if (reason := STORAGE.problem(exc)) is not None:
        STORAGE.failed(KEPT_PART, reason)
        return f"{public_reason(reason)}: this check was not kept (its verdict is in this answer)"
    return "the state database failed: this check was not kept (its verdict is in this answer)"


async def keep(service: Service, who: str, verdict: Verdict | ResponseVerdict,
               sinks: Sequence[EventSink] = (), calls: CallKeeper | None = None,
               response: Response | None = None) -> str | None:
    """Store the finished ``verdict`` (and the model calls ``calls`` gathered) for ``who``; its id (None: the
    operator keeps none, or storing failed, which must not cost the caller the verdict itself). A check the
    full or read-only storage could not keep says so: the ``X-Check-Not-Kept`` header of ``response``, a
    ``check_not_kept`` event on a stream, and ``/v1/health``."""
    kind = "response" if isinstance(verdict, ResponseVerdict) else "claim"
    try:
        check_id = await asyncio.to_thread(service.checks.save, who, kind, verdict.model_dump(mode="json"),
                                           calls=calls.calls if calls else None, calls_cut=calls.cut if calls else 0)
    except Exception as exc:
        log.warning("could not keep a finished check in the state database", exc_info=True)
        if STORAGE.problem(exc) is not None:
            said = not_kept(exc)
            if response is not None:
                response.headers[NOT_KEPT_HEADER] = said
            for sink in sinks:
                sink({"event": "check_not_kept", "reason": said})
        return None
    STORAGE.wrote(KEPT_PART)
    if check_id is not None:
        for sink in sinks:
            sink({"event": "check_saved", "id": check_id})
    return check_id


@router.get("/checks/{check_id}", tags=["verify"], summary="A finished check of this key, by the id it was given",
            description="Every finished verify or check-response (plain or streamed) is kept for a while, per key "
                        "(the operator's kept_checks_per_key and kept_checks_days), and answered here by its id, "
                        "with its model calls. Another key's check is as absent as an unknown one.")
async def get_check(check_id: str, service: ServiceDep, who: CallerDep) -> CheckRecord:
    if not CHECK_ID.fullmatch(check_id):
        raise HTTPException(422, "a check id is 32 lower-case hex digits")
    kept = await asyncio.to_thread(service.checks.get, check_id, who)
    if kept is None:  # unknown, expired or another key's: one answer for all three
        raise HTTPException(404, f"no check '{check_id}'")
    return CheckRecord(id=kept.id, kind=kept.kind, created=kept.created, verdict=kept.verdict, calls=kept.calls,
                       calls_cut=kept.calls_cut)


@router.get("/checks", tags=["verify"], summary="This key's kept checks of one conversation, newest first",
            description="The guard's checks made with a `conversation_id` (the `factdebate` option, or the "
                        "`X-Factdebate-Conversation-Id` header) are filed under it, per key: this lists them "
                        "newest first, with their verdicts, so a client that drops the reply's `factdebate` "
                        "object still finds them. Another key's checks are never listed (its list is empty). "
                        "`before` (a check id, a page's `next_before`) asks for the checks older than it.")
async def list_checks(service: ServiceDep, who: CallerDep,
                      conversation_id: Annotated[str, Query(pattern=GuardOptions.CONVERSATION_ID_PATTERN)],
                      limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
                      before: Annotated[str | None, Query(pattern=CHECK_ID.pattern)] = None) -> CheckPage:
    kept = await asyncio.to_thread(service.checks.of_conversation, who, conversation_id, limit, before)
    return CheckPage(conversation_id=conversation_id,
                     checks=[ListedCheck(id=k.id, kind=k.kind, created=k.created, verdict=k.verdict) for k in kept],
                     next_before=kept[-1].id if len(kept) == limit else None)
