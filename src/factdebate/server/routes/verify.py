"""The versioned API: ``/v1/...``."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ValidationError

from factdebate.engine import EventSink, Option, Settings, Verdict, run_claim
from factdebate.server.admission import RunSlot
from factdebate.server.catalogue import Catalogue, catalogue
from factdebate.server.evidence import checked_evidence
from factdebate.server.options import (
    TranscriptChoice,
    VerifyOptions,
    VerifyRequest,
    public_verdict,
)
from factdebate.server.routes.batches import BATCH_PART, parse_jsonl
from factdebate.server.routes.checks import CHECK_ID_HEADER, call_keeper, keep
from factdebate.server.service import CallerDep, Service, ServiceDep
from factdebate.server.state.batch_store import TooManyPending
from factdebate.server.state.db import DOWN_RETRY_AFTER_S, StateDatabaseDown
from factdebate.server.state.storage_words import public_reason
from factdebate.server.streaming import for_caller, transcribed
from factdebate.util.errors import ConfigError, FactDebateError, InputError
from factdebate.util.scrub import hide_endpoints
from factdebate.util.storage_full import STORAGE
from factdebate.util.version import __version__

router = APIRouter(prefix="/v1")
log = logging.getLogger("factdebate.server")


class Health(BaseModel):
    status: str  # "ok", or "starting" (a 503) while what the first check needs is loaded
    version: str
    uptime_seconds: float
    active_runs: int
    auth: str
    ready: bool = True
    reason: str | None = None  # what is still loading, or what failed to load (server/ops/warmup.py)
    # the parts that could not write lately (a full or read-only disk), each with what failed; checks
    # are still answered (the cache is skipped), but kept checks and batches are not stored until it clears
    storage: dict[str, str] = {}
    # the parts that cannot be reached: "state_db" (a 503), "model <name>" for a model server that refuses
    # connections (a 503 only when the operator set models_required)
    down: list[str] = []


class BatchStatus(BaseModel):
    id: str
    status: str
    total: int
    done: int
    errors: int
    created: float
    finished: float | None
    options: dict[str, Any]
    results: list[dict[str, Any]] | None = None


def settings_for(service: Service, options: VerifyOptions, caller: str) -> Settings:
    """The request's settings for this caller (whose own evidence memory MERMAID uses)."""
    try:
        return service.resolver.resolve(options, caller)
    except ConfigError as exc:
        raise HTTPException(422, str(exc)) from exc


def _checked_claim(claim: str, settings: Settings) -> str:
    try:
        return settings.checked_claim(claim)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc


def refuse_transcript(body: TranscriptChoice, endpoint: str) -> None:
    try:
        body.refuse_transcript(endpoint)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc


def http_error(exc: FactDebateError) -> HTTPException:
    if isinstance(exc, InputError | ConfigError):
        return HTTPException(422, str(exc))
    log.warning("a check failed: %s", exc)  # with the endpoint's address, which the caller is not shown
    if isinstance(exc, StateDatabaseDown):
        return HTTPException(503, exc.reason, headers={"Retry-After": str(DOWN_RETRY_AFTER_S)})
    return HTTPException(exc.http_status, for_caller(exc))  # 502: a server the check needed did not answer


STARTING_RETRY_AFTER_S = 1  # warm-up has no forecast; a probe asking each second sees it ready without delay
MODEL_DOWN_RETRY_AFTER_S = 1  # the model-server breaker's first pause (llm/breaker.py): it tries again by then


def _unavailable(response: Response, retry_after_s: int) -> None:
    """The health answer a 503, with when to ask again (every 503 of the service carries ``Retry-After``)."""
    response.status_code = 503
    response.headers["Retry-After"] = str(retry_after_s)


@router.get("/health", tags=["service"], summary="Liveness and readiness; needs no key",
            responses={503: {"model": Health, "description": "Still loading what the first check needs, or a part "
                                                              "it needs (`down`: the state database) cannot be "
                                                              "reached."}})
