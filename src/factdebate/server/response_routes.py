"""``/v1/check-response``: a long answer checked claim by claim (``factdebate.response_level``), as JSON or
streamed as SSE (the response's events, then every claim's run nested in its ``subclaim`` span);
``/v1/check-response/claim``: one of its claims checked again alone (a claim whose check failed), with the
response's label worked out anew from the caller's list of its claims' labels."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from factdebate.core.errors import FactDebateError, InputError
from factdebate.core.runtime import EventSink
from factdebate.core.types import ClaimCheck, Document, Label, ResponseVerdict
from factdebate.response_level.aggregate import factual, response_label
from factdebate.run.claim import validate_claim
from factdebate.run.response import check_one_claim, run_response, validate_question, validate_response
from factdebate.server.check_routes import CHECK_ID_HEADER, call_keeper, keep
from factdebate.server.evidence import EvidenceChoice, checked_evidence
from factdebate.server.options import TranscriptChoice, VerifyOptions, public_verdict
from factdebate.server.routes import _http_error, _RunSlot, _settings_for, refuse_transcript
from factdebate.server.security import RateLimiter
from factdebate.server.service import CallerDep, Service, ServiceDep
from factdebate.server.shared_state import SharedRateLimiter
from factdebate.server.streaming import transcribed
from factdebate.settings.model import Settings
from factdebate.tools.given import given_evidence
from factdebate.util.redact import hide_endpoints

router = APIRouter(prefix="/v1")
_TEXT_FIELDS = {"response", "question", "claim", "index", "labels"}


class ResponseRequest(VerifyOptions, TranscriptChoice, EvidenceChoice):
    response: str = Field(description="The long answer to check, claim by claim.")
    question: str | None = Field(default=None, description="The question it answers (helps extraction).")

    def chosen(self) -> dict[str, Any]:
        return {k: v for k, v in super().chosen().items() if k not in _TEXT_FIELDS}


def _checked(body: ResponseRequest, service: Service,
             caller: str) -> tuple[Settings, str, str | None, list[Document] | None]:
    """Settings, response, question and the caller's evidence, each checked before a debate slot is taken."""
    settings, given = checked_evidence(_settings_for(service, body, caller), body)
    try:
        return (settings, validate_response(body.response, settings), validate_question(body.question, settings),
                given)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc


class ClaimCharge:
    """A response check costs one rate-limit token per claim it checks (the request's own token counts as
    the first). The claims are known only after extraction, so the most the check may cost is taken before
    it starts (parallel checks cannot each start on one token) and what it did not check is given back."""

    def __init__(self, limiter: RateLimiter | SharedRateLimiter, who: str, most: int) -> None:
        self.limiter, self.who, self.most = limiter, who, max(1, most)
        self.claims: int | None = None
        self.settled = False
        limiter.charge(who, self.most - 1)

    def sink(self, event: dict[str, Any]) -> None:
        if self.claims is None and event.get("event") == "claims_extracted":
            self.claims = len(event.get("claims") or [])

    def settle(self) -> None:
        if not self.settled:
            self.settled = True
            self.limiter.charge(self.who, -(self.most - max(1, self.claims or 0)))


def _charged_slot(service: Service, who: str, settings: Settings) -> tuple[_RunSlot, ClaimCharge]:
    slot = _RunSlot(service)  # a 503 here costs the caller only the request's token
    try:
        charge = ClaimCharge(service.limiter, who, settings.response.max_claims)
    except BaseException:
        slot.release()
        raise
    slot.on_release.append(charge.settle)
    return slot, charge


@router.post("/check-response", tags=["verify"], summary="Check a long answer claim by claim")
async def check_response(body: ResponseRequest, service: ServiceDep, who: CallerDep,
                         response: Response) -> ResponseVerdict:
    refuse_transcript(body, "/v1/check-response")
    settings, text, question, given = _checked(body, service, who)
    slot, charge = _charged_slot(service, who, settings)
    try:
        calls = call_keeper(service)  # the events a stream would send, gathered only for the kept check's calls
        with given_evidence(given):
            verdict = public_verdict(await run_response(text, settings, service.resources(settings),
                                                        question=question,
                                                        sinks=[charge.sink, *([calls.sink] if calls else [])]))
        check_id = await keep(service, who, verdict, calls=calls)
        if check_id is not None:
            response.headers[CHECK_ID_HEADER] = check_id
        return verdict
    except FactDebateError as exc:
        raise _http_error(exc) from exc
    finally:
        slot.release()


