"""The suite runs on several pytest-xdist workers (scripts/test.sh): most tests wait on subprocesses and
sockets, not on the CPU. Two things make that safe and cheap, both used by tests/conftest.py:

- tests that share an expensive fixture (a Milvus server, a Ray instance, a module's llama.cpp server or
  model) are put in one ``xdist_group``, so that fixture starts once per run, not once per worker;
- things built once per run (the int8 encoder's ONNX file) go to a folder every worker of the run sees,
  built by the first worker that asks, under a file lock, while the others wait for it.

Without xdist (a targeted ``pytest tests/x.py``) the groups are inert and the folder is the session's own.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import pytest

# Fixtures that start a server or a cluster: every test that uses one runs in the same worker. Ray and the
# Milvus server share one group: two Ray instances starting at once on two loaded cores timed out waiting
# for their GCS (seen in a 3-worker run), and tests/scale/test_index_ray.py needs both.
SHARED_FIXTURES = {"milvus_server_uri": "servers", "ray_instance": "servers"}
# Session fixtures are made once per worker (the costly ones are listed above); function ones once per test.
_UNGROUPED_SCOPES = ("function", "session")


def xdist_group_for(item: pytest.Item) -> str | None:
    """The group a test must run in, or ``None`` where any worker will do: a shared server's group first,
    then its module's when the test uses a fixture of module (or class/package) scope, so that fixture is
    made once."""
    names = getattr(item, "fixturenames", ())
    for fixture, group in SHARED_FIXTURES.items():
        if fixture in names:
            return group
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for name in names:
        defs = info.name2fixturedefs.get(name) or ()
        if any(d.scope not in _UNGROUPED_SCOPES for d in defs):
            return item.nodeid.split("::")[0]
    return None


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder shared by all workers of this run (the session's own temporary folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_once(target: Path, build: Callable[[Path], None]) -> Path:
    """``target``, made by ``build(target)`` if no worker made it yet; the others wait on the lock."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_name(target.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            build(target)
    return target
