"""A real HTTP server on loopback that speaks enough of the OpenAI chat API to test clients, with a
programmable list of failures (status code, Retry-After) served before the successes. A failure whose
status is ``GARBAGE`` answers 200 with a body that is not a chat completion; ``fault`` (request number ->
failure or None) injects failures by rule, e.g. a 429 on every 5th call (benchmarks/faults.py).

``one_at_a_time`` serves like a one-slot local server (llama-cpp-python's, Ollama's or llama.cpp's with
one slot): requests wait in line, each taking ``delay`` seconds (or ``delays``, one per request, then
``delay``); ``peak`` is the most requests the server held at once, waiting ones included.

A model named like OpenAI's reasoning models (``o1``, ``o3-mini``, ``o4-mini``, ``gpt-5``, ``gpt-5-mini``...,
or as ``reasoning`` says) is answered as OpenAI answers it: HTTP 400 with ``code: unsupported_parameter``
for ``max_tokens`` and ``code: unsupported_value`` for a ``temperature`` other than 1, and usage that
counts reasoning tokens.
``reply`` may be a function of the request body: :func:`from_schema` answers any ``response_format``.

``owner`` makes ``GET /models`` answer a list whose model says that owner (``vllm``, ``llamacpp``, ``me``), and
``props`` makes ``GET /props`` answer that JSON, as llama.cpp's ``llama-server`` does; without them a ``GET`` is
answered 501, as before. ``gets`` lists the paths asked by ``GET``."""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GARBAGE = 0  # "status" of a 200 whose body is not a chat completion
Failure = tuple[int, str | None]
Reply = str | Callable[[dict[str, Any]], str]
REASONING_MODEL = re.compile(r"^(o[1-9]|gpt-5)")
REASONING_TOKENS = 64  # what the fake's reasoning models report having spent thinking, per reply


