"""OpenTelemetry traces of the service, sent over OTLP/HTTP when the standard variables ask for them
(``OTEL_EXPORTER_OTLP_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``; ``OTEL_SDK_DISABLED=true`` or
``OTEL_TRACES_EXPORTER=none`` turn them off; ``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``,
``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_TRACES_SAMPLER`` and ``OTEL_BSP_*`` are read by the SDK as everywhere).

Spans: one per HTTP request (``POST /v1/chat/completions``, server kind, by route template), one per guard
check (``guard.check``), one per claim (``claim``, with its index, never its text), one per model call (the
GenAI semantic conventions: ``chat <model>``, client kind, ``gen_ai.operation.name``, ``gen_ai.request.model``,
``gen_ai.provider.name``, ``gen_ai.usage.input_tokens`` / ``output_tokens`` where the server reported them;
the upstream chat model as ``chat upstream``) and one per evidence search (``search <tool>``). A kept check
records its trace's id (``trace_id`` in ``GET /v1/checks/{id}``'s verdict), so an operator goes from a check a
user reports to its trace. Health probes and metric scrapes are not traced (server/ops/probes.py).

A token count the server did not report (a stream without usage, as llama-cpp-python's) is left out of the
span, never set to 0: a collector that adds ``gen_ai.usage.input_tokens`` up, or an alert on a call that
read no prompt, would take the 0 for a measurement.

What a request could choose names no span and fills no attribute with its text (server/ops/labels.py): a
method outside the usual seven is ``_OTHER`` and its span is named ``HTTP`` (as the HTTP semantic conventions
say), and a model, role or tool the operator did not name is ``caller_chosen``, as in the metrics.

Without the ``tracing`` extra (opentelemetry-sdk) the variables are ignored, said once in the log."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from factdebate.server.ops.labels import METHODS, OperatorNames
from factdebate.server.ops.probes import is_probe
from factdebate.util.observe import Watcher

log = logging.getLogger("factdebate.server")


def wanted(environ: dict[str, str] | None = None) -> bool:
    """Whether the standard OTEL_* variables ask for traces."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if env.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() in ("none", ""):
        return False
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


class Tracing(Watcher):
    """One tracer provider of the service's own (the process's global one is left to whoever embeds it), its
    spans batched and sent by the OTLP/HTTP exporter."""

    def __init__(self, names: OperatorNames | None = None) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        from factdebate.util.version import __version__

        resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or "factdebate",
                                    "service.version": __version__})
        self.provider = TracerProvider(resource=resource)
        self.provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        self.tracer = self.provider.get_tracer("factdebate", __version__)
        self.names = names or OperatorNames()  # the models, roles and tools a span shows by name

    def shutdown(self) -> None:
        self.provider.shutdown()  # the spans still batched are sent first

    @contextlib.contextmanager
    def watch(self, kind: str, attributes: dict[str, str]) -> Iterator[None]:
        """util/observe.py's watcher: model calls, searches, guard checks and claims as spans."""
        from opentelemetry.trace import SpanKind, Status, StatusCode

        name, span_kind, fields = _span_of(kind, attributes, self.names)
        if name is None:
            yield
            return
        otel_kind = SpanKind.CLIENT if span_kind == "client" else SpanKind.INTERNAL
        with self.tracer.start_as_current_span(name, kind=otel_kind, attributes=fields, record_exception=False,
                                               set_status_on_exception=False) as span:
            try:
                yield
            except BaseException as exc:
                span.set_attribute("error.type", type(exc).__name__)
                span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
                raise
            # what the call learnt (llm/model.py), which is nothing where the server reported no usage
            for name in ("input_tokens", "output_tokens"):
                if attributes.get(name, "").isdigit():
                    span.set_attribute(f"gen_ai.usage.{name}", int(attributes[name]))

    def trace_id(self) -> str | None:
        """The current trace's id (32 hex digits), or None outside a span."""
        from opentelemetry import trace

        context = trace.get_current_span().get_span_context()
        return format(context.trace_id, "032x") if context.is_valid else None


def _span_of(kind: str, attributes: dict[str, str],
             names: OperatorNames) -> tuple[str | None, str, dict[str, Any]]:
    """A watched piece of work as (span name, kind, attributes); None: not traced (a method's rounds)."""
    if kind == "model_call":
        shown = names.model(attributes.get("model", ""))
        provider, _, name = shown.partition(":") if ":" in shown else ("", "", shown)
        return f"chat {shown}", "client", {"gen_ai.operation.name": "chat", "gen_ai.request.model": name or shown,
                                           "gen_ai.provider.name": provider or shown,
                                           "factdebate.role": names.role(attributes.get("role", ""))}
    if kind == "search":
        tool = names.tool(attributes.get("tool", ""))
        return f"search {tool}", "client", {"factdebate.tool": tool}
    if kind == "guard_check":
        return "guard.check", "internal", {f"factdebate.{k}": v for k, v in attributes.items()}
    if kind == "span" and attributes.get("span_kind") in ("subclaim", "claim"):
        fields: dict[str, Any] = {}
        if attributes.get("index", "").isdigit():
            fields["factdebate.claim.index"] = int(attributes["index"])
        return "claim", "internal", fields
    return None, "", {}


class TraceRequests:
    """A server span around every HTTP request, named by its method and its route's template once routing has
    found it. A method outside the usual seven is ``_OTHER``, its span ``HTTP``: the method a client sent is
    its own text, and never names a span. A health probe or a metric scrape gets none (server/ops/probes.py):
    every few seconds each, they would outnumber the requests a trace is looked at for."""

    def __init__(self, app: ASGIApp, tracing: Tracing) -> None:
        self.app, self.tracing = app, tracing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_probe(scope):
            await self.app(scope, receive, send)
            return
        from opentelemetry.trace import SpanKind, Status, StatusCode

        method = scope.get("method", "")
        method, named = (method, method) if method in METHODS else ("_OTHER", "HTTP")
        status = [0]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        with self.tracing.tracer.start_as_current_span(named, kind=SpanKind.SERVER, attributes={
                "http.request.method": method}, record_exception=False, set_status_on_exception=False) as span:
            try:
                await self.app(scope, receive, sending)
            finally:
                template = getattr(scope.get("route"), "path", None)
                if template:
                    span.update_name(f"{named} {template}")
                    span.set_attribute("http.route", template)
                span.set_attribute("http.response.status_code", status[0] or 499)
                if status[0] >= 500 or not status[0]:
                    span.set_status(Status(StatusCode.ERROR))


def start_tracing(names: OperatorNames | None = None) -> Tracing | None:
    """The service's tracing when the variables ask for it; None otherwise (or without the SDK: said once).
    ``names``: the models, roles and tools its spans show by name (the operator's)."""
    if not wanted():
        return None
    try:
        return Tracing(names)
    except ImportError:
        log.warning("OTEL_EXPORTER_OTLP_ENDPOINT is set but the tracing extra is not installed (pip install "
                    "'factdebate[tracing]'): no traces are sent")
        return None
