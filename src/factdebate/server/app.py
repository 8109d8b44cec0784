"""The FastAPI application: ``create_app(...)`` wires configuration, middleware, the ``/v1`` routes, the
web page and the offline API reference."""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from factdebate.engine import request_clock
from factdebate.server.config import ServiceConfig, load_service_config
from factdebate.server.guard.check_id import CheckIdHeader
from factdebate.server.guard.litellm import router as litellm_router
from factdebate.server.guard.openai_chat.answer import ACTION_HEADER, REFUTED_HEADER
from factdebate.server.guard.openai_chat.door import router as guard_router
from factdebate.server.guard.openai_chat.shed_gate import ShedGate
from factdebate.server.guard.openai_chat.stream import VERDICTS_HEADER
from factdebate.server.guard.prepare import GUARD_CHECK_ID_HEADER, close_upstreams
from factdebate.server.guard.text import router as guard_text_router
from factdebate.server.limits import BodyLimitMiddleware
from factdebate.server.log_redaction import redact_logs
from factdebate.server.ops.heap import freeze_startup_heap
from factdebate.server.ops.labels import OperatorNames
from factdebate.server.ops.metrics import RequestMetrics, metrics_key_matches, start_metrics_port
from factdebate.server.ops.probes import quiet_probes
from factdebate.server.ops.shutdown import exit_within
from factdebate.server.ops.tracing import TraceRequests, start_tracing
from factdebate.server.routes.checks import CHECK_ID_HEADER
from factdebate.server.routes.checks import router as check_router
from factdebate.server.routes.response import router as response_router
from factdebate.server.routes.verify import router
from factdebate.server.routes.views import router as view_router
from factdebate.server.scrub_responses import ScrubResponses
from factdebate.server.service import Builder, Service
from factdebate.server.state.db import DOWN_RETRY_AFTER_S, StateDatabaseDown
from factdebate.server.strict_json import TOO_DEEP, SafeJSONResponse, StrictJSONMiddleware, body_nests_deeply, refusal
from factdebate.util.version import __version__

log = logging.getLogger("factdebate.server")
STATIC = Path(__file__).parent / "static"
# The page and the reference load only their own files; nothing from elsewhere, no inline script.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")

DESCRIPTION = """Check claims by letting LLM agents debate with evidence they retrieve themselves.

Every `/v1` route except `/v1/health` needs `Authorization: Bearer <key>`. `POST /v1/verify/stream` answers with
Server-Sent Events: one event per step of the debate, then `result` (the verdict) or `error`."""


