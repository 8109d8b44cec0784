"""``GET /metrics`` as an operator reads it: a real Prometheus server (Debian's ``prometheus``, started here on
loopback) scrapes the guard with the metrics key while an OpenAI client talks to it, and its HTTP API is asked
what it stored. The labels hold the routes, statuses, verdicts and roles, never a key or a claim's words."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.server.security import key_id
from tests.readiness import run, wait_until_ready
from tests.server.conftest import AUTH, KEY, free_port
from tests.server.guard.test_guard_chat import PARIS, ROME, Guard, ask, guard  # noqa: F401 - the fixture
from tests.server.guard_support import Upstream

METRICS_KEY = "metrics-key-0123456789abcdef"
SERIES_CPU_S = 30.0  # Prometheus's own CPU-seconds to see a series as expected before it is called wrong
RUNNING: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}  # each started Prometheus's process and log, by URL
SCRAPE = {"Authorization": f"Bearer {METRICS_KEY}"}


@pytest.fixture
def prometheus(tmp_path: Path) -> Iterator[Any]:
    """Starts Prometheus for a target (``start(port)``), scraping it every second with the metrics key."""
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("Debian's prometheus is not installed (scripts/ci-system-deps.sh installs it)")
    started: list[subprocess.Popen[bytes]] = []

    def start(target_port: int) -> str:
        config = tmp_path / "prometheus.yml"
        config.write_text(f"""global:
  scrape_interval: 1s
scrape_configs:
  - job_name: factdebate
    scrape_interval: 1s
    authorization:
      credentials: {METRICS_KEY}
    static_configs:
      - targets: ["127.0.0.1:{target_port}"]
