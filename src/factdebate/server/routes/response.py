"""``/v1/check-response``: a long answer checked claim by claim by check-response's one call (guard_engine/call.py's
``CheckCall.check_response``, every door's: :class:`ResponseHost`), as JSON or streamed as SSE (the response's events,
then every claim's run nested in its ``subclaim`` span); ``/v1/check-response/claim``: one of its claims checked
again alone (a claim whose check failed), with the response's label worked out anew from the caller's list of
its claims' labels, or, for a claim of a kept check (``check_id``), from that check's, which is then updated so
that its link shows the claim's new verdict."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, HTTPException, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from factdebate.engine import (
    CheckCall,
    Document,
    EventSink,
    GivenEvidence,
    GuardOptions,
    Host,
    Label,
    Option,
    RecheckedClaim,
    Resources,
    ResponseVerdict,
    Settings,
)
from factdebate.server.admission import ClaimCharge, RunSlot, ServiceAdmission, claimed_slot
from factdebate.server.evidence import checked_evidence
from factdebate.server.options import TranscriptChoice, VerifyOptions, public_verdict
from factdebate.server.routes.checks import CHECK_ID_HEADER, call_keeper, keep
from factdebate.server.routes.verify import http_error, refuse_transcript, settings_for
from factdebate.server.service import CallerDep, Service, ServiceDep
from factdebate.server.state.check_store import CHECK_ID
from factdebate.server.state.kept_calls import CallKeeper, with_claim_calls
from factdebate.server.streaming import transcribed
from factdebate.util.errors import ConfigError, FactDebateError, InputError
from factdebate.util.scrub import hide_endpoints

router = APIRouter(prefix="/v1")
log = logging.getLogger("factdebate.server")
_TEXT_FIELDS = {"response", "question", "claim", "index", "labels", "check_id"}


class ResponseRequest(VerifyOptions, TranscriptChoice, GivenEvidence):
    response: str = Field(description="The long answer to check, claim by claim.")
    question: str | None = Field(default=None, description="The question it answers (helps extraction).")

    def chosen(self) -> dict[str, Any]:
        return {k: v for k, v in super().chosen().items() if k not in _TEXT_FIELDS}


def _checked(body: ResponseRequest, service: Service,
             caller: str) -> tuple[Settings, str, str | None, list[Document] | None]:
    """Settings, response, question and the caller's evidence, each checked before a debate slot is taken."""
    settings, given = checked_evidence(settings_for(service, body, caller), body)
    try:
        return (settings, *settings.response.checked_answer(body.response, body.question), given)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc


class ResponseHost(Host):
    """The service as the host of check-response's one call (``CheckCall.check_response``, which MCP's
    ``check_response``, ``factdebate.check_response`` and the CLI make too): the settings the route resolved
    from the request, the run slot and claims it took before answering (a refusal is the request's own status,
    before a stream starts; server/admission.py), and the service's resource pool. The call scopes the model
    cache to the caller and says a failure without the operator's address."""

    def __init__(self, service: Service, who: str, settings: Settings, slot: RunSlot, charge: ClaimCharge) -> None:
        self.service, self.caller, self._settings = service, who, settings
        self._admission = ServiceAdmission(slot, charge, None)

    async def settings(self, options: GuardOptions) -> Settings:
        return self._settings

    def admit(self, settings: Settings) -> ServiceAdmission:
        return self._admission

    def session(self, settings: Settings) -> AbstractAsyncContextManager[tuple[Resources, list[EventSink]]]:
        return contextlib.nullcontext((self.service.resources(settings), []))  # the pool holds them


async def _one_call(service: Service, who: str, checked: tuple[Settings, str, str | None, list[Document] | None],
                    slot: RunSlot, charge: ClaimCharge, sinks: list[EventSink]) -> ResponseVerdict:
    """The check of a request read by :func:`_checked`, made by the one call with the service as its host; its
    claims charged as they are extracted (``charge.sink``), the slot given back when it ends."""
    settings, text, question, given = checked
    host = ResponseHost(service, who, settings, slot, charge)
    return public_verdict(await CheckCall((), GuardOptions(), question).check_response(
        text, host, sinks=[charge.sink, *sinks], given=given))


@router.post("/check-response", tags=["verify"], summary="Check a long answer claim by claim")
async def check_response(body: ResponseRequest, service: ServiceDep, who: CallerDep,
                         response: Response) -> ResponseVerdict:
    refuse_transcript(body, "/v1/check-response")
    checked = _checked(body, service, who)
    slot, charge = claimed_slot(service, who, checked[0])
    try:
        calls = call_keeper(service)  # the events a stream would send, gathered only for the kept check's calls
        verdict = await _one_call(service, who, checked, slot, charge, [calls] if calls else [])
        check_id = await keep(service, who, verdict, calls=calls, response=response)
        if check_id is not None:
            response.headers[CHECK_ID_HEADER] = check_id
        return verdict
    except FactDebateError as exc:
        raise http_error(exc) from exc
    finally:
        slot.release()