def create_app(config: ServiceConfig | None = None, *, build: Builder | None = None,
               exit_within_s: float | None = None, **fields: Any) -> FastAPI:
    """``config`` (default: :func:`load_service_config`) with ``fields`` overriding it, e.g.
    ``create_app(api_keys=["k"], defaults={"llm": "scripted:agree"}, db_path=tmp / "db.sqlite")``.
    ``build`` replaces how resources are built from settings (tests inject scripted models and tools).
    ``exit_within_s``: the process exits within that grace period (and a margin) of a stop signal, whatever
    runs (server/ops/shutdown.py); for ``serve`` only, never for an app inside another program."""
    if config is None:
        config = load_service_config(**fields)
    elif fields:
        config = ServiceConfig.model_validate({**config.model_dump(), **fields})
    service = Service.build(config, build)
    # the models, roles and tools that metrics and spans show by name: the operator's (server/ops/labels.py)
    service.metrics.names = OperatorNames.of(service.resolver)
    # OpenTelemetry when the OTEL_* variables ask for it (server/ops/tracing.py)
    service.tracing = start_tracing(service.metrics.names)
    redact_logs("factdebate", "factdebate.server", "uvicorn.error", "uvicorn.access")
    quiet_probes()  # no access-log line for a health probe or a metric scrape answered well (server/ops/probes.py)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if exit_within_s is not None:  # uvicorn's signal handlers are in place now: the watchdog goes in front
            loop = asyncio.get_running_loop()
            exit_within(exit_within_s, on_signal=lambda: service.stopping.signal(exit_within_s, loop))
        await asyncio.to_thread(service.beat)
        heartbeat = asyncio.create_task(service.heartbeat(), name="state-heartbeat")
        await service.runner.resume_all()
        warming = service.start_warm_up()  # /v1/health answers 503 until it is done
        freeze_startup_heap()  # full GC passes walk only what requests made (server/ops/heap.py)
        stop_metrics = (start_metrics_port(service.metrics, config.metrics_host, config.metrics_port)
                        if config.metrics_port else None)
        try:
            yield
        finally:
            if stop_metrics is not None:
                stop_metrics()
            if service.tracing is not None:
                await asyncio.to_thread(service.tracing.shutdown)  # the batched spans sent
            heartbeat.cancel()
            if warming is not None:
                warming.cancel()
            await close_upstreams(app.state)
            await service.runner.stop()
            await service.pool.aclose()  # its services, and the model calls' shared HTTP session
            service.store.close()
            if service.shared is not None:
                service.shared.close()

    app = FastAPI(title="factdebate", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json")
    app.state.service = service
    app.include_router(router)
    app.include_router(response_router)
    app.include_router(check_router)
    app.include_router(view_router)
    app.include_router(guard_router)
    app.include_router(litellm_router)
    app.include_router(guard_text_router)
    _pages(app)
    _errors(app)
    # uploads: batches, results files to upgrade, and chat conversations (bounded by the guard's own limits)
    large = ("/v1/batches", "/v1/verdicts/", "/v1/chat/completions", "/v1/guard/", "/beta/litellm_basic_guardrail_api")
    app.add_middleware(StrictJSONMiddleware)  # inside the size limit: it reads bodies already bounded
    app.add_middleware(BodyLimitMiddleware,
                       limit_for=lambda path: config.max_batch_bytes if path.startswith(large)
                       else config.max_body_bytes)
    if config.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=config.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type", VERDICTS_HEADER],
                           # a page elsewhere reads a kept check's id, and what the guard did to an answer
                           expose_headers=[CHECK_ID_HEADER, GUARD_CHECK_ID_HEADER, ACTION_HEADER, REFUTED_HEADER])
    app.add_middleware(CheckIdHeader)  # outside the body limit and the key check: their refusals carry it too
    app.add_middleware(SecurityHeaders)
    app.add_middleware(ScrubResponses)  # what any answer says passes one scrub on its way out (util/scrub/)
    # out of CPU: the chat door's 503 before any of the above costs the busy process a step (openai_chat/shed_gate.py)
    app.add_middleware(ShedGate, service=service)
    # every request counted and timed, its model calls and searches watched (server/ops/metrics.py)
    app.add_middleware(RequestMetrics, metrics=service.metrics,
                       watchers=[service.tracing] if service.tracing is not None else [])
    if service.tracing is not None:  # a span per request, around everything but the clock's start
        app.add_middleware(TraceRequests, tracing=service.tracing)
    app.add_middleware(RequestArrival)  # outermost: a check's clock starts before anything else is done
    return app


