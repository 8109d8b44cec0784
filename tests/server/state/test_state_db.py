"""The state database itself: URLs, a real PostgreSQL server's failures (unreachable, a dropped
connection), and the heartbeats that free the claims and debate slots of a process on another machine."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from factdebate.run.batch import ClaimItem
from factdebate.server.config import load_service_config
from factdebate.server.routes.batches import _worker_alive
from factdebate.server.state.batch_store import BatchStore
from factdebate.server.state.db import (
    PROCESS_LEASE_SECONDS,
    PostgresStateDatabase,
    StateDatabaseDown,
    beat,
    open_state_db,
)
from factdebate.server.state.shared import SharedState
from factdebate.util.errors import ConfigError
from tests.readiness import run


def test_unsupported_state_database_urls_are_refused_by_name() -> None:
    with pytest.raises(ConfigError, match=r"mysql: is not supported.*postgresql://HOST:5432/DBNAME"):
        load_service_config(environ={}, state_db="mysql://db.example/factdebate")
    with pytest.raises(ConfigError, match=r"mysql: is not supported: give sqlite:///PATH"):
        open_state_db("mysql://db.example/factdebate")
    with pytest.raises(ConfigError, match="postgresql: is not supported"):  # one slash: not a path either
        open_state_db("postgresql:/db")


def test_the_environment_names_the_state_database(postgres_url: str) -> None:
    config = load_service_config(environ={"FACTDEBATE_STATE_DB": postgres_url})
    assert config.state_db == postgres_url and config.uses_state_server


def test_an_unreachable_server_is_retried_then_named_without_its_password() -> None:
    pytest.importorskip("psycopg")
    port = _closed_port()
    start = time.monotonic()
    with pytest.raises(StateDatabaseDown) as caught:
        PostgresStateDatabase(f"postgresql://factdebate:hunter2@127.0.0.1:{port}/state", tries=3, backoff=0.05)
    message = str(caught.value)
    assert "after 3 attempt(s)" in message and f"127.0.0.1:{port}/state" in message
    assert "hunter2" not in message
    assert time.monotonic() - start >= 0.15  # backed off between the tries (0.05 + 0.1)


def test_a_dropped_connection_is_replaced_and_the_work_done(postgres_url: str) -> None:
    import psycopg

    state = SharedState(postgres_url)
    assert state.acquire_slot(5) is not None
    db = state.db
    assert isinstance(db, PostgresStateDatabase)
    backend = db.read(lambda c: c.execute("SELECT pg_backend_pid()").fetchone()[0])
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
    assert state.acquire_slot(5) is not None  # on a new connection
    assert state.active() == 2
    assert db.read(lambda c: c.execute("SELECT pg_backend_pid()").fetchone()[0]) != backend


def test_schema_creation_by_many_processes_at_once_does_not_collide(postgres_url: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(6) as pool:  # one connection each, all creating the tables together
        stores = list(pool.map(lambda _: BatchStore(postgres_url), range(6)))
    assert all(store.unfinished() == [] for store in stores)


def test_results_page_the_same_on_both_engines(state_target: str) -> None:
    store = BatchStore(state_target)
    store.create("b", "owner", {}, {}, [ClaimItem(f"c{i}", f"Claim {i}.", {}) for i in range(5)])
    while (taken := store.take("b", "w")) is not None:
        store.record("b", taken[0], {"id": taken[1].id})
    assert [r["id"] for r in store.results("b")] == [f"c{i}" for i in range(5)]
    assert [r["id"] for r in store.results("b", offset=1, limit=2)] == ["c1", "c2"]
    assert [r["id"] for r in store.results("b", offset=3)] == ["c3", "c4"]
    assert store.finish("b") and not store.finish("b")


def test_claims_of_a_silent_process_on_another_machine_are_freed_after_the_lease(state_target: str) -> None:
    """Another machine's process cannot be asked whether it runs: its heartbeat decides."""
    store = BatchStore(state_target)
    store.create("b", "owner", {}, {}, [ClaimItem("c0", "Claim.", {}), ClaimItem("c1", "Claim.", {})])
    live, silent = "replica-a.example:4242", "replica-b.example:4343"
    assert store.take("b", f"{live}:aaaa") is not None and store.take("b", f"{silent}:bbbb") is not None
    now = time.time()
    store.beat(live)
    beat(store.db, silent, now=now - PROCESS_LEASE_SECONDS - 5)  # its last sign of life, past the lease
    assert store.requeue_orphans(_worker_alive) == 1
    assert [idx for idx, _ in store.pending("b")] == [1]  # the silent one's claim, and only it

    beat(store.db, silent, now=now)  # a process that beats again keeps what it takes
    assert store.take("b", f"{silent}:bbbb") is not None
    assert store.requeue_orphans(_worker_alive) == 0 and store.pending("b") == []


def test_debate_slots_of_a_silent_process_on_another_machine_are_freed(state_target: str) -> None:
    state = SharedState(state_target)
    now = time.time()
    state.db.write("slots", lambda c: c.execute(
        "INSERT INTO run_slots (id, host, pid, started) VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
        ("s1", "replica-a.example", 1, now, "s2", "replica-b.example", 2, now)))
    beat(state.db, "replica-a.example:1", now=now)
    beat(state.db, "replica-b.example:2", now=now - PROCESS_LEASE_SECONDS - 5)
    assert state.acquire_slot(2) is not None  # replica-b's slot is freed, so one of the 2 is free
    assert state.active() == 2  # replica-a's, which still beats, and this process's new one
    assert state.acquire_slot(2) is None


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_doctor_checks_the_state_database_server(postgres_url: str) -> None:
    exe = str(Path(sys.executable).with_name("factdebate"))

    def doctor(url: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "FACTDEBATE_STATE_DB": url, "COLUMNS": "300"}
        return run([exe, "doctor"], what="factdebate doctor", env=env)  # (no wall-clock limit)

    reachable = doctor(postgres_url)
    assert reachable.returncode == 0, reachable.stdout + reachable.stderr
    assert "service state database: reachable: postgresql://" in reachable.stdout
    unreachable = doctor(f"postgresql://factdebate:hunter2@127.0.0.1:{_closed_port()}/state")
    assert unreachable.returncode == 1
    assert "service state database: could not reach the state database" in unreachable.stdout
    assert "hunter2" not in unreachable.stdout