async def health(service: ServiceDep, response: Response) -> Health:
    warm = service.warm_up
    if not warm.ready:
        _unavailable(response, STARTING_RETRY_AFTER_S)
    storage = {part: public_reason(reason) for part, reason in STORAGE.problems().items()}
    # What failed to load, as error text (no key needed here: an address its error names stays in the log).
    reason = hide_endpoints(said) if (said := warm.reason()) else None
    try:
        active = await asyncio.to_thread(service.shared.active) if service.shared else service.active_runs
    except StateDatabaseDown as exc:  # up, but unable to serve: which part is down, and a 503
        log.warning("health: %s", exc)
        _unavailable(response, DOWN_RETRY_AFTER_S)
        return Health(status="unavailable", version=__version__, uptime_seconds=round(time.time() - service.started, 1),
                      active_runs=service.active_runs, auth="required" if service.keys.required else "off",
                      ready=False, reason=exc.reason, storage=storage, down=["state_db"])
    down = [f"model {hide_endpoints(name)}" for name in service.pool.models_down()]  # a name, never where its server is
    if down and service.config.models_required:
        _unavailable(response, MODEL_DOWN_RETRY_AFTER_S)
    return Health(status=("unavailable" if down and service.config.models_required else "ok") if warm.ready
                  else "starting", version=__version__,
                  uptime_seconds=round(time.time() - service.started, 1), active_runs=active,
                  auth="required" if service.keys.required else "off", ready=warm.ready, reason=reason,
                  storage=storage, down=down)


@router.get("/methods", tags=["service"], summary="Methods, tools, models and defaults this server offers")
async def methods(service: ServiceDep, _: CallerDep) -> Catalogue:
    return catalogue(service.resolver.base, service.resolver.llms, service.resolver.any_llm,
                     service.config.caps)


@router.post("/verify", tags=["verify"], summary="Verify one claim and return the verdict")
async def verify(body: VerifyRequest, service: ServiceDep, who: CallerDep, response: Response) -> Verdict:
    refuse_transcript(body, "/v1/verify")
    settings, given = checked_evidence(settings_for(service, body, who), body)
    claim = _checked_claim(body.claim, settings)
    slot = RunSlot(service)
    try:
        calls = call_keeper(service)  # the events a stream would send, gathered only for the kept check's calls
        verdict = public_verdict(await run_claim(claim, settings, service.resources(settings),
                                                 sinks=[calls] if calls else None, given=given))
        check_id = await keep(service, who, verdict, calls=calls, response=response)
        if check_id is not None:
            response.headers[CHECK_ID_HEADER] = check_id
        return verdict
    except FactDebateError as exc:
        raise http_error(exc) from exc
    finally:
        slot.release()


@router.post("/verify/stream", tags=["verify"], summary="Verify one claim, streaming the debate as SSE",
             response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "One SSE event per trace event (run_started, turn_started, "
                                             "answer, score, round, verdict, ...), then `result` with the "
                                             "verdict JSON, or `error`."}})
async def verify_stream(body: VerifyRequest, service: ServiceDep, who: CallerDep) -> StreamingResponse:
    settings, given = checked_evidence(settings_for(service, body, who), body)
    claim = _checked_claim(body.claim, settings)
    slot = RunSlot(service)  # held for the life of the stream

    async def run(sinks: list[EventSink]) -> Verdict:
        calls = call_keeper(service)  # the model calls, kept with the check for its link
        verdict = public_verdict(await run_claim(claim, settings, service.resources(settings),
                                                 sinks=[*sinks, calls] if calls else sinks, given=given))
        await keep(service, who, verdict, sinks, calls)  # its id goes out before the result
        return verdict

    return slot.stream(service, transcribed(run, body.transcript))