@router.post("/check-response/stream", tags=["verify"], response_class=StreamingResponse,
             summary="Check a long answer claim by claim, streaming the events as SSE")
async def check_response_stream(body: ResponseRequest, service: ServiceDep, who: CallerDep) -> StreamingResponse:
    settings, text, question, given = _checked(body, service, who)
    slot, charge = _charged_slot(service, who, settings)

    async def run(sinks: list[EventSink]) -> ResponseVerdict:
        calls = call_keeper(service)  # the model calls, kept with the check for its link
        with given_evidence(given):
            verdict = public_verdict(await run_response(
                text, settings, service.resources(settings), question=question,
                sinks=[charge.sink, *sinks, *([calls.sink] if calls else [])]))
        await keep(service, who, verdict, sinks, calls)  # its id goes out before the result
        return verdict

    return slot.stream(service, transcribed(run, body.transcript))  # type: ignore[arg-type]


class ResponseClaimRequest(ResponseRequest):
    index: int = Field(ge=0, description="The claim's place in the response's verdict (`claims[].index`, 0 first).")
    claim: str = Field(description="The claim to check again, as the response's verdict wrote it.")
    labels: list[Label | None] = Field(
        default_factory=list, description="Every claim's label in the response's verdict, in order (null: none, "
        "as for a claim whose check failed); the response's label is worked out anew from them with this claim's "
        "new one. Empty: the answer's label stands for this claim alone.")


class ClaimRecheck(BaseModel):
    """One claim of a response checked again, and the response's label with its new result."""

    claim: ClaimCheck
    label: Label | None
    factual: bool | None = None
    decided_by: str


def _checked_claim_request(body: ResponseClaimRequest, service: Service,
                           caller: str) -> tuple[Settings, str, str, list[Document] | None]:
    settings, text, _, given = _checked(body, service, caller)
    most = settings.response.max_claims
    try:
        claim = validate_claim(body.claim, settings)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc
    if body.index >= most:
        raise HTTPException(422, f"index: a response has at most {most} claims (response.max_claims), so the "
                                 f"last index is {most - 1}")
    if len(body.labels) > most or (body.labels and body.index >= len(body.labels)):
        raise HTTPException(422, f"labels: one per claim of the response (at most {most}), this claim's at "
                                 f"its index {body.index}")
    return settings, text, claim, given


def _rechecked(check: ClaimCheck, labels: list[Label | None]) -> ClaimRecheck:
    others = list(labels) or [None]
    others[check.index if labels else 0] = check.label
    label, decided_by = response_label(others)
    return ClaimRecheck(claim=check, label=label, factual=factual(label), decided_by=decided_by)


async def _recheck(body: ResponseClaimRequest, service: Service, settings: Settings, text: str, claim: str,
                   given: list[Document] | None, sinks: list[EventSink] | None) -> ClaimRecheck:
    with given_evidence(given):
        check = await check_one_claim(text, body.index, claim, settings, service.resources(settings), sinks=sinks)
    if check.verdict is not None:
        check.verdict = public_verdict(check.verdict)
    check.error = hide_endpoints(check.error) if check.error else None
    return _rechecked(check, body.labels)


@router.post("/check-response/claim", tags=["verify"], summary="Check one claim of a response again")
async def check_response_claim(body: ResponseClaimRequest, service: ServiceDep, who: CallerDep) -> ClaimRecheck:
    refuse_transcript(body, "/v1/check-response/claim")
    settings, text, claim, given = _checked_claim_request(body, service, who)
    slot = _RunSlot(service)
    try:
        return await _recheck(body, service, settings, text, claim, given, None)
    finally:
        slot.release()


@router.post("/check-response/claim/stream", tags=["verify"], response_class=StreamingResponse,
             summary="Check one claim of a response again, streaming its run as SSE")
async def check_response_claim_stream(body: ResponseClaimRequest, service: ServiceDep,
                                      who: CallerDep) -> StreamingResponse:
    settings, text, claim, given = _checked_claim_request(body, service, who)
    slot = _RunSlot(service)

    async def run(sinks: list[EventSink]) -> ClaimRecheck:
        return await _recheck(body, service, settings, text, claim, given, sinks)

    return slot.stream(service, transcribed(run, body.transcript))  # type: ignore[arg-type]
