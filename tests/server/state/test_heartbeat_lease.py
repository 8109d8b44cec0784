"""``heartbeat_lease_s``: a replica on another machine that stopped beating gives its debate slots
back after the service's lease (20 s by default, was 90 s), so a caller is not refused for a dead replica's
slots; within the lease they still count."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

from factdebate.server.state.db import beat
from factdebate.server.state.shared import SharedState
from tests.server.conftest import AUTH, AppFactory


def _replica_holds_a_slot(db_file: Path, silent_s: float) -> None:
    """A slot held by a process of another machine whose last heartbeat was ``silent_s`` ago."""
    state = SharedState(f"sqlite:///{db_file}")
    now = time.time()
    state.db.write("slots", lambda c: c.execute(
        "INSERT INTO run_slots (id, host, pid, started) VALUES (?, ?, ?, ?)", ("s1", "replica-b.example", 2, now)))
    beat(state.db, "replica-b.example:2", now=now - silent_s)


def _verify(make_app: AppFactory, db_file: Path, **fields: object) -> int:
    app = make_app(state_db=f"sqlite:///{db_file}", shared_state=True, max_active_runs=1, **fields)
    with TestClient(app) as client:
        return client.post("/v1/verify", headers=AUTH, json={"claim": "The Eiffel Tower is in Paris."}).status_code


def test_a_silent_replicas_slot_is_freed_after_the_default_lease(make_app: AppFactory, tmp_path: Path) -> None:
    _replica_holds_a_slot(tmp_path / "state.sqlite", silent_s=25)  # past the default 20 s (within the old 90 s)
    assert _verify(make_app, tmp_path / "state.sqlite") == 200
    _replica_holds_a_slot(tmp_path / "beating.sqlite", silent_s=2)  # a replica that beats: its slot counts
    assert _verify(make_app, tmp_path / "beating.sqlite") == 503


def test_within_the_lease_its_slot_still_counts(make_app: AppFactory, tmp_path: Path) -> None:
    _replica_holds_a_slot(tmp_path / "state.sqlite", silent_s=25)
    assert _verify(make_app, tmp_path / "state.sqlite", heartbeat_lease_s=60) == 503
    _replica_holds_a_slot(tmp_path / "other.sqlite", silent_s=8)
    assert _verify(make_app, tmp_path / "other.sqlite", heartbeat_lease_s=5) == 200
