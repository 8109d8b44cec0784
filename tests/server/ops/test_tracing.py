"""OpenTelemetry traces as a collector receives them: the guard started with the standard OTEL_* variables
pointing at a loopback OTLP/HTTP receiver, which decodes the real protobuf (ExportTraceServiceRequest). A
chat request is one trace: the request's server span, the check, each claim, each model call (GenAI
conventions) and search under it; the kept check names the trace; no claim's words in any attribute. Health
probes and metric scrapes make no span; a model call whose server reported no token counts has none in its
span (never a 0)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from factdebate.llm.openai_compat import OpenAIBackend
from tests.llm.test_openai_stream import StreamingServer
from tests.server.conftest import AUTH
from tests.server.guard.test_guard_chat import PARIS, ROME, Guard, ask, guard  # noqa: F401 - the fixture


class Receiver:
    """An OTLP/HTTP trace receiver on loopback: every span it was sent, decoded, with its resource's attributes."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.paths: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server calls it by this name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.paths.append(f"{self.path} {self.headers['Content-Type']}")
                request = ExportTraceServiceRequest.FromString(body)
                for resource_spans in request.resource_spans:
                    resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                    for scope_spans in resource_spans.scope_spans:
                        for span in scope_spans.spans:
                            receiver.spans.append({
                                "name": span.name, "kind": span.kind, "trace_id": span.trace_id.hex(),
                                "span_id": span.span_id.hex(), "parent": span.parent_span_id.hex(),
                                "resource": resource,
                                "attributes": {a.key: _value(a.value) for a in span.attributes}})
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _value(value: Any) -> Any:
    return getattr(value, value.WhichOneof("value")) if value.WhichOneof("value") else None


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    found = Receiver()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", found.url)
    monkeypatch.setenv("OTEL_SERVICE_NAME", "guard-under-test")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")  # milliseconds between the batches sent
    yield found
    found.server.shutdown()


def test_a_chat_request_is_one_trace_an_otlp_receiver_decodes(receiver: Receiver, guard: Guard) -> None:  # noqa: F811
    # the receiver first: it outlives the guard, whose last spans are sent as it stops
    server, _ = guard()
    raw = ask(server)
    check_id = raw.model_extra["factdebate"]["check_id"]
    kept = httpx.get(f"{server.url}/v1/checks/{check_id}", headers=AUTH).json()["verdict"]
    trace_id = kept["trace_id"]
    assert len(trace_id) == 32

    deadline = time.monotonic() + 30
    while not any(s["name"] == "POST /v1/chat/completions" and s["trace_id"] == trace_id for s in receiver.spans):
        assert time.monotonic() < deadline, f"no request span came: {[s['name'] for s in receiver.spans]}"
        time.sleep(0.1)
    spans = [s for s in receiver.spans if s["trace_id"] == trace_id]
    assert all(path == "/v1/traces application/x-protobuf" for path in receiver.paths)
    by_id = {s["span_id"]: s for s in spans}
    [request] = [s for s in spans if s["name"] == "POST /v1/chat/completions"]
    assert request["kind"] == 2 and request["parent"] == ""  # SERVER, the trace's root
    assert request["attributes"]["http.route"] == "/v1/chat/completions"
    assert request["attributes"]["http.response.status_code"] == 200
    assert request["resource"]["service.name"] == "guard-under-test"

    def under(span: dict[str, Any], name: str) -> bool:
        while span["parent"]:
            span = by_id[span["parent"]]
            if span["name"] == name:
                return True
        return False

    [check] = [s for s in spans if s["name"] == "guard.check"]
    assert under(check, "POST /v1/chat/completions") and check["attributes"]["factdebate.tier"] == "fast"
    claims = [s for s in spans if s["name"] == "claim"]
    assert sorted(s["attributes"]["factdebate.claim.index"] for s in claims) == [0, 1]
    assert all(under(s, "guard.check") for s in claims)
    [upstream] = [s for s in spans if s["name"] == "chat upstream"]
    assert upstream["kind"] == 3 and upstream["attributes"]["gen_ai.operation.name"] == "chat"  # CLIENT
    model_calls = [s for s in spans if s["name"].startswith("chat ") and s is not upstream]
    assert model_calls and all(s["attributes"]["gen_ai.request.model"] and s["attributes"]["factdebate.role"]
                               and s["attributes"]["gen_ai.usage.input_tokens"] > 0 for s in model_calls)
    assert any(under(s, "claim") for s in model_calls)  # a claim's own call: the refuted one's correction checked
    # the fast tier's window call: the claims and their verdicts, asked before any claim's span opens
    assert any(under(s, "guard.check") and not under(s, "claim") for s in model_calls)
    searches = [s for s in spans if s["name"].startswith("search ")]  # the window's passages, a sentence each
    assert searches and all(under(s, "guard.check") and not under(s, "claim") for s in searches)
    # What a span says never holds a claim's words.
    said = " ".join(f"{s['name']} {s['attributes']}" for s in spans)
    for words in (PARIS, ROME, "Eiffel", "capital"):
        assert words not in said


