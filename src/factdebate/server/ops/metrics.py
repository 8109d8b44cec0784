"""The service's Prometheus metrics (``GET /metrics``): what an operator watches a guard with.

One :class:`Metrics` per app, in its own registry (two apps in one process, as in the tests, count apart).
What is counted, and from where:

- every HTTP request by route (its template: ``/v1/checks/{check_id}``, never the id), method and status, and
  its latency (:class:`RequestMetrics`, an ASGI middleware); health probes and metric scrapes too, which traces
  and the access log leave out (server/ops/probes.py): their count is cheap, and a probe's ``503`` is what an
  alert on readiness reads;
- every finished guard check by its label, the action the policy took and the tier asked for, each claim it
  left unchecked by why (a few fixed reasons: :func:`unchecked_reason`), and the checks the deadline ended before
  they were done (the result's typed ``deadline_missed``: admitted, not checked in time), from the host that keeps
  the checks (server/guard/host.py);
- every model call's latency and its failures by endpoint (the model's configured name, any address in it
  hidden, and the role that asked: util/observe.py's ``model_call``), the upstream's calls the same way under
  the role ``upstream``, and every search's latency by tool;
- the time the guard added before a streamed reply's first token (the upstream's first chunk to ours);
- debates and checks running, guard requests shed for load (server/ops/shedding.py; nothing waits in a queue:
  a request is admitted or answered at once) and refusals of the rate limits by limit.

No label holds a key, a key's id, a claim or any text of a request: the label values are the fixed sets above,
and where a request could choose one (the HTTP method, a model under ``allowed_llms: ["*"]``, a DPD referee's
role, an MCP tool under a wildcard) it is one of a set the code or the operator's settings fix
(server/ops/labels.py): no request adds series beyond those.

With ``serve --workers N`` the processes' metrics are added up (prometheus-client's multi-process mode: the
directory in ``PROMETHEUS_MULTIPROC_DIR``, set by ``serve`` before the workers start), so a scrape of any worker
reads the whole service."""

from __future__ import annotations

import contextlib
import hmac
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from factdebate.server.ops.labels import OperatorNames, method_label
from factdebate.util.observe import Watcher

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# Seconds: a route answers in milliseconds (a refusal) to minutes (a deep check); a model call alike.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300)
TTFT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
# Why a claim was left unchecked, from the words its reason starts with or holds (guard_engine/coverage.py,
# guard_engine/tiers.py, guard_engine/check.py, server/ops/shedding.py); anything else is "other".
_REASONS = (("overloaded", "overloaded"), ("deadline", "deadline"), ("claim cap", "claim_cap"),
            ("grounding filter", "grounding_filter"), ("unresolved", "unresolved"), ("no claim", "no_claim"),
            ("max_message_chars", "too_long"), ("unreadable", "unreadable"), ("no readable label", "unreadable"))


def unchecked_reason(status: str, reason: str | None) -> str:
    """A claim's reason for being unchecked as one of a few fixed label values (never its text)."""
    if status == "error":
        return "error"
    text = (reason or "").lower()
    for words, name in _REASONS:
        if words in text:
            return name
    return "other"


