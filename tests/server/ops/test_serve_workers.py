"""``factdebate serve --workers 2`` for real: two uvicorn processes behind one port share the cap on debates
in progress and the batch store (the rate limit's sharing is tested process by process in
test_shared_state.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.paths import ROOT
from tests.readiness import wait_until_ready
from tests.server.conftest import free_port

ROOT = ROOT
BATCH_CPU_S = 60.0  # CPU-seconds (servers and poll) a batch of six scripted claims may take


def test_two_worker_processes_share_the_cap_and_the_batches(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "service.yaml"
    config.write_text("max_active_runs: 1\nrate_limit_per_minute: 0\n", encoding="utf-8")
    server = _serve(port, config, tmp_path / "data", "--workers", "2", "--db", str(tmp_path / "service.sqlite"))
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, server)
        assert sorted(_verify_at_once([url], 6)) == [200] + [503] * 5  # one debate at a time across both processes
        status = _run_batch(url, url, 6, [server])
        assert sorted(r["id"] for r in status["results"]) == [f"c{i}" for i in range(6)]
        assert (status["done"], status["errors"]) == (6, 0)
    finally:
        _stop(server)


def test_replicas_share_the_cap_and_the_batches_through_postgresql(tmp_path: Path, postgres_url: str) -> None:
    """Two `factdebate serve` processes on their own ports, as replicas on two machines behind a load
    balancer would run, with one PostgreSQL database between them."""
    psycopg = pytest.importorskip("psycopg")
    config = tmp_path / "service.yaml"
    # One claim at a time per replica, and a quick look for others' batches: both replicas take part.
    config.write_text("max_active_runs: 1\nrate_limit_per_minute: 0\nbatch_concurrency: 1\n"
                      "batch_join_seconds: 0.3\n", encoding="utf-8")
    ports = [free_port(), free_port()]
    servers = [_serve(port, config, tmp_path / f"replica{i}", "--state-db", postgres_url)
               for i, port in enumerate(ports)]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url, server in zip(urls, servers, strict=True):
            _wait_until_up(url, server)

        assert sorted(_verify_at_once(urls, 6)) == [200] + [503] * 5  # one debate at a time across both replicas
        status = _run_batch(urls[0], urls[1], 6, servers)  # sent to one replica, followed on the other
        assert sorted(r["id"] for r in status["results"]) == [f"c{i}" for i in range(6)]
        assert not (tmp_path / "replica0" / "service.sqlite").exists()  # nothing went to a local file
        with psycopg.connect(postgres_url) as db:  # which process ran each claim
            runners = {row[0].split(":")[1] for row in db.execute("SELECT worker FROM batch_items").fetchall()}
        assert runners == {str(server.pid) for server in servers}  # the replica that was not asked joined
    finally:
        for server in servers:
            _stop(server)


def _verify_at_once(urls: list[str], count: int) -> list[int]:
    """``count`` debates started together, spread over ``urls``; their status codes."""
    def verify(i: int) -> int:
        return httpx.post(f"{urls[i % len(urls)]}/v1/verify", json={"claim": f"Claim {i} is true."},
                          timeout=30).status_code

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(verify, range(count)))


def _run_batch(submit_url: str, poll_url: str, count: int, servers: list[subprocess.Popen[str]]) -> dict[str, Any]:
    """A batch of ``count`` claims sent to one server and followed on another until done; its status. Waited
    for by state, not a clock: while the servers live and this process's tree (the servers, this poll) moves,
    up to BATCH_CPU_S CPU-seconds (a batch of scripted claims takes a few)."""
    lines = "\n".join(json.dumps({"id": f"c{i}", "claim": f"Claim {i} is true."}) for i in range(count))
    created = httpx.post(f"{submit_url}/v1/batches", content=lines, timeout=10).json()
    status: dict[str, Any] = {}

    def done() -> bool:
        nonlocal status
        for server in servers:
            if server.poll() is not None:
                raise AssertionError(f"a server exited: {server.stderr.read() if server.stderr else ''}")
        status = httpx.get(f"{poll_url}/v1/batches/{created['id']}", timeout=10).json()
        return status["status"] == "done"

    wait_until_ready(done, os.getpid(), "the batch", cpu_budget_s=BATCH_CPU_S, every_s=0.3,
                     log=lambda: json.dumps(status)[-2000:])
    return status


def _serve(port: int, config: Path, data: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "factdebate.cli.main", "serve", "--no-auth", "--port", str(port), "--service-config",
         str(config), "--log-level", "warning", "--llm", "scripted:agree@1.0", "--agents", "none,none",
         "--no-scoring", "--no-cache", *extra],
        cwd=ROOT, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        env={**os.environ, "FACTDEBATE_DATA_DIR": str(data)})


def _wait_until_up(url: str, server: subprocess.Popen[str]) -> None:
    def healthy() -> bool:
        try:
            return httpx.get(f"{url}/v1/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    # by its state and its own CPU, not a clock (its output read once it has ended)
    wait_until_ready(healthy, server, "factdebate serve",
                     log=lambda: server.stderr.read() if server.stderr and server.poll() is not None else "")


def _stop(server: subprocess.Popen[str]) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