def test_no_otel_variables_no_traces_and_no_trace_id(guard: Guard) -> None:  # noqa: F811
    server, _ = guard()
    check_id = ask(server).model_extra["factdebate"]["check_id"]
    kept = httpx.get(f"{server.url}/v1/checks/{check_id}", headers=AUTH).json()["verdict"]
    assert "trace_id" not in kept


METRICS_KEY = "metrics-key-0123456789abcdef"


def _wait_for_span(receiver: Receiver, name: str) -> None:
    deadline = time.monotonic() + 30
    while not any(s["name"] == name for s in receiver.spans):
        assert time.monotonic() < deadline, f"no {name} span came: {[s['name'] for s in receiver.spans]}"
        time.sleep(0.1)


def test_health_probes_and_scrapes_make_no_span_while_other_requests_do(receiver: Receiver,
                                                                          guard: Guard) -> None:  # noqa: F811
    server, _ = guard(metrics_key=METRICS_KEY)
    scrape = {"Authorization": f"Bearer {METRICS_KEY}"}
    for _ in range(20):  # a load balancer's probes and Prometheus' scrapes between two requests
        assert httpx.get(f"{server.url}/v1/health").status_code == 200
        assert httpx.get(f"{server.url}/metrics", headers=scrape).status_code == 200
    assert httpx.get(f"{server.url}/v1/methods", headers=AUTH).status_code == 200
    ask(server)
    # spans are sent in the order they ended: once the chat request's has come, the probes' would have
    _wait_for_span(receiver, "POST /v1/chat/completions")
    routes = [s["attributes"].get("http.route") for s in receiver.spans if s["kind"] == 2]  # SERVER
    assert sorted(routes) == ["/v1/chat/completions", "/v1/methods"], routes
    assert not any("health" in s["name"] or "metrics" in s["name"] for s in receiver.spans)
    # still counted: an alert on readiness reads the probes' statuses
    counted = httpx.get(f"{server.url}/metrics", headers=scrape).text
    assert 'factdebate_http_requests_total{method="GET",route="/v1/health",status="200"} 20.0' in counted


@pytest.mark.parametrize("usage", [None, {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}],
                         ids=["no usage", "usage"])
def test_a_token_count_the_server_did_not_report_is_absent_from_the_span(
        receiver: Receiver, guard: Guard, usage: dict[str, int] | None) -> None:  # noqa: F811
    """A checker that streams its answers without usage (llama-cpp-python's server) tells no token count: its
    calls' spans carry none, where a 0 would read as a call that read no prompt."""
    checker = StreamingServer(3, every=0, usage=usage)
    try:
        server, _ = guard(backend=OpenAIBackend("checker", base_url=checker.url, api_key="sk-checker",
                                                constrain="none", stream=True))
        ask(server)
        _wait_for_span(receiver, "POST /v1/chat/completions")
    finally:
        checker.close()
    assert checker.bodies and all(body.get("stream") for body in checker.bodies)
    calls = [s for s in receiver.spans if s["name"].startswith("chat ") and s["name"] != "chat upstream"]
    assert calls and all(s["attributes"]["gen_ai.operation.name"] == "chat" for s in calls)
    if usage is None:
        assert not any(name.startswith("gen_ai.usage.") for s in calls for name in s["attributes"])
    else:
        assert all((s["attributes"]["gen_ai.usage.input_tokens"], s["attributes"]["gen_ai.usage.output_tokens"])
                   == (12, 3) for s in calls)
