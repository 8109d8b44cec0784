"""``/v1/check-response``: a long answer checked claim by claim (``factdebate.response_level``), as JSON or
streamed as SSE (the response's events, then every claim's run nested in its ``subclaim`` span)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import StreamingResponse
from pydantic import Field

from factdebate.config import Settings
from factdebate.errors import FactDebateError, InputError
from factdebate.response_level.check import run_response, validate_response
from factdebate.runtime import EventSink
from factdebate.server.options import VerifyOptions
from factdebate.server.routes import _http_error, _RunSlot, _settings_for
from factdebate.server.service import CallerDep, Service, ServiceDep
from factdebate.types import ResponseVerdict

router = APIRouter(prefix="/v1")
_TEXT_FIELDS = {"response", "question"}


class ResponseRequest(VerifyOptions):
    response: str = Field(description="The long answer to check, claim by claim.")
    question: str | None = Field(default=None, description="The question it answers (helps extraction).")

    def chosen(self) -> dict[str, Any]:
        return {k: v for k, v in super().chosen().items() if k not in _TEXT_FIELDS}


def _checked(body: ResponseRequest, service: Service, caller: str) -> tuple[Settings, str]:
    settings = _settings_for(service, body, caller)
    try:
        return settings, validate_response(body.response, settings)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc


def _public(verdict: ResponseVerdict) -> ResponseVerdict:
    """As ``public_verdict``: the operator's Milvus URI may carry credentials."""
    retrieval = verdict.config.get("retrieval")
    if isinstance(retrieval, dict) and retrieval.get("milvus_uri"):
        verdict.config = {**verdict.config, "retrieval": {**retrieval, "milvus_uri": "(set by the operator)"}}
    return verdict


@router.post("/check-response", tags=["verify"], summary="Check a long answer claim by claim")
async def check_response(body: ResponseRequest, service: ServiceDep, who: CallerDep) -> ResponseVerdict:
    settings, text = _checked(body, service, who)
    slot = _RunSlot(service)
    try:
        return _public(await run_response(text, settings, service.resources(settings), question=body.question))
    except FactDebateError as exc:
        raise _http_error(exc) from exc
    finally:
        slot.release()


@router.post("/check-response/stream", tags=["verify"], response_class=StreamingResponse,
             summary="Check a long answer claim by claim, streaming the events as SSE")
async def check_response_stream(body: ResponseRequest, service: ServiceDep, who: CallerDep) -> StreamingResponse:
    settings, text = _checked(body, service, who)
    slot = _RunSlot(service)

    async def run(sinks: list[EventSink]) -> ResponseVerdict:
        return _public(await run_response(text, settings, service.resources(settings), question=body.question,
                                          sinks=sinks))

    return slot.stream(service, run)  # type: ignore[arg-type]