""")
        port, log = free_port(), tmp_path / "prometheus.log"
        process = subprocess.Popen([binary, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                                    f"--web.listen-address=127.0.0.1:{port}"],
                                   stdout=subprocess.DEVNULL, stderr=log.open("wb"))
        started.append(process)
        url = f"http://127.0.0.1:{port}"
        RUNNING[url] = (process, log)

        def ready() -> bool:
            try:
                return httpx.get(f"{url}/-/ready", timeout=5).status_code == 200
            except httpx.TransportError:
                return False

        # by its state and its own CPU: Prometheus starts slowly on a loaded machine
        wait_until_ready(ready, process, "Prometheus", log=log)
        return url

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=20)
    RUNNING.clear()


def query(prometheus_url: str, expression: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{prometheus_url}/api/v1/query", params={"query": expression}, timeout=10).json()
    assert answer["status"] == "success", answer
    result: list[dict[str, Any]] = answer["data"]["result"]
    return result


def value(series: dict[str, Any]) -> float:
    return float(series["value"][1])


def wait_for_series(prometheus_url: str, expression: str, check: Any) -> list[dict[str, Any]]:
    """The query's series once ``check`` holds for them (each scrape a second apart), waited for by
    Prometheus's state and its own CPU, not the clock: it scrapes, stores and answers a few series with a few
    CPU-seconds, so SERIES_CPU_S of its own without them is a wrong count, however slow the machine."""
    process, log = RUNNING[prometheus_url]
    found: list[dict[str, Any]] = []

    def holds() -> bool:
        nonlocal found
        try:
            found = query(prometheus_url, expression)
        except (httpx.HTTPError, ValueError):  # not ready ("Service Unavailable")
            found = []
        return bool(found) and bool(check(found))

    wait_until_ready(holds, process, f"Prometheus's {expression!r}", cpu_budget_s=SERIES_CPU_S, every_s=0.5,
                     log=lambda: f"last answer: {found}\n{log.read_text(errors='replace')[-2000:]}")
    return found


def test_a_prometheus_server_scrapes_the_guards_metrics(guard: Guard, prometheus: Any) -> None:  # noqa: F811
    server, _ = guard(Upstream(token_delay=0.01), metrics_key=METRICS_KEY)
    plain = ask(server).model_extra["factdebate"]
    chunks = list(ask(server, stream=True))
    streamed = chunks[-1].model_extra["factdebate"]
    assert httpx.get(f"{server.url}/v1/methods", headers={"Authorization": "Bearer wrong"}).status_code == 401
    seen = {(plain["label"], plain["action_taken"]), (streamed["label"], streamed["action_taken"])}

    url = prometheus(int(server.url.rsplit(":", 1)[1]))
    checks = wait_for_series(url, "factdebate_guard_checks_total",
                             lambda found: sum(value(s) for s in found) == 2)
    # What the client read is what Prometheus counted: each reply's label and action, at the tier asked.
    assert {(s["metric"]["label"], s["metric"]["action"]) for s in checks} == seen
    assert {s["metric"]["tier"] for s in checks} == {"fast"}
    chat = query(url, 'factdebate_http_requests_total{route="/v1/chat/completions"}')
    assert [(s["metric"]["method"], s["metric"]["status"], value(s)) for s in chat] == [("POST", "200", 2.0)]
    refused = query(url, 'factdebate_http_requests_total{route="/v1/methods"}')
    assert [(s["metric"]["status"], value(s)) for s in refused] == [("401", 1.0)]
    latency = query(url, 'factdebate_http_request_duration_seconds_count{route="/v1/chat/completions"}')
    assert value(latency[0]) == 2
    # The upstream asked twice; the checker's calls (extraction, the fast tier) by the model's configured name.
    calls = {(s["metric"]["endpoint"], s["metric"]["role"]): value(s)
             for s in query(url, "factdebate_model_call_duration_seconds_count")}
    assert calls.pop(("upstream", "upstream")) == 2
    assert calls and all(count >= 1 for count in calls.values()) and all("127.0.0.1" not in e for e, _ in calls)
    assert value(query(url, "factdebate_guard_time_to_first_token_added_seconds_count")[0]) == 1
    # both checks over (a scrape between a check's keeping and its slot's release may still say 1: wait)
    wait_for_series(url, "factdebate_active_runs", lambda found: value(found[0]) == 0)
    # No key, key id or claim's words in any label of any series.
    everything = query(url, '{__name__=~"factdebate_.*"}')
    labels = " ".join(v for series in everything for v in series["metric"].values())
    for secret in (KEY, key_id(KEY), METRICS_KEY, "Paris", "Eiffel", PARIS, ROME):
        assert secret not in labels


def test_metrics_need_the_metrics_key_and_are_off_without_one(guard: Guard) -> None:  # noqa: F811
    server, _ = guard(metrics_key=METRICS_KEY)
    assert httpx.get(f"{server.url}/metrics", headers=SCRAPE).status_code == 200
    for headers in ({}, AUTH, {"Authorization": "Bearer metrics-key-wrong"}):  # a caller's API key reads nothing
        answer = httpx.get(f"{server.url}/metrics", headers=headers)
        assert answer.status_code == 401 and "metrics key" in answer.json()["detail"]
        assert "factdebate_" not in answer.text
    off, _ = guard()
    answer = httpx.get(f"{off.url}/metrics", headers=SCRAPE)
    assert answer.status_code == 404 and "metrics_key" in answer.json()["detail"]


def test_a_metrics_port_of_its_own_serves_them_without_a_key(guard: Guard) -> None:  # noqa: F811
    port = free_port()
    server, _ = guard(metrics_port=port)
    ask(server)
    scraped = httpx.get(f"http://127.0.0.1:{port}/metrics").text
    assert 'factdebate_http_requests_total{method="POST",route="/v1/chat/completions",status="200"} 1.0' in scraped
    assert "factdebate_guard_checks_total{" in scraped and KEY not in scraped


def test_serve_refuses_a_metrics_port_it_cannot_use_in_one_line(tmp_path: Path) -> None:
    import socket

    from tests.server.test_commands import EXE, _env

    port = free_port()
    same = run([EXE, "serve", "--no-auth", "--port", str(port), "--metrics-port", str(port)], env=_env(tmp_path),
               what="factdebate serve with its own port for metrics")
    assert same.returncode == 2 and same.stderr.strip() == (f"error: --metrics-port {port} is the service's own "
                                                           "port: choose another")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        refused = run([EXE, "serve", "--no-auth", "--port", str(free_port()), "--metrics-port", str(busy)],
                      env=_env(tmp_path), what="factdebate serve with a taken metrics port")
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "cannot serve the metrics on" in refused.stderr and "--metrics-port" in refused.stderr
