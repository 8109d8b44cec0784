"""A real HTTP server on loopback that speaks enough of the OpenAI chat API to test clients, with a
programmable list of failures (status code, Retry-After) served before the successes. A failure whose
status is ``GARBAGE`` answers 200 with a body that is not a chat completion; ``fault`` (request number ->
failure or None) injects failures by rule, e.g. a 429 on every 5th call (benchmarks/faults.py).

``one_at_a_time`` serves like a one-slot local server (llama-cpp-python's, Ollama's or llama.cpp's with
one slot): requests wait in line, each taking ``delay`` seconds (or ``delays``, one per request, then
``delay``); ``peak`` is the most requests the server held at once, waiting ones included."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GARBAGE = 0  # "status" of a 200 whose body is not a chat completion
Failure = tuple[int, str | None]


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout or budget test) closes its socket mid-reply. That is not a
        # server error, and its traceback would land in whichever test captures stderr next.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeOpenAI:
    def __init__(self, failures: list[Failure] | None = None, reply: str = "SUPPORTS",
                 fault: Callable[[int], Failure | None] | None = None, error_message: str | None = None,
                 *, one_at_a_time: bool = False, delay: float = 0.0, delays: list[float] | None = None) -> None:
        self.failures = list(failures or [])
        self.one_at_a_time = one_at_a_time
        self.delay = delay
        self.delays = list(delays or [])
        self.held = 0  # requests the server holds now, served or waiting
        self.peak = 0
        self._slot = threading.Lock()
        self.reply = reply
        self.fault = fault
        self.error_message = error_message  # what a failure says (default "fake <status>")
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                with owner._lock:
                    owner.held += 1
                    owner.peak = max(owner.peak, owner.held)
                    delay = owner.delays.pop(0) if owner.delays else owner.delay
                try:
                    if owner.one_at_a_time:
                        with owner._slot:
                            time.sleep(delay)
                            self.serve()
                    else:
                        time.sleep(delay)
                        self.serve()
                finally:
                    with owner._lock:
                        owner.held -= 1

            def serve(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with owner._lock:
                    owner.requests.append({"path": self.path, "body": body,
                                           "auth": self.headers.get("Authorization")})
                    number = len(owner.requests)
                    failure = owner.failures.pop(0) if owner.failures else None
                if failure is None and owner.fault is not None:
                    failure = owner.fault(number)
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
                payload = json.dumps({
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": owner.reply}}],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
