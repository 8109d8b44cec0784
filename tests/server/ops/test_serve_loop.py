"""``factdebate serve`` runs its one process on uvloop, which the ``serve`` extra installs: the loop uvicorn
makes from the arguments the command gives it."""

from __future__ import annotations

from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from factdebate.server.ops import workers


def test_the_service_is_served_on_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    given: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: given.update(options))
    monkeypatch.setattr(workers, "tune_gc", lambda: None)  # the test process's collector left as it is
    workers.serve_app(FastAPI(), "127.0.0.1", 8000, "warning", 3)
    assert given["timeout_graceful_shutdown"] == 3 and given["proxy_headers"] is False
    loop = uvicorn.Config(FastAPI(), **given).get_loop_factory()()
    try:
        assert type(loop).__module__.split(".")[0] == "uvloop"
    finally:
        loop.close()
