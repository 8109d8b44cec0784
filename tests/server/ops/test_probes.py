"""Health probes and metric scrapes out of the access log: ``factdebate serve`` as an operator runs it (uvicorn's
own logging configuration, its access log on stdout) probed as a load balancer and Prometheus probe it, its log
read when it has stopped. Probes answered well leave no line; other requests and a refused scrape keep theirs."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from factdebate.server.ops.probes import QuietProbes
from tests.paths import ROOT
from tests.readiness import wait_until_ready
from tests.server.conftest import free_port

METRICS_KEY = "metrics-key-0123456789abcdef"


def test_serves_access_log_has_no_probe_lines_but_every_other_request(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "access.log"
    with log.open("w", encoding="utf-8") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "factdebate.cli.main", "serve", "--no-auth", "--port", str(port), "--log-level",
             "info", "--llm", "scripted:agree@1.0", "--agents", "none,none", "--no-scoring", "--no-cache"],
            cwd=ROOT, text=True, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path / "data"), "FACTDEBATE_METRICS_KEY": METRICS_KEY})
    try:
        def healthy() -> bool:
            try:
                return httpx.get(f"{url}/v1/health", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until_ready(healthy, server, "factdebate serve", log=lambda: log.read_text(encoding="utf-8"))
        scrape = {"Authorization": f"Bearer {METRICS_KEY}"}
        for _ in range(10):
            assert httpx.get(f"{url}/v1/health").status_code == 200
            assert httpx.get(f"{url}/metrics", headers=scrape).status_code == 200
        assert httpx.get(f"{url}/v1/health?probe=k8s").status_code == 200
        assert httpx.get(f"{url}/v1/methods").status_code == 200
        assert httpx.get(f"{url}/v1/healthz").status_code == 404  # not the probe's path: a caller's guess
        assert httpx.get(f"{url}/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
        counted = httpx.get(f"{url}/metrics", headers=scrape).text
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    access = [line for line in log.read_text(encoding="utf-8").splitlines() if '" ' in line and "HTTP/1.1" in line]
    assert any('"GET /v1/methods HTTP/1.1" 200' in line for line in access), access
    assert any('"GET /v1/healthz HTTP/1.1" 404' in line for line in access), access
    assert any('"GET /metrics HTTP/1.1" 401' in line for line in access), access  # someone guessing the key
    assert not any("/v1/health " in line or "/v1/health?" in line for line in access), access
    assert not any('/metrics HTTP/1.1" 200' in line for line in access), access
    # still counted, its status a readiness alert reads (11 here, and the ones that waited for it to start)
    probes = [line for line in counted.splitlines()
              if line.startswith('factdebate_http_requests_total{method="GET",route="/v1/health",status="200"}')]
    assert probes and float(probes[0].split()[-1]) >= 11


def _line(method: str, path: str, status: int) -> logging.LogRecord:
    """A record as uvicorn's access logger makes one."""
    return logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                             ("127.0.0.1:5000", method, path, "1.1", status), None)


def test_a_probe_answered_with_an_error_keeps_its_line() -> None:
    quiet = QuietProbes()
    assert not quiet.filter(_line("GET", "/v1/health", 200))
    assert quiet.filter(_line("GET", "/v1/health", 503))  # warming up, or the state database down: why it left
    assert quiet.filter(_line("POST", "/v1/health", 405))
    assert quiet.filter(_line("GET", "/v1/health/", 307))
    assert quiet.filter(_line("GET", "/v1/checks/abc", 200))
    assert quiet.filter(logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, "other %s", ("x",), None))