@router.post("/check-response/stream", tags=["verify"], response_class=StreamingResponse,
             summary="Check a long answer claim by claim, streaming the events as SSE")
async def check_response_stream(body: ResponseRequest, service: ServiceDep, who: CallerDep) -> StreamingResponse:
    checked = _checked(body, service, who)
    slot, charge = claimed_slot(service, who, checked[0])

    async def run(sinks: list[EventSink]) -> ResponseVerdict:
        calls = call_keeper(service)  # the model calls, kept with the check for its link
        verdict = await _one_call(service, who, checked, slot, charge, [*sinks, *([calls] if calls else [])])
        await keep(service, who, verdict, sinks, calls)  # its id goes out before the result
        return verdict

    return slot.stream(service, transcribed(run, body.transcript))  # type: ignore[arg-type]


class ResponseClaimRequest(ResponseRequest):
    index: int = Field(ge=0, description="The claim's place in the response's verdict (`claims[].index`, 0 first).")
    claim: str = Field(description="The claim to check again, as the response's verdict wrote it.")
    labels: list[Label | None] = Field(
        default_factory=list, description="Every claim's label in the response's verdict, in order (null: none, "
        "as for a claim whose check failed); the response's label is worked out anew from them with this claim's "
        "new one. Empty: the answer's label stands for this claim alone; with `check_id`, the kept check's.")
    check_id: str | None = Field(
        default=None, description="The kept check (`X-Check-Id`, a stream's `check_saved`) this claim is one of, "
        "this key's own: the claim is checked again with the options that check recorded, and once it has a "
        "verdict the kept check is updated with it (the claim, the response's label, its model calls), so its "
        "link shows it. `response`, `question`, `index`, `claim`, any `labels` and any option sent must be the "
        "kept check's.")


class ClaimRecheck(BaseModel):
    """One claim of a response checked again, and the response's label with its new result."""

    claim: RecheckedClaim
    label: Label | None
    factual: bool | None = None
    decided_by: str
    check_id: str | None = Field(default=None, description="The kept check updated with this claim's new verdict "
                                 "(null: none was named, the claim's check failed again, or the check is no "
                                 "longer kept).")


@dataclass
class _Recheck:
    """A claim check asked for, every field checked: what to run and what the response's label comes from."""

    settings: Settings
    text: str
    claim: str
    given: list[Document] | None
    labels: list[Label | None]
    check_id: str | None = None  # the kept check to update


def _refused(field: str, message: str) -> HTTPException:
    return HTTPException(422, f"{field}: {message}")


def _checked_claim_request(body: ResponseClaimRequest, service: Service, caller: str) -> _Recheck:
    settings, text, _, given = _checked(body, service, caller)
    most = settings.response.max_claims
    try:
        claim = settings.checked_claim(body.claim)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc
    if body.index >= most:
        raise _refused("index", f"a response has at most {most} claims (response.max_claims), so the last index "
                                f"is {most - 1}")
    if len(body.labels) > most or (body.labels and body.index >= len(body.labels)):
        raise _refused("labels", f"one per claim of the response (at most {most}), this claim's at its index "
                                 f"{body.index}")
    return _Recheck(settings, text, claim, given, list(body.labels))


async def _kept_claim_request(body: ResponseClaimRequest, check_id: str, service: Service, caller: str) -> _Recheck:
    """A claim of the caller's kept check: its settings are the check's recorded ones, and what the request says
    of the check must be what the check says (a kept check holds only what was checked as it was asked)."""
    if not CHECK_ID.fullmatch(check_id):
        raise _refused("check_id", "a check id is 32 lower-case hex digits")
    kept = await asyncio.to_thread(service.checks.get, check_id, caller)
    if kept is None:  # unknown, expired or another key's: one answer for all three, as GET /v1/checks/{id}
        raise HTTPException(404, f"no check '{check_id}'")
    if kept.kind != "response":
        raise _refused("check_id", f"check '{check_id}' is a claim's check, not a response's")
    verdict = kept.verdict
    try:
        settings = service.resolver.resolve_recorded(verdict.get("config") or {}, caller)
    except ConfigError as exc:
        raise _refused("check_id", f"the kept check's options no longer pass this server's checks: {exc}") from exc
    used = settings.model_dump(mode="json")
    sent = body.model_dump(mode="json", exclude_none=True)
    for name in body.chosen():
        recorded = Option.public_options()[name].value_in(used)
        if sent[name] != recorded:
            raise _refused(name, f"the kept check was asked with {json.dumps(recorded)}; a claim of it is checked "
                                 "again as the check was asked (leave the options out)")
    settings, given = checked_evidence(settings, body)
    try:
        text, question = settings.response.checked_answer(body.response, body.question)
        claim = settings.checked_claim(body.claim)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc
    if text != verdict.get("response") or question != verdict.get("question"):
        raise _refused("response" if text != verdict.get("response") else "question",
                       f"not the one of kept check '{check_id}'")
    claims = verdict.get("claims") or []
    place = next((i for i, c in enumerate(claims) if c.get("index") == body.index), None)
    if place is None:
        raise _refused("index", f"kept check '{check_id}' has {len(claims)} claims, indexed from 0")
    if claim != claims[place].get("claim"):
        raise _refused("claim", f"not claim {body.index} of kept check '{check_id}'")
    labels = [Label(c["label"]) if c.get("label") else None for c in claims]
    if body.labels and body.labels != labels:
        raise _refused("labels", f"not the labels of kept check '{check_id}''s claims (leave them out: its own "
                                 "are used)")
    return _Recheck(settings, text, claim, given, labels, check_id)


