"""Fixtures for the service tests: an app factory with scripted models, static tools and a tiny encoder,
and a real uvicorn server on a free loopback port."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from factdebate.core.types import Document
from factdebate.llm import make_backend
from factdebate.llm.base import Backend
from factdebate.methods import Resources
from factdebate.run.build import build_resources
from factdebate.server.app import create_app
from factdebate.settings.model import Settings
from tests.helpers import BagOfWordsEncoder, StaticTool
from tests.readiness import wait_until_ready
from tests.server.postgres import postgres_server, postgres_url, state_target  # noqa: F401 - fixtures

KEY = "test-key-0123456789"
AUTH = {"Authorization": f"Bearer {KEY}"}
# No retrieval index, no embedding model, no cache: a debate costs only the scripted latency.
PLAIN = {"llm": "scripted:disagree", "agents": ["none", "none"], "scoring": False, "cache": False}

EVIDENCE = {
    "rag": [Document(id="r1", title="Eiffel Tower", text="The tower was completed in 1889.",
                     source="https://en.wikipedia.org/wiki/Eiffel_Tower")],
    "search": [Document(id="s1", title="Paris landmarks", text="The Eiffel Tower opened in 1889.",
                        source="https://example.org/paris")],
}


def offline_build(settings: Settings, backend: Backend | None = None) -> Resources:
    """Real scripted models; static tools and a bag-of-words encoder instead of indexes and MiniLM.
    ``backend``: one for every role instead of the settings' model (a test's own scripted behaviour)."""
    backend = backend or make_backend(settings.llm.debater)
    tools = {kind: StaticTool(kind, docs) for kind, docs in EVIDENCE.items()}
    return build_resources(settings, backends={"debater": backend, "judge": backend, "scorer": backend},
                           tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)


AppFactory = Callable[..., FastAPI]


@pytest.fixture
def make_app(tmp_path: Path) -> AppFactory:
    def factory(**fields: Any) -> FastAPI:
        fields.setdefault("api_keys", [KEY])
        fields.setdefault("defaults", PLAIN)
        fields.setdefault("db_path", tmp_path / "service.sqlite")
        fields.setdefault("build", offline_build)
        return create_app(**fields)

    return factory


def parse_sse(text: str) -> list[tuple[str, Any]]:
    events: list[tuple[str, Any]] = []
    for frame in text.split("\n\n"):
        name, data = "message", []
        for line in frame.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_HELD: list[socket.socket] = []


def closed_port() -> int:
    """A loopback port that refuses every connection for the rest of the run: bound and never listened on, so no
    other test's server (one that asks for a key, say) can take it between choosing it and calling it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _HELD.append(sock)
    return int(sock.getsockname()[1])


class LiveServer:
    """uvicorn in a thread, on its own event loop, as `factdebate serve` runs it."""

    def __init__(self, app: FastAPI) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        # by its state (the thread alive, this process's CPU moving), not a clock: a loaded machine is slow
        wait_until_ready(lambda: bool(self.server.started), self.thread, "uvicorn (the service in a thread)",
                         every_s=0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def page_service(folder: Path, **fields: Any) -> LiveServer:
    """A service for a page test module: the test key, no rate limit, offline resources, its state in ``folder``."""
    return LiveServer(create_app(**{"api_keys": [KEY], "rate_limit_per_minute": 0, "build": offline_build,
                                    "db_path": folder / "service.sqlite", **fields}))


@pytest.fixture
def live_server(make_app: AppFactory) -> Callable[..., LiveServer]:
    def start(**fields: Any) -> LiveServer:
        return LiveServer(make_app(**fields))

    return start


@pytest.fixture
def wait_for() -> Callable[..., None]:
    def wait(condition: Callable[[], bool], timeout: float = 20.0, what: str = "condition") -> None:
        """Until ``condition()``; ``timeout`` is CPU-seconds of this process and its children (the service
        in its thread, the polls), not wall seconds, so a loaded machine waits longer."""
        wait_until_ready(condition, os.getpid(), f"waiting for {what}: this test's process", cpu_budget_s=timeout,
                         every_s=0.02)

    return wait



@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """The worker's Chromium for a module's page tests, one connection (one Playwright driver) a module; test_browser's
    ``browser`` gives a test this connection and closes the contexts the test opened."""
    from tests.server.chromium import connected_chromium

    with connected_chromium() as browser:
        yield browser
