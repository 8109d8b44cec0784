"""An index build on Ray whose shard fails: a bad line is the one-process build's one line (exit 2), and a
shard whose worker keeps dying stops the build after ``SHARD_RETRIES`` retries, naming the shards left,
where Ray Data would restart the worker and retry without end. One worker, the full-text engine only (no
Milvus server): the smallest build that runs on real Ray workers."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.errors import IndexError_
from factdebate.corpus.index_log import index_log_path
from factdebate.corpus.sources import resolve_source
from factdebate.scale.index_ray import SHARD_RETRIES, index_on_ray
from factdebate.settings.load import load_settings
from tests.cli.test_exits import call
from tests.scale.support import hashing_embedder

pytestmark = pytest.mark.usefixtures("ray_instance")


@pytest.fixture
def shared_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(folder))  # the pool passes it on to the workers
    return folder


def test_a_bad_line_is_the_one_process_builds_line(shared_data: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "title": "A", "text": "one"}\n{"id": "b", "title": \n', encoding="utf-8")
    code, here = call(capsys, "index", str(bad), "--corpus", "bad-here", "--engines", "local")
    assert code == 2 and f"{bad}:2: invalid JSON" in here
    code, err = call(capsys, "index", str(bad), "--corpus", "bad-ray", "--engines", "local", "--executor", "ray",
                     "--workers", "1")
    assert code == 2, err
    assert [line for line in err.splitlines() if line.startswith("error:")] == [here.strip()]
    assert "internal error" not in err and "ray::" not in err


def _ours(pid: int) -> bool:
    """Whether process ``pid`` descends from this one: this test's Ray instance, never another session's."""
    while pid > 1:
        try:
            pid = int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            return False
        if pid == os.getpid():
            return True
    return False


def _kill_index_workers(stop: threading.Event, kills: list[int]) -> None:
    """Stands for a shard that kills its worker (out of memory, a crash in a reader): an index worker of this
    test's Ray instance is killed while it works on a shard (Ray titles the process ``….submit`` then; a
    worker killed while it starts is another of Ray's paths, which stops at once)."""
    while not stop.is_set():
        for entry in Path("/proc").iterdir():
            try:
                # A killed worker stays listed until it is reaped (longer on a loaded machine): once is enough.
                if entry.name.isdigit() and int(entry.name) not in kills \
                        and b"ShardIndexer)).submit" in (entry / "cmdline").read_bytes() and _ours(int(entry.name)):
                    os.kill(int(entry.name), signal.SIGKILL)
                    kills.append(int(entry.name))
            except OSError:
                continue
        time.sleep(0.01)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker processes through /proc")
def test_a_shard_that_kills_its_worker_stops_the_build_after_bounded_retries(shared_data: Path,
                                                                            tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": f"d{i}", "title": "T", "text": f"Text {i}."}) + "\n"
                            for i in range(5000)), encoding="utf-8")  # one shard, long enough to be caught at
    settings = load_settings(overrides={"scale": {"executor": "ray", "workers": 1}}, environ={})
    stop, kills, outcome = threading.Event(), [], {}

    def build() -> None:
        try:
            outcome["stats"] = index_on_ray(resolve_source(docs), "ray-poison", settings, engines=("local",),
                                            progress=False, make_embedder=hashing_embedder)
        except Exception as exc:
            outcome["error"] = exc

    killer = threading.Thread(target=_kill_index_workers, args=(stop, kills), daemon=True)
    killer.start()
    builder = threading.Thread(target=build, daemon=True)
    builder.start()
    builder.join(240)  # without a bound, Ray Data restarts the worker and retries the shard for ever
    stop.set()
    assert not builder.is_alive(), f"still retrying after {len(kills)} worker deaths"
    error: Any = outcome.get("error")
    assert isinstance(error, IndexError_), outcome
    assert len(kills) == SHARD_RETRIES + 1
    message = str(error)
    assert "\n" not in message and f"a Ray worker failed {SHARD_RETRIES + 1} time(s)" in message
    assert f"unfinished shard(s) ({docs}#" in message and "run the same command again to go on" in message
    assert len(index_log_path("ray-poison", "no-milvus").read_text().splitlines()) == 1  # the plan, no shard