async def _claim_request(body: ResponseClaimRequest, service: Service, caller: str) -> _Recheck:
    if body.check_id is None:
        return _checked_claim_request(body, service, caller)
    return await _kept_claim_request(body, body.check_id, service, caller)


async def _keep_claim(service: Service, caller: str, check_id: str, index: int,
                      revised: Callable[[dict[str, Any]], dict[str, Any]],
                      calls: CallKeeper | None) -> dict[str, Any] | None:
    """The kept check updated with claim ``index``'s new verdict (``revised``: the kept response verdict with
    it); None when it is no longer kept, or updating it failed (the caller still gets the claim's verdict; the
    server logs why)."""
    limit = service.config.kept_check_calls_bytes

    def new_calls(kept: list[dict[str, Any]], cut: int) -> tuple[list[dict[str, Any]], int]:
        return with_claim_calls(kept, cut, index, calls, limit) if calls else (kept, cut)

    try:
        return await asyncio.to_thread(service.checks.revise, check_id, caller, revised,
                                       new_calls if calls else None)
    except Exception:
        log.warning("could not update kept check %s with a claim checked again", check_id, exc_info=True)
        return None


async def _recheck(request: _Recheck, body: ResponseClaimRequest, service: Service, caller: str,
                   sinks: list[EventSink] | None) -> ClaimRecheck:
    calls = call_keeper(service) if request.check_id else None  # the claim's new calls replace its kept ones
    check = await RecheckedClaim.check(request.text, body.index, request.claim, request.settings,
                                       service.resources(request.settings),
                                       sinks=[*(sinks or []), *([calls] if calls else [])], given=request.given)
    if check.verdict is not None:
        check.verdict = public_verdict(check.verdict)
    check.error = hide_endpoints(check.error) if check.error else None
    if request.check_id and check.verdict is not None and check.error is None:
        kept = await _keep_claim(service, caller, request.check_id, check.index,
                                 lambda kept: check.in_answer(ResponseVerdict.model_validate(kept)).model_dump(
                                     mode="json"), calls)
        if kept is not None:
            for sink in sinks or []:
                sink({"event": "check_saved", "id": request.check_id})
            return ClaimRecheck(claim=check, label=kept["label"], factual=kept["factual"],
                                decided_by=kept["decided_by"], check_id=request.check_id)
    label, is_factual, decided_by = check.answer_label(request.labels)
    return ClaimRecheck(claim=check, label=label, factual=is_factual, decided_by=decided_by)


@router.post("/check-response/claim", tags=["verify"], summary="Check one claim of a response again")
async def check_response_claim(body: ResponseClaimRequest, service: ServiceDep, who: CallerDep) -> ClaimRecheck:
    refuse_transcript(body, "/v1/check-response/claim")
    request = await _claim_request(body, service, who)
    slot = RunSlot(service)
    try:
        return await _recheck(request, body, service, who, None)
    finally:
        slot.release()


@router.post("/check-response/claim/stream", tags=["verify"], response_class=StreamingResponse,
             summary="Check one claim of a response again, streaming its run as SSE")
async def check_response_claim_stream(body: ResponseClaimRequest, service: ServiceDep,
                                      who: CallerDep) -> StreamingResponse:
    request = await _claim_request(body, service, who)
    slot = RunSlot(service)

    async def run(sinks: list[EventSink]) -> ClaimRecheck:
        return await _recheck(request, body, service, who, sinks)

    return slot.stream(service, transcribed(run, body.transcript))  # type: ignore[arg-type]
