"""Health probes and metric scrapes, kept out of traces and the access log.

A load balancer or Kubernetes asks ``GET /v1/health`` every few seconds (it is the liveness and the readiness
probe: the service has no other), and Prometheus reads ``GET /metrics`` every 15 s or so. Traced and logged
like a chat request, they outnumbered the requests an operator looks for: a quiet guard's traces and log were
mostly probes. So a probe gets no span (server/ops/tracing.py) and no access-log line once it is answered
well. It still answers, and it is still counted in ``factdebate_http_requests`` and timed like any request
(server/ops/metrics.py): a counter costs nothing to keep, and a probe answered ``503`` (warming up, the state
database down) is what an operator's alert watches.

A probe answered with an error keeps its log line: ``503`` from ``/v1/health`` says why a replica left the
load balancer, ``401`` or ``429`` from ``/metrics`` is someone guessing the metrics key."""

from __future__ import annotations

import logging

from starlette.types import Scope

# The exact paths (a trailing slash, another path or a query string's own text is not a probe's).
PROBE_PATHS = frozenset(("/v1/health", "/metrics"))
_PROBE_METHODS = frozenset(("GET", "HEAD"))
ACCESS_LOGGER = "uvicorn.access"


def is_probe(scope: Scope) -> bool:
    """Whether an ASGI HTTP request is a health probe or a metric scrape."""
    return scope.get("method") in _PROBE_METHODS and scope.get("path") in PROBE_PATHS


class QuietProbes(logging.Filter):
    """Drops uvicorn's access-log line of a probe answered below 400. The line's arguments are uvicorn's
    (client, method, path with its query, HTTP version, status); a record of any other shape is kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not isinstance(args, tuple) or len(args) != 5:
            return True
        _, method, path, _, status = args
        if method not in _PROBE_METHODS or not isinstance(path, str) or not isinstance(status, int):
            return True
        return status >= 400 or path.partition("?")[0] not in PROBE_PATHS


def quiet_probes(name: str = ACCESS_LOGGER) -> None:
    """Attach :class:`QuietProbes` to uvicorn's access logger (once; uvicorn's logging configuration keeps a
    logger's filters). Put in front of the logger's other filters, so it reads uvicorn's arguments before one
    rewrites the message (util/scrub/)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, QuietProbes) for f in logger.filters):
        logger.filters.insert(0, QuietProbes())
