"""Metrics and spans a caller cannot grow: the real app on uvicorn, sent a thousand made-up HTTP methods and a
thousand made-up model names (``allowed_llms: ["*"]``, a scripted model answering whatever the name), and the
series of its ``/metrics`` counted before and after; the spans an OTLP receiver decodes named from the fixed
set. No caller's text reaches the scrape or a span."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.llm import make_backend
from factdebate.server.app import create_app
from factdebate.server.ops.labels import CALLER_CHOSEN, METHODS, OperatorNames, method_label
from factdebate.server.options import SettingsResolver
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build
from tests.server.ops.test_tracing import Receiver, receiver  # noqa: F401 - the fixture

METRICS_KEY = "metrics-key-0123456789abcdef"
SCRAPE = {"Authorization": f"Bearer {METRICS_KEY}"}
MADE_UP = 1000
# Where made-up methods go: a route (405), a route's template with an id in it, paths no route has (404).
PATHS = ("/v1/verify", "/v1/checks/{i}", "/no/such/path/{i}", "/static/missing-{i}.js")


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LiveServer]:
    """The service with any model a caller names allowed: each is answered by one scripted model."""
    backend = make_backend("scripted:agree")
    app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                     build=lambda settings: offline_build(settings, backend), rate_limit_per_minute=0,
                     allowed_llms=["*"], metrics_key=METRICS_KEY)
    with LiveServer(app) as server:
        yield server


def made_up_method(i: int) -> str:
    """A token HTTP accepts as a method, none of the usual seven (httpx sends it in capitals)."""
    return f"MadeUp{i:04d}"


def send_made_up(client: httpx.Client, start: int, count: int) -> None:
    for i in range(start, start + count):
        answer = client.request(made_up_method(i), PATHS[i % len(PATHS)].format(i=i))
        assert answer.status_code in (401, 404, 405), answer.text
        verified = client.post("/v1/verify", headers=AUTH, json={
            "claim": "Water boils at 100 C.", "method": "single", "llm": f"openai:caller-text-{i}"})
        assert verified.status_code == 200, verified.text


def series(scrape: str) -> set[str]:
    """Each series of a scrape: its name and labels (the text before the value)."""
    return {line.rpartition(" ")[0] for line in scrape.splitlines() if line and not line.startswith("#")}


def scraped(client: httpx.Client) -> str:
    answer = client.get("/metrics", headers=SCRAPE)
    assert answer.status_code == 200
    return answer.text


def test_a_thousand_made_up_methods_and_models_add_a_handful_of_series(service: LiveServer) -> None:
    with httpx.Client(base_url=service.url, timeout=60) as client:
        # What any service has: the operator's model asked, a scrape answered (twice: the scrape counts itself).
        assert client.post("/v1/verify", headers=AUTH, json={"claim": "Water boils at 100 C."}).status_code == 200
        scraped(client)
        baseline = series(scraped(client))
        # The first made-up methods and models name the fixed labels that hold them all ...
        send_made_up(client, 0, 10)
        first = series(scraped(client))
        # ... and a thousand more add nothing: no label takes their text.
        send_made_up(client, 10, MADE_UP)
        assert client.request("X" * 3000, "/v1/verify").status_code == 405
        text = scraped(client)
    after = series(text)
    assert len(after - first) <= 3, sorted(after - first)
    # Those the first ones named: a method "other" on each kind of path, and the caller's model, each a counter
    # or a histogram (a series a bucket), whatever the number of requests.
    named = after - baseline
    assert len(named) <= 100, sorted(named)
    assert {label for line in named for label in re.findall(r'method="([^"]*)"', line)} <= {"other"}
    assert {label for line in named for label in re.findall(r'endpoint="([^"]*)"', line)} <= {CALLER_CHOSEN}
    routes = {label for line in after for label in re.findall(r'route="([^"]*)"', line)}
    assert routes == {"/v1/verify", "/v1/checks/{check_id}", "/metrics", "unmatched"}
    # No caller's text in the scrape, and no long line (a 3,000-character method was one).
    lowered = text.lower()
    assert "madeup" not in lowered and "caller-text" not in lowered and "xxxxxxxx" not in lowered
    assert max(len(line) for line in text.splitlines()) < 300
    # Every made-up request counted, under the bounded labels.
    others = sum(float(line.rpartition(" ")[2]) for line in text.splitlines()
                 if line.startswith("factdebate_http_requests_total{") and 'method="other"' in line)
    assert others == 10 + MADE_UP + 1
    [chosen] = [line for line in text.splitlines() if line.startswith(
        'factdebate_model_call_duration_seconds_count{endpoint="caller_chosen"')]
    assert float(chosen.rpartition(" ")[2]) == 10 + MADE_UP


def test_spans_are_named_from_the_fixed_methods_and_never_the_callers_text(
        receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "20000")  # none dropped while the receiver catches up
    # A batch whose export times out is dropped, not resent: on a loaded machine the receiver can take longer
    # than the exporter's 10 s to answer one.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "60")
    backend = make_backend("scripted:agree")
    app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                     build=lambda settings: offline_build(settings, backend), rate_limit_per_minute=0,
                     allowed_llms=["*"])
    models = 20
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        for i in range(MADE_UP):
            client.request(made_up_method(i), PATHS[i % len(PATHS)].format(i=i))
        client.request("X" * 3000, "/v1/verify")
        client.get("/v1/health")
        for i in range(models):
            client.post("/v1/verify", headers=AUTH, json={
                "claim": "Water boils at 100 C.", "method": "single", "llm": f"openai:caller-text-{i}"})
        expected = MADE_UP + 1 + models  # the health probe is not traced (server/ops/probes.py)

        def requests() -> list[dict[str, Any]]:
            return [s for s in receiver.spans if s["kind"] == 2]  # SERVER: one a request

        deadline = time.monotonic() + 60
        while len(requests()) < expected:
            assert time.monotonic() < deadline, f"{len(requests())} of {expected} request spans came"
            time.sleep(0.1)
    spans = list(receiver.spans)
    for span in requests():
        method = span["attributes"]["http.request.method"]
        assert method in METHODS | {"_OTHER"}
        assert span["name"].split(" ")[0] == (method if method in METHODS else "HTTP"), span["name"]
    assert sum(s["attributes"]["http.request.method"] == "_OTHER" for s in requests()) == MADE_UP + 1
    calls = [s for s in spans if s["name"].startswith("chat ")]
    assert len(calls) == models and {s["name"] for s in calls} == {f"chat {CALLER_CHOSEN}"}
    said = " ".join(f"{s['name']} {s['attributes']}" for s in spans).lower()
    assert "madeup" not in said and "caller-text" not in said and "xxxxxxxx" not in said


def test_only_the_operators_models_roles_and_tools_are_named(tmp_path: Path) -> None:
    config = tmp_path / "settings.yaml"
    config.write_text("mcp_servers:\n  wiki: {url: 'http://127.0.0.1:9/mcp'}\n"
                      "  docs: {url: 'http://127.0.0.1:9/mcp', tools: [lookup, fetch]}\n")
    resolver = SettingsResolver({"llm": "scripted:agree", "judge_llm": "openai:judge-model@http://10.1.2.3:8000/v1",
                                 "dpd_judges": ["facts", "logic"], "dpd_judge_llms": ["openai:a", "openai:b"]},
                                config, allowed_llms=["openai:extra", "*"],
                                allowed_mcp_tools=["mcp:wiki/*", "mcp:docs/lookup"])
    names = OperatorNames.of(resolver)
    assert [names.model(m) for m in ("scripted:agree", "openai:extra", "openai:a", "upstream")] == [
        "scripted:agree", "openai:extra", "openai:a", "upstream"]
    shown = names.model("openai:judge-model@http://10.1.2.3:8000/v1")
    assert shown.startswith("openai:judge-model") and "10.1.2.3" not in shown
    assert names.model("openai:anything-a-caller-wrote") == CALLER_CHOSEN
    assert names.model("scripted:agree@http://caller.example") == CALLER_CHOSEN
    # The methods' roles and the operator's referees by name; a referee a caller named is not.
    assert [names.role(r) for r in ("debater", "extractor", "gatherer", "judge-facts", "upstream")] == [
        "debater", "extractor", "gatherer", "judge-facts", "upstream"]
    assert names.role("judge-someones-text") == CALLER_CHOSEN
    # The code's tools and the MCP tools the operator named; a tool a caller named under wiki/* is not.
    assert [names.tool(t) for t in ("search", "rag", "given+search", "docs/lookup", "retrieval/search")] == [
        "search", "rag", "given+search", "docs/lookup", "retrieval/search"]
    assert names.tool("wiki/made_up") == f"wiki/{CALLER_CHOSEN}"
    assert names.tool("given+wiki/made_up") == f"given+wiki/{CALLER_CHOSEN}"
    # Nothing known: only the upstream and the code's roles by name.
    assert OperatorNames().model("scripted:agree") == CALLER_CHOSEN and OperatorNames().role("judge") == "judge"


def test_the_method_label_is_one_of_the_seven_or_other() -> None:
    assert [method_label(m) for m in sorted(METHODS)] == sorted(METHODS)
    assert {method_label(m) for m in ("get", "PROPFIND", "BREW", "X" * 3000, "")} == {"other"}