def _pages(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        """Prometheus' scrape, for the operator's metrics key alone (no caller's API key reads it)."""
        service: Service = request.app.state.service
        key = service.config.metrics_key.get_secret_value() if service.config.metrics_key else ""
        if not key:
            return JSONResponse({"detail": "metrics are not served on this port: its operator sets metrics_key "
                                 "(FACTDEBATE_METRICS_KEY) to serve them here, or metrics_port (serve "
                                 "--metrics-port) for a port of their own"}, status_code=404)
        if not metrics_key_matches(request.headers.get("authorization"), key):
            address = request.client.host if request.client else "unknown"  # guesses cost a 429, as a key's do
            if (wait := service.auth_failures.acquire(f"auth-failed:{address}")) > 0:
                return JSONResponse({"detail": f"too many failed authentications: retry in {math.ceil(wait)} s"},
                                    status_code=429, headers={"Retry-After": str(math.ceil(wait))})
            return JSONResponse({"detail": "missing or wrong metrics key: send 'Authorization: Bearer <the "
                                 "metrics_key>'"}, status_code=401, headers={"WWW-Authenticate": "Bearer"})
        body, media_type = service.metrics.exposition()
        return Response(body, media_type=media_type)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        """The web page: a claim, a long answer or a chat reply checked in the browser, its debate shown live."""
        return FileResponse(STATIC / "index.html")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        """The API's reference in the browser, drawn from ``/openapi.json``."""
        return FileResponse(STATIC / "docs.html")


# How util/textsafe.py names a limit ("(set max_claim_chars to change it)"): right in the terminal, where the
# user owns the settings; a service's caller cannot set it, so a service names it as its operator's.
_SET_IT = re.compile(r"\(set ([\w.]+) to change it\)")


def _errors(app: FastAPI) -> None:
    """Every error body is ``{"detail": "<a sentence for a person>"}``; validation errors add ``errors``."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> Response:
        if isinstance(exc.__cause__, RecursionError):  # FastAPI's "error parsing the body" (a 400) of deep JSON
            return _too_deep()
        detail = exc.detail
        if isinstance(detail, str):  # a limit a terminal user sets is the operator's here, not the caller's
            detail = _SET_IT.sub(r"(this server's \1, which its operator sets)", detail)
        # A detail that quotes the request can never make the answer itself unencodable.
        return SafeJSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(StateDatabaseDown)
    async def state_down(_: Request, exc: StateDatabaseDown) -> Response:
        # whichever route met it: a 503 the caller may retry, with the reason; where the server is, the log's
        log.warning("a request found the state database down: %s", exc)
        return JSONResponse({"detail": exc.reason}, status_code=503, headers={"Retry-After": str(DOWN_RETRY_AFTER_S)})

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        if isinstance(exc, RecursionError) and body_nests_deeply(request.scope):  # a route's reading of it
            return _too_deep()
        # A bug must still answer in the API's shape, without its details (they go to the server log); so does
        # any other RecursionError (an answer some server sent, nested past a parser): never the caller's 422.
        log.error("request failed", exc_info=exc)
        return JSONResponse({"detail": "the request failed unexpectedly; see the server log"}, status_code=500)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"field": ".".join(str(p) for p in e.get("loc", ()) if p != "body"), "message": e.get("msg", "")}
                  for e in exc.errors()]  # no "input": it would echo the request back
        summary = "; ".join(f"{e['field']}: {e['message']}" if e["field"] else e["message"] for e in errors)
        return SafeJSONResponse({"detail": f"invalid request: {summary}", "errors": errors}, status_code=422)


def _too_deep() -> Response:
    """Input nested too deeply to be read: the caller's to fix, a 422 like any body that is not strict JSON
    (server/strict_json.py catches most of it first; a route's own reading of the body, deeper in the stack,
    can still meet Python's limit a little sooner). Only for a body that itself nests that deep."""
    return Response(refusal(TOO_DEEP), status_code=422, media_type="application/json")


class RequestArrival:
    """Each request's checks count their time and their deadline from its arrival (guard_engine/clock.py)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with request_clock():
            await self.app(scope, receive, send)


class SecurityHeaders:
    """nosniff on every response; ``Cache-Control: no-store`` on the API's (verdicts and batch results are
    private to a key); a strict content security policy on the page's HTML."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope.get("path", "").startswith("/v1/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if not (api and k == b"cache-control")]
                headers.append((b"x-content-type-options", b"nosniff"))
                if api:
                    headers.append((b"cache-control", b"no-store"))
                if any(k == b"content-type" and v.startswith(b"text/html") for k, v in headers):
                    headers += [(b"content-security-policy", CSP.encode()), (b"x-frame-options", b"DENY"),
                                (b"referrer-policy", b"no-referrer")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