def openai_refusal(body: dict[str, Any], reasoning: re.Pattern[str] = REASONING_MODEL) -> dict[str, Any] | None:
    """The error OpenAI answers a reasoning model's request with, if any (its wording, type, param, code)."""
    if not reasoning.match(str(body.get("model", ""))):
        return None
    if "max_tokens" in body:
        return {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                           "'max_completion_tokens' instead.", "type": "invalid_request_error",
                "param": "max_tokens", "code": "unsupported_parameter"}
    if "temperature" in body and body["temperature"] != 1:
        return {"message": f"Unsupported value: 'temperature' does not support {json.dumps(body['temperature'])} "
                           "with this model. Only the default (1) value is supported.",
                "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}
    return None


def instance(schema: dict[str, Any]) -> Any:
    """A small value that satisfies ``schema``: the first variant, the first allowed string, the largest
    allowed number, a word for free text."""
    if "anyOf" in schema:
        return instance(schema["anyOf"][0])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        numbers = [v for v in schema["enum"] if isinstance(v, int | float)]
        return max(numbers) if numbers else schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {key: instance(value) for key, value in schema.get("properties", {}).items()}
    if kind == "array":
        return [instance(schema.get("items", {"type": "string"}))] * max(1, schema.get("minItems", 1))
    return {"number": 0.5, "integer": 1, "boolean": True}.get(str(kind), "Paris")


def from_schema(text: str) -> Callable[[dict[str, Any]], str]:
    """Replies to constrained requests with a value of their schema, to the others with ``text``."""

    def reply(body: dict[str, Any]) -> str:
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema")
        return json.dumps(instance(schema)) if schema else text

    return reply


class _QuietServer(ThreadingHTTPServer):
    # socketserver's listen backlog is 5: on a loaded machine, connections opened together past it had their SYN
    # dropped and retried a second later, so 8 calls "at once" reached the server as 7 and then 1.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout or budget test) closes its socket mid-reply. That is not a
        # server error, and its traceback would land in whichever test captures stderr next.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeOpenAI:
    def __init__(self, failures: list[Failure] | None = None, reply: Reply = "SUPPORTS",
                 fault: Callable[[int], Failure | None] | None = None, error_message: str | None = None,
                 *, one_at_a_time: bool = False, delay: float = 0.0, delays: list[float] | None = None,
                 reasoning: str = REASONING_MODEL.pattern, owner: str | None = None,
                 props: dict[str, Any] | None = None, port: int = 0) -> None:
        self.failures = list(failures or [])
        self.gets: list[str] = []
        self.one_at_a_time = one_at_a_time
        self.delay = delay
        self.delays = list(delays or [])
        self.held = 0  # requests the server holds now, served or waiting
        self.peak = 0
        self._slot = threading.Lock()
        self._closing = threading.Event()  # set on exit: a request still held back is let go at once
        self.reply = reply
        self.reasoning = re.compile(reasoning)  # model names answered as OpenAI's reasoning models
        self.fault = fault
        self.error_message = error_message  # what a failure says (default "fake <status>")
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        owned_by = owner
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with owner._lock:
                    owner.gets.append(self.path)
                if self.path.endswith("/models") and owned_by is not None:
                    self.send_json(200, {"object": "list", "data": [{"id": "m", "object": "model",
                                                                     "owned_by": owned_by}]})
                elif self.path == "/props" and props is not None:
                    self.send_json(200, props)
                else:
                    self.send_error(501 if owned_by is None and props is None else 404)

            def do_POST(self) -> None:
                self.released = False
                with owner._lock:
                    owner.held += 1
                    owner.peak = max(owner.peak, owner.held)
                    delay = owner.delays.pop(0) if owner.delays else owner.delay
                try:
                    if owner.one_at_a_time:
                        with owner._slot:
                            owner._closing.wait(delay)
                            self.serve()
                    else:
                        owner._closing.wait(delay)
                        self.serve()
                finally:
                    self.release()

            def release(self) -> None:
                """The request stops counting as held once its answer starts going out: after that the
                client may read it and send the next, possibly before this thread runs again (a loaded
                machine), which counted as two held at once."""
                if not getattr(self, "released", True):  # an error answered before do_POST counted nothing
                    self.released = True
                    with owner._lock:
                        owner.held -= 1

            def send_response(self, code: int, message: str | None = None) -> None:
                self.release()
                super().send_response(code, message)

            def serve(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with owner._lock:
                    owner.requests.append({"path": self.path, "body": body,
                                           "auth": self.headers.get("Authorization")})
                    number = len(owner.requests)
                    failure = owner.failures.pop(0) if owner.failures else None
                if failure is None and owner.fault is not None:
                    failure = owner.fault(number)
                refusal = openai_refusal(body, owner.reasoning) if failure is None else None
                if refusal is not None:
                    self.send_json(400, {"error": refusal})
                    return
                if failure is not None and failure[0] == GARBAGE:
                    garbage = b"<html>upstream hiccup</html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(garbage)))
                    self.end_headers()
                    self.wfile.write(garbage)
                    return
                if failure is not None:
                    status, retry_after = failure
                    payload = json.dumps({"error": {"message": owner.error_message or f"fake {status}",
                                                   "type": "x"}}).encode()
                    self.send_response(status)
                    if retry_after is not None:
                        self.send_header("Retry-After", retry_after)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                content = owner.reply(body) if callable(owner.reply) else owner.reply
                usage: dict[str, Any] = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
                finish = "stop"
                if owner.reasoning.match(str(body.get("model", ""))):
                    # An empty reply stands for reasoning that used the whole cap, as OpenAI reports it.
                    thought = REASONING_TOKENS if content else int(body.get("max_completion_tokens", 0))
                    finish = "stop" if content else "length"
                    usage.update(completion_tokens=(3 if content else 0) + thought, total_tokens=14 + thought,
                                 completion_tokens_details={"reasoning_tokens": thought})
                self.send_json(200, {
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model"),
                    "choices": [{"index": 0, "finish_reason": finish,
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": usage,
                })

            def send_json(self, status: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = _QuietServer(("127.0.0.1", port), Handler)  # port: a server back where one died
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()
