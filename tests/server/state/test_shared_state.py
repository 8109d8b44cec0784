"""State that must hold across the service's processes (serve --workers N, or replicas on several
machines): the rate limit, the cap on debates in progress and the batch store, each exercised by real
separate processes on one SQLite file and on one real PostgreSQL database (``state_target``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from factdebate.run.batch import ClaimItem
from factdebate.server.state.batch_store import BatchStore
from factdebate.server.state.shared import SharedRateLimiter, SharedState
from tests.paths import ROOT
from tests.server.shared_runner import batch_settings

ROOT = ROOT


def python(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_rate_limit_holds_across_processes(state_target: str) -> None:
    db = state_target
    code = """
        import sys
        from factdebate.server.state.shared import SharedRateLimiter, SharedState
        limiter = SharedRateLimiter(SharedState(sys.argv[1]), per_minute=0.001, burst=5, prefix="key:")
        print(sum(limiter.acquire("k") == 0 for _ in range(8)))
    """
    procs = [python(code, db) for _ in range(3)]
    allowed = [int(p.communicate(timeout=60)[0]) for p in procs]
    assert sum(allowed) == 5  # one bucket of 5 for the key, whichever process answers
    assert SharedRateLimiter(SharedState(db), per_minute=0.001, burst=5, prefix="key:").acquire("k") > 0
    assert SharedRateLimiter(SharedState(db), per_minute=0.001, burst=5, prefix="key:").acquire("other") == 0


def test_debate_cap_holds_across_processes_and_frees_a_dead_holder(state_target: str) -> None:
    db = state_target
    holder = python("""
        import sys, time
        from factdebate.server.state.shared import SharedState
        state = SharedState(sys.argv[1])
        print(state.acquire_slot(2) is not None and state.acquire_slot(2) is not None, flush=True)
        time.sleep(60)
    """, db)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "True"
    state = SharedState(db)
    assert state.acquire_slot(2) is None and state.active() == 2  # the other process holds both
    assert state.acquire_slot(3) is not None
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)
    slot = state.acquire_slot(2)  # the dead process's slots are removed
    assert slot is not None and state.active() == 2  # this process's own two
    state.release_slot(slot)
    assert state.active() == 1


def _store_batch(db: str, count: int) -> BatchStore:
    store = BatchStore(db)
    settings = batch_settings(0.1)
    store.create("b1", "owner", settings.model_dump(mode="json"), {},
                 [ClaimItem(f"c{i}", f"Claim number {i} is true.", {}) for i in range(count)])
    return store


def _run(db: str, *gate: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tests.server.shared_runner", str(db), "b1", *gate], cwd=ROOT,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_two_processes_share_a_batch_and_run_each_claim_once(state_target: str, tmp_path: Path) -> None:
    """Each claim once, by one process, while both run it: each holds its first claim until the other has
    claimed one too (shared_runner's gate), so the overlap is certain on any machine; before, the process that
    started first could run all 16 while the other was still importing (seen at load 17: [0..15] and [])."""
    db = state_target
    store = _store_batch(db, 16)
    procs = [_run(db, str(tmp_path)), _run(db, str(tmp_path))]
    outputs = [p.communicate(timeout=120) for p in procs]
    ran = [[int(line.split()[1]) for line in out.splitlines() if line.startswith("ran")] for out, _ in outputs]
    assert all(p.returncode == 0 for p in procs), [err[-2000:] for _, err in outputs]
    assert sorted(ran[0] + ran[1]) == list(range(16))  # each claim once, by one process
    assert ran[0] and ran[1]  # both took part
    info = store.get("b1")
    assert info is not None and (info.status, info.done, info.errors, info.total) == ("done", 16, 0, 16)


def test_claims_of_a_killed_process_are_run_by_another(state_target: str) -> None:
    db = state_target
    store = _store_batch(db, 8)
    first = _run(db)
    assert first.stdout is not None
    started = [first.stdout.readline() for _ in range(2)]  # two claims in flight
    assert all(line.startswith("start") for line in started)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    second = _run(db)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err[-2000:]
    ran = {int(line.split()[1]) for line in out.splitlines() if line.startswith("ran")}
    assert {int(line.split()[1]) for line in started} <= ran  # the claims in flight at the kill ran again
    info = store.get("b1")
    assert info is not None and (info.status, info.done, info.errors) == ("done", 8, 0)
    results = store.results("b1")
    assert sorted(r["id"] for r in results) == sorted(f"c{i}" for i in range(8))