class Metrics:
    def __init__(self, names: OperatorNames | None = None) -> None:
        multi = bool(os.environ.get(MULTIPROC_ENV))
        # the models, roles and tools a label shows by name; set by the app from the operator's settings
        self.names = names or OperatorNames()
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter("factdebate_http_requests", "HTTP requests answered, by route template, method and "
                                "status.", ["route", "method", "status"], registry=r)
        self.request_seconds = Histogram("factdebate_http_request_duration_seconds", "Seconds from a request's "
                                         "arrival to the end of its answer (a stream's last byte).",
                                         ["route", "method"], buckets=LATENCY_BUCKETS, registry=r)
        self.guard_checks = Counter("factdebate_guard_checks", "Guard checks finished, by the reply's label "
                                    "(none: no verdict), the action taken and the tier asked for.",
                                    ["label", "action", "tier"], registry=r)
        self.unchecked_claims = Counter("factdebate_guard_unchecked_claims", "Claims a guard check left without "
                                        "a verdict, by why.", ["reason"], registry=r)
        self.deadline_missed = Counter("factdebate_guard_deadline_missed_replies", "Guard checks admitted whose "
                                       "deadline ended them before they were done (the claims not extracted, or a "
                                       "claim left without a verdict): admitted, not checked in time.", registry=r)
        self.checker_down = Counter("factdebate_guard_checker_down_replies", "Guard checks answered without a "
                                    "verdict while a checker model's server was down (it refused connections, so "
                                    "it was not called).", registry=r)
        self.model_call_seconds = Histogram("factdebate_model_call_duration_seconds", "Seconds of each model "
                                            "call sent (each try), by endpoint (the model's configured name; the "
                                            "upstream chat model is 'upstream') and role.",
                                            ["endpoint", "role"], buckets=LATENCY_BUCKETS, registry=r)
        self.model_call_errors = Counter("factdebate_model_call_errors", "Model calls that failed, by endpoint, "
                                         "role and the error's kind.", ["endpoint", "role", "kind"], registry=r)
        self.search_seconds = Histogram("factdebate_search_duration_seconds", "Seconds of each evidence search, "
                                        "by tool.", ["tool"], buckets=LATENCY_BUCKETS, registry=r)
        self.search_errors = Counter("factdebate_search_errors", "Evidence searches that failed, by tool and the "
                                     "error's kind.", ["tool", "kind"], registry=r)
        self.ttft_added = Histogram("factdebate_guard_time_to_first_token_added_seconds", "Seconds the guard added "
                                    "before a streamed reply's first token: from the upstream's first chunk to "
                                    "the guard's.", buckets=TTFT_BUCKETS, registry=r)
        gauge_mode: dict[str, Any] = {"multiprocess_mode": "livesum"} if multi else {}
        self.active = Gauge("factdebate_active_runs", "Debates and checks running now (max_active_runs bounds "
                            "them).", registry=r, **gauge_mode)
        self.shed = Counter("factdebate_shed_requests", "Guard requests answered at once because their check "
                            "would not end within its deadline (guard.on_overload), by what was done: 503 or "
                            "pass.", ["action"], registry=r)
        self.rate_limited = Counter("factdebate_rate_limit_refusals", "Requests refused by a rate limit, by "
                                    "limit.", ["limit"], registry=r)

    def exposition(self) -> tuple[bytes, str]:
        """The text a scrape reads: this process's registry, or every worker's added up."""
        if os.environ.get(MULTIPROC_ENV):
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
            return generate_latest(registry), CONTENT_TYPE_LATEST
        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    def guard_check(self, label: str | None, action: str, tier: str,
                    unchecked: Sequence[tuple[str, str | None]], checker_down: bool = False,
                    deadline_missed: bool = False) -> None:
        self.guard_checks.labels(label or "none", action, tier).inc()
        if deadline_missed:
            self.deadline_missed.inc()
        if checker_down:
            self.checker_down.inc()
        for status, reason in unchecked:
            self.unchecked_claims.labels(unchecked_reason(status, reason)).inc()

    def watcher(self) -> Watcher:
        return _MetricsWatcher(self)


_TIMED = frozenset(("model_call", "search"))  # the kinds of work _MetricsWatcher._record counts


class _MetricsWatcher(Watcher):
    """Model calls and searches timed (util/observe.py), their failures counted by the exception's class."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    @contextlib.contextmanager
    def watch(self, kind: str, attributes: dict[str, str]) -> Iterator[None]:
        if kind not in _TIMED:  # a span, a guard check: traces' (tracing.py), nothing here to time or count
            yield
            return
        started = time.perf_counter()
        try:
            yield
        except BaseException as exc:
            self._record(kind, attributes, started, type(exc).__name__)
            raise
        self._record(kind, attributes, started, None)

    def _record(self, kind: str, attributes: dict[str, str], started: float, error: str | None) -> None:
        seconds = time.perf_counter() - started
        names = self.metrics.names
        if kind == "model_call":
            endpoint, role = names.model(attributes.get("model", "")), names.role(attributes.get("role", ""))
            self.metrics.model_call_seconds.labels(endpoint, role).observe(seconds)
            if error is not None:
                self.metrics.model_call_errors.labels(endpoint, role, error).inc()
        elif kind == "search":
            tool = names.tool(attributes.get("tool", ""))
            self.metrics.search_seconds.labels(tool).observe(seconds)
            if error is not None:
                self.metrics.search_errors.labels(tool, error).inc()


class RequestMetrics:
    """Every HTTP request counted by its route's template, method and status, and timed to its last byte. A
    path no route matched is ``unmatched`` (a path's own text, an id or a probe's guess, is never a label), a
    method outside the usual seven ``other`` (labels.py)."""

    def __init__(self, app: ASGIApp, metrics: Metrics, watchers: Sequence[Watcher] = ()) -> None:
        self.app, self.metrics = app, metrics
        self.watchers = [metrics.watcher(), *watchers]  # what the request's model calls and searches report to

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [0]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            with Watcher.watching(self.watchers):
                await self.app(scope, receive, sending)
        except BaseException:
            status[0] = status[0] or 500
            raise
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            method = method_label(scope.get("method", ""))
            self.metrics.requests.labels(template, method, str(status[0] or 499)).inc()
            self.metrics.request_seconds.labels(template, method).observe(time.perf_counter() - started)


def metrics_key_matches(authorization: str | None, key: str) -> bool:
    scheme, _, token = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), key.encode())


def start_metrics_port(metrics: Metrics, host: str, port: int) -> Callable[[], None]:
    """``/metrics`` without a key on a port of its own (prometheus-client's server, in a thread); returns how
    to stop it. A busy port is a :class:`ConfigError`, one line."""
    from prometheus_client import start_http_server

    from factdebate.util.errors import ConfigError

    registry: Any = metrics.registry
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        raise ConfigError(f"cannot serve the metrics on {host}:{port}: {exc.strerror or exc}") from None

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(5)

    return stop
