"""A full disk loses no verdict: the response cache that cannot write is skipped with a
warning, a check the state database cannot keep is answered with its verdict and the reason it was not kept,
a batch that cannot be stored is a 507 saying why, a result that cannot be stored is held and written once
there is room, and ``/v1/health`` says the disk is full.

How the full disk is made, honestly, in each test:
- the service tests mount a real 1 MiB tmpfs (root only; skipped elsewhere), put the data folder and the
  state database on it and fill it with a file until the kernel answers ENOSPC: every write SQLite then
  makes fails as it would on a full disk (``database or disk is full``);
- the cache's own test uses SQLite's ``max_page_count`` (the database may not grow past the pages it has),
  which makes SQLite itself answer SQLITE_FULL, with the same message, without root.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.cache import ResponseCache
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings
from factdebate.util.storage_full import STORAGE
from tests.server.conftest import AUTH, PLAIN, offline_build, parse_sse

CACHED = {**PLAIN, "cache": True}


@pytest.fixture(autouse=True)
def _fresh_notes() -> Iterator[None]:
    yield
    for part in list(STORAGE.problems()):
        STORAGE.wrote(part)


def test_a_cache_that_cannot_grow_is_skipped_with_one_warning(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    cache.put("first", Completion(text="kept", prompt_tokens=1, completion_tokens=1))
    pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
    cache._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite refuses to grow it: SQLITE_FULL
    big = Completion(text="x" * 50_000, prompt_tokens=1, completion_tokens=1)  # needs new pages
    with caplog.at_level(logging.WARNING, logger="factdebate.llm"):
        cache.put("second", big)  # raised "database or disk is full" before
        cache.put("third", big)
    warned = [r.getMessage() for r in caplog.records if "could not be written" in r.getMessage()]
    assert len(warned) == 1 and "database or disk is full" in warned[0] and "no verdict is lost" in warned[0]
    assert "database or disk is full" in STORAGE.problems()["response cache"]
    assert cache.get("first") is not None and cache.get("second") is None  # reads go on
    cache._db.execute("PRAGMA max_page_count = 1073741823")  # room again
    cache.put("second", big)
    assert cache.get("second") is not None and "response cache" not in STORAGE.problems()


def test_only_storage_failures_are_skipped() -> None:
    import sqlite3

    assert STORAGE.problem(OSError(errno.ENOSPC, "No space left on device")) == "No space left on device"
    assert STORAGE.problem(sqlite3.OperationalError("attempt to write a readonly database"))
    assert STORAGE.problem(sqlite3.OperationalError("no such table: responses")) is None
    assert STORAGE.problem(ValueError("database or disk is full")) is None


def _fill(db: sqlite3.Connection) -> None:
    """The cache's database made full as a full disk makes it: it may not grow past its pages
    (``max_page_count``), and rows of shrinking size take what room they have left, so SQLite itself answers
    SQLITE_FULL to the next write."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    for number, size in enumerate(s for s in (4096, 1024, 256, 64, 16, 1) for _ in range(400)):
        with contextlib.suppress(sqlite3.OperationalError):
            db.execute("INSERT INTO responses (key, text) VALUES (?, ?)", (f"filler-{number}", "x" * size))


def test_a_service_whose_cache_is_full_answers_its_verdicts_and_health_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_app: Any) -> None:
    """Without root: the cache's own database full (the tmpfs tests below need root to mount one)."""
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path / "data"))
    caches: list[ResponseCache] = []

    def build(settings: Settings) -> Resources:
        resources = offline_build(settings)
        cache = resources.llm("debater").cache
        assert cache is not None
        caches.append(cache)
        return resources

    app = make_app(defaults=CACHED, build=build, rate_limit_per_minute=0)
    with TestClient(app) as client:
        assert client.post("/v1/verify", json={"claim": "Water boils at 100 C."}, headers=AUTH).status_code == 200
        assert caches and "response cache" not in client.get("/v1/health").json()["storage"]
        for cache in caches:
            _fill(cache._db)
        answer = client.post("/v1/verify", json={"claim": "The sky is blue."}, headers=AUTH)
        assert answer.status_code == 200, answer.text  # was a 500: 'database or disk is full' after the model answered
        assert answer.json()["label"] in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
        assert client.get("/v1/health").json()["storage"] == {"response cache": "the service's disk is full"}


@contextlib.contextmanager
def _tmpfs(folder: Path) -> Iterator[Path]:
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], capture_output=True,
                          check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.decode()[:200]}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


class Disk:
    """A tmpfs made full by a file filling what is left, and freed by deleting it."""

    def __init__(self, root: Path) -> None:
        self.filler = root / "filler"

    def fill(self) -> None:
        with open(self.filler, "ab", buffering=0) as out, contextlib.suppress(OSError):
            while True:  # unbuffered: the write the kernel refuses raises here, nothing is left to flush
                out.write(b"\0" * 4096)
        probe = self.filler.with_name("probe")
        with pytest.raises(OSError) as full:  # the kernel itself says so
            probe.write_bytes(b"\0" * 8192)
        assert full.value.errno == errno.ENOSPC
        probe.unlink(missing_ok=True)

    def free(self) -> None:
        self.filler.unlink()