async def batch_options(request: Request) -> VerifyOptions:
    """Batch options arrive as query parameters (the body is the JSONL); lists are comma-separated."""
    raw: dict[str, Any] = dict(request.query_params)
    for name, option in Option.public_options().items():
        if name in raw:
            raw[name] = option.converted(raw[name])
    try:
        return VerifyOptions.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise HTTPException(422, f"invalid options: {problems}") from exc


@router.post("/batches", tags=["batches"], status_code=202, summary="Submit a JSONL batch of claims",
             description="Body: one JSON object per line with `claim` (or `text`), optional `id` and any other "
                         "fields (kept in the results, e.g. a gold label). Options go in the query string, "
                         "e.g. `?rounds=2&agents=rag,search`.",
             openapi_extra={"requestBody": {"required": True, "content": {
                 "application/x-ndjson": {"schema": {"type": "string"}}}}})
async def create_batch(request: Request, service: ServiceDep, who: CallerDep,
                       options: Annotated[VerifyOptions, Depends(batch_options)]) -> BatchStatus:
    settings = settings_for(service, options, who)
    try:
        text = (await request.body()).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(422, "the batch body must be UTF-8 text (JSON lines)") from exc
    try:
        items = parse_jsonl(text, settings, service.config.max_batch_claims)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc
    try:
        batch_id = await service.runner.submit(who, settings, options.chosen(), items,
                                               service.config.max_pending_claims)
    except TooManyPending as exc:
        raise HTTPException(429, str(exc)) from exc
    except Exception as exc:
        if (reason := STORAGE.problem(exc)) is None:
            raise
        STORAGE.failed(BATCH_PART, reason)  # a batch not stored is not run: the caller may send it again later
        log.warning("a batch could not be stored: %s", reason)
        raise HTTPException(507, f"{public_reason(reason)}: the batch was not stored and nothing of it was run; "
                                 "send it again later") from None
    # One rate-limit token per claim, as a response check pays (the request's own token was the first):
    # the key then waits until its bucket refills, so uploads cannot queue claims faster than the rate.
    service.limiter.charge(who, len(items) - 1)
    return await _status(service, batch_id, who, with_results=False)


async def _status(service: Service, batch_id: str, who: str, *, with_results: bool, offset: int = 0,
                  limit: int = -1) -> BatchStatus:
    info = await asyncio.to_thread(service.store.get, batch_id)
    if info is None or info.owner != who:  # another key's batch is as good as absent
        shown = batch_id if len(batch_id) <= 64 else batch_id[:64] + "…"  # never echo a huge id back
        raise HTTPException(404, f"no batch '{shown}'")
    results = await asyncio.to_thread(service.store.results, batch_id, offset, limit) if with_results else None
    return BatchStatus(id=info.id, status=info.status, total=info.total, done=info.done, errors=info.errors,
                       created=info.created, finished=info.finished, options=info.options, results=results)


# Past every claim a batch can hold (max_batch_claims is at most 1,000,000); a larger number failed in SQLite
# (an integer over 64 bits: a 500) rather than reading as "no results".
MAX_OFFSET = 10_000_000


@router.get("/batches/{batch_id}", tags=["batches"], summary="Progress and results of a batch")
async def get_batch(batch_id: str, service: ServiceDep, who: CallerDep,
                    results: Annotated[bool, Query(description="Include finished results.")] = True,
                    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
                    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000) -> BatchStatus:
    return await _status(service, batch_id, who, with_results=results, offset=offset, limit=limit)


@router.get("/batches/{batch_id}/results", tags=["batches"], summary="Finished results as JSONL",
            response_class=StreamingResponse, responses={200: {"content": {"application/x-ndjson": {}}}})
async def batch_results(batch_id: str, service: ServiceDep, who: CallerDep) -> StreamingResponse:
    status = await _status(service, batch_id, who, with_results=True)
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in status.results or [])
    return StreamingResponse(lines, media_type="application/x-ndjson",
                             headers={"Content-Disposition": f'attachment; filename="batch-{batch_id}.jsonl"'})

