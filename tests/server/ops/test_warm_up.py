"""A fresh service loads what the guard's check needs before it says it is ready (server/ops/warmup.py): until then
``/v1/health`` is a 503 saying what is loading; scripted models need nothing and are ready at once. A request's
check counts its deadline and its seconds from the request's arrival (guard_engine/clock.py): time the service spent
before the check began is the check's time, said, never hidden."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.resources import Resources
from factdebate.run.build import build_resources
from factdebate.settings.model import Settings
from tests.guard.support import script
from tests.helpers import BagOfWordsEncoder, StaticTool
from tests.readiness import wait_until_ready
from tests.server.conftest import AUTH, KEY, PLAIN, AppFactory

REMOTE = {**PLAIN, "llm": "openai:gpt-4o-mini"}  # a configuration that is not scripted: warmed up


class LoadingBackend(ScriptedBackend):
    """A scripted model whose ``load`` (the warm-up's) waits until the test lets it finish."""

    def __init__(self) -> None:
        super().__init__(script())
        self.release = threading.Event()
        self.loads = 0

    def load(self) -> None:
        self.loads += 1
        assert self.release.wait(30)


class CountingEncoder(BagOfWordsEncoder):
    def __init__(self) -> None:
        self.encoded: list[list[str]] = []

    async def aencode(self, texts: list[str]) -> np.ndarray:
        self.encoded.append(texts)
        return await super().aencode(texts)


def builder(backend: ScriptedBackend, encoder: BagOfWordsEncoder, opened: list[str], delay: float = 0.0) -> Any:
    def build(settings: Settings) -> Resources:
        time.sleep(delay)  # a cold build (a model file copied, an index opened) on the request's way

        def tool(kind: str) -> StaticTool:
            opened.append(kind)
            return StaticTool(kind)

        return build_resources(settings, backends={"debater": backend, "judge": backend, "scorer": backend},
                               tool_factory=tool, encoder_factory=lambda: encoder)

    return build


def wait_ready(client: TestClient) -> Any:
    """The health answer once it is 200, waited for by state: bounded by this process's CPU (the service runs
    in it), not 30 s of wall."""
    answer: dict[str, Any] = {}

    def ready() -> bool:
        nonlocal answer
        response = client.get("/v1/health")
        answer = response.json()
        return response.status_code == 200

    wait_until_ready(ready, os.getpid(), "the service (in this process)", cpu_budget_s=30, every_s=0.05,
                     log=lambda: str(answer))
    return answer


def test_health_is_503_with_what_loads_until_the_guards_models_are_loaded(make_app: AppFactory) -> None:
    backend, encoder, opened = LoadingBackend(), CountingEncoder(), list[str]()
    app = make_app(defaults=REMOTE, build=builder(backend, encoder, opened))
    with TestClient(app) as client:
        wait_until_ready(lambda: backend.loads > 0, os.getpid(), "the warm-up's first model load", cpu_budget_s=30,
                         every_s=0.02)
        waiting = client.get("/v1/health")
        assert waiting.status_code == 503 and waiting.headers["Retry-After"] == "1"
        body = waiting.json()
        assert body["status"] == "starting" and body["ready"] is False
        assert "loading the extractor's model (openai:gpt-4o-mini)" in body["reason"]
        backend.release.set()
        ready = wait_ready(client)
    assert ready["status"] == "ok" and ready["ready"] is True and ready["reason"] is None
    # Each role's model was loaded, the encoder ran once, the fast tier's search engine was opened.
    assert backend.loads >= 1 and encoder.encoded == [["warm-up"]] and "search" in opened


def test_scripted_models_need_no_warm_up(make_app: AppFactory) -> None:
    backend, encoder, opened = LoadingBackend(), CountingEncoder(), list[str]()
    with TestClient(make_app(build=builder(backend, encoder, opened))) as client:
        response = client.get("/v1/health")
    assert response.status_code == 200 and response.json()["ready"] is True
    assert backend.loads == 0 and encoder.encoded == [] and opened == []


def test_a_part_that_fails_to_load_is_named_and_the_service_still_serves(make_app: AppFactory) -> None:
    class Broken(LoadingBackend):
        def load(self) -> None:
            raise RuntimeError("model file is damaged")

    app = make_app(defaults=REMOTE, build=builder(Broken(), CountingEncoder(), []))
    with TestClient(app) as client:
        ready = wait_ready(client)
    assert "model file is damaged" in ready["reason"] and ready["ready"] is True


def test_a_part_that_failed_to_load_is_named_without_the_operators_addresses(make_app: AppFactory) -> None:
    """/v1/health needs no key: what a failed part's error names of the operator's network (a resolved IP, a bare
    host:port that no setting holds) stays in the server's log."""
    class Unreachable(LoadingBackend):
        def load(self) -> None:
            raise RuntimeError("failed to connect to all addresses; last error: ipv4:10.0.0.5:19530: Connection "
                               "refused (milvus-0:19530)")

    app = make_app(defaults=REMOTE, build=builder(Unreachable(), CountingEncoder(), []))
    with TestClient(app) as client:
        ready = wait_ready(client)
    assert "failed to connect to all addresses" in ready["reason"] and "Connection refused" in ready["reason"]
    for address in ("10.0.0.5", "milvus-0", "19530"):
        assert address not in ready["reason"], ready["reason"]


def test_a_checks_clock_starts_when_the_request_arrives(make_app: AppFactory, tmp_path: Path) -> None:
    """The first request's resources take 1.5 s to build: with a 1 s deadline nothing is left for the check,
    which says so (degraded, unchecked), and its seconds cover the build; it never reports a 1 s check."""
    backend = ScriptedBackend(script())
    app = make_app(build=builder(backend, CountingEncoder(), [], delay=1.5), api_keys=[KEY])
    with TestClient(app) as client:
        body = {"text": "The Eiffel Tower is in Rome.", "factdebate": {"tier": "fast", "deadline_s": 1.0}}
        found = client.post("/v1/guard/check", json=body, headers=AUTH).json()
    assert found["usage"]["seconds"] >= 1.5
    assert found["label"] is None and found["degraded"] is True and "deadline" in found["degraded_reason"]