class HeldModel(ScriptedBackend):
    """Scripted answers, held until ``go`` is set once ``held`` (a batch's claim is being checked)."""

    def __init__(self) -> None:
        super().__init__(protocol_responder(disagree=True), name="scripted:held")
        self.held = threading.Event()
        self.go = threading.Event()
        self.hold = False

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        if self.hold:
            self.held.set()
            await asyncio.to_thread(self.go.wait, 60)
        return await super().complete(messages, params)


@pytest.fixture
def full_disk_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_app: Any) -> Iterator[tuple[Any, Disk,
                                                                                                     HeldModel]]:
    from factdebate.server.routes import batches

    with _tmpfs(tmp_path / "disk") as disk:
        monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(disk / "data"))
        monkeypatch.setattr(batches, "RECORD_RETRY_SECONDS", 0.05)
        model = HeldModel()

        def build(settings: Settings) -> Resources:
            return offline_build(settings, model)

        app = make_app(defaults=CACHED, db_path=disk / "service.sqlite", build=build, rate_limit_per_minute=0)
        yield app, Disk(disk), model


def test_a_full_disk_loses_no_verdict_and_health_says_so(full_disk_app: tuple[Any, Disk, HeldModel]) -> None:
    app, disk, _ = full_disk_app
    with TestClient(app) as client:
        assert client.post("/v1/verify", json={"claim": "Water boils at 100 C."}, headers=AUTH).status_code == 200
        disk.fill()
        answer = client.post("/v1/verify", json={"claim": "The sky is blue."}, headers=AUTH)
        assert answer.status_code == 200, answer.text  # was a 500: the cache's write failed after the model answered
        assert answer.json()["label"] in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
        assert "X-Check-Id" not in answer.headers
        assert answer.headers["X-Check-Not-Kept"] == ("the service's disk is full: this check was not kept (its "
                                                      "verdict is in this answer)")
        with client.stream("POST", "/v1/verify/stream", json={"claim": "Grass is green."}, headers=AUTH) as r:
            events = parse_sse("".join(r.iter_text()))
        names = [name for name, _ in events]
        assert names[-2:] == ["check_not_kept", "result"], names[-4:]
        assert "disk is full" in events[-2][1]["reason"] and events[-1][1]["label"]

        # The guard's check: no id that GET /v1/checks/{id} would answer 404, and the same words as verify's.
        guarded = client.post("/v1/guard/check", json={"text": "Water boils at 100 C.",
                                                         "factdebate": {"tier": "fast"}}, headers=AUTH)
        assert guarded.status_code == 200, guarded.text
        assert "X-Factdebate-Check-Id" not in guarded.headers
        assert guarded.headers["X-Check-Not-Kept"] == answer.headers["X-Check-Not-Kept"]
        assert guarded.json()["check_id"] is None
        assert [(w["code"], w["message"]) for w in guarded.json()["warnings"] if w["code"] == "check_not_kept"] == \
            [("check_not_kept", answer.headers["X-Check-Not-Kept"])]

        batch = client.post("/v1/batches", content='{"claim": "The sun is a star."}\n', headers=AUTH)
        assert batch.status_code == 507, batch.text
        assert batch.json()["detail"].startswith("the service's disk is full: the batch was not stored")

        health = client.get("/v1/health")
        assert health.status_code == 200
        storage = health.json()["storage"]
        assert storage["response cache"] == "the service's disk is full"
        assert storage["kept checks"] == "the service's disk is full"
        assert storage["batches"] == "the service's disk is full"
        assert "/" not in str(storage)  # what failed, never where: no path of the operator's

        disk.free()
        again = client.post("/v1/verify", json={"claim": "Snow is cold."}, headers=AUTH)
        assert again.status_code == 200 and "X-Check-Id" in again.headers
        assert "kept checks" not in client.get("/v1/health").json()["storage"]


def test_a_batch_result_the_disk_refused_is_written_once_there_is_room(
        full_disk_app: tuple[Any, Disk, HeldModel]) -> None:
    app, disk, model = full_disk_app
    with TestClient(app) as client:
        model.hold = True
        created = client.post("/v1/batches", content='{"id": "a", "claim": "The sun is a star."}\n', headers=AUTH)
        assert created.status_code == 202, created.text
        batch_id = created.json()["id"]
        assert model.held.wait(60)
        disk.fill()
        model.go.set()  # the verdict is reached with the disk full: its record cannot be written
        while "batches" not in client.get("/v1/health").json()["storage"]:
            threading.Event().wait(0.02)
        assert client.get(f"/v1/batches/{batch_id}", headers=AUTH).json()["done"] == 0
        disk.free()
        while (status := client.get(f"/v1/batches/{batch_id}", headers=AUTH).json())["status"] != "done":
            threading.Event().wait(0.02)
        assert status["done"] == 1 and status["results"][0]["id"] == "a" and status["results"][0]["label"]
        assert "batches" not in client.get("/v1/health").json()["storage"]
    os.sync()
