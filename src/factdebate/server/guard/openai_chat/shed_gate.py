"""The chat door's 503 past what the service serves now (the adaptive limit on checks in flight, or the
operator's ``guard.max_cpu_share``, with ``guard.on_overload: 503``), answered before the app's middleware and
routing see the request.

At twice the guard's capacity as many requests are shed as admitted. A shed request that passed the whole
stack (the scrub, the security and check-id headers, the size limit, strict JSON, FastAPI's routing and its
dependencies, the key's rate bucket) before its 503 would cost about 1.4 ms of the busy process's CPU, most of
what a shedding guard spends at a fifth of a core (benchmarks/guard_load.py), and every admitted first token
would wait behind those steps on the one event loop. Here a shed costs the key's lookup, the forecast and one
prepared answer. The answer is the one the route gives: OpenAI's error shape with ``detail``, ``Retry-After``, the
security headers, and the request's id with the words that no check is kept (as every refusal of a guard route).

A request without a valid key is never answered here: it goes on to the route's 401 (or 429); nor is one of
a key under its fair share of what the limit admits while another key holds more (server/ops/shedding.py,
``CheckLoad.fair_turn``): the route admits it. A shed request is not charged to its key's rate bucket, so a
client that retries after ``Retry-After`` is not refused for having been shed."""

from __future__ import annotations

import json
from types import SimpleNamespace

from starlette.types import ASGIApp, Receive, Scope, Send

from factdebate.server.admission import count_shed, operator_deadline_s
from factdebate.server.guard.check_id import CHAT_PATH, refused_headers
from factdebate.server.guard.upstream import error_body
from factdebate.server.service import Service

# RequestMetrics labels a request by its route's template; this answer never reaches the router.
_CHAT_ROUTE = SimpleNamespace(path=CHAT_PATH)
ANSWERS_KEPT = 256  # 503 answers kept encoded, by message
_FIXED_HEADERS = [(b"content-type", b"application/json"), (b"x-content-type-options", b"nosniff"),
                  (b"cache-control", b"no-store")]


class ShedGate:
    """Answers a keyed chat request with the 503 of a service past what it serves now."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app, self.service = app, service
        self._deadline: tuple[object, float] | None = None  # the operator's deadline, for the settings it is of
        self._answers: dict[str, tuple[bytes, list[tuple[bytes, bytes]]]] = {}  # by message (it names Retry-After)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self._refusal(scope) if scope["type"] == "http" else None
        if refusal is None:
            await self.app(scope, receive, send)
            return
        message, retry_after = refusal
        scope["route"] = _CHAT_ROUTE
        body, fixed = self._answer(message, retry_after)
        headers = [*fixed, *refused_headers()]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _answer(self, message: str, retry_after: int) -> tuple[bytes, list[tuple[bytes, bytes]]]:
        """The 503's body and its headers but the request's id, encoded once per message: a shedding guard
        says the same few sentences to every request it sheds meanwhile."""
        answer = self._answers.get(message)
        if answer is None:
            if len(self._answers) >= ANSWERS_KEPT:
                self._answers.clear()
            body = json.dumps({"detail": message, **error_body(message, "server_error", "overloaded")},
                              ensure_ascii=False, separators=(",", ":")).encode()
            answer = self._answers[message] = (body, [*_FIXED_HEADERS, (b"content-length", str(len(body)).encode()),
                                                      (b"retry-after", str(retry_after).encode())])
        return answer

    def _refusal(self, scope: Scope) -> tuple[str, int] | None:
        """(the 503's message, its Retry-After) of a request shed now; None: on to the app."""
        service = self.service
        guard = service.resolver.base.guard
        if guard.on_overload != "503" or not service.load.running:
            return None
        if scope.get("method") != "POST" or scope.get("path", "").rstrip("/") != CHAT_PATH:
            return None
        authorization = next((v for k, v in scope.get("headers", ()) if k == b"authorization"), None)
        who = service.keys.identify(authorization.decode("latin-1") if authorization is not None else None)
        if who is None:
            return None  # the route's 401 (or 429 for too many failures)
        shed = service.load.shed_now(guard.checks_at_once, guard.max_cpu_share, self._deadline_s(), who)
        if shed is None or service.load.fair_turn(who, shed.capacity):
            return None  # room, or a key under its share: the route admits it (server/admission.py)
        count_shed(service, "503", shed)
        return shed.message, shed.retry_after_s

    def _deadline_s(self) -> float:
        """The operator's deadline (server/admission.py), worked out once per settings object."""
        settings = self.service.resolver.base
        if self._deadline is None or self._deadline[0] is not settings:
            self._deadline = (settings, operator_deadline_s(settings))
        return self._deadline[1]
