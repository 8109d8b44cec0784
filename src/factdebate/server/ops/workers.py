"""``factdebate serve --workers N``: uvicorn starts N processes that each import :func:`app_from_env`.

The parent validates the service settings, builds the indexes once, then hands the settings to the
workers in a file only its user can read (it holds the API keys). Every worker shares the batch store,
the rate limits and the cap on debates in progress through SQLite (``shared_state``), and searches its own
copy of a Milvus Lite folder (Milvus Lite serves one process)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from fastapi import FastAPI

from factdebate.server.config import ServiceConfig

CONFIG_ENV = "FACTDEBATE_SERVE_WORKER_CONFIG"


def write_worker_config(config: ServiceConfig) -> Path:
    data = config.model_dump(mode="json")
    data["api_keys"] = config.key_values()  # SecretStr dumps as stars
    fd, name = tempfile.mkstemp(prefix="factdebate-serve-", suffix=".json")  # mode 0600
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    return Path(name)


def app_from_env() -> FastAPI:
    """The app of one worker process (uvicorn's factory)."""
    from factdebate.server.app import create_app

    config = ServiceConfig.model_validate(json.loads(Path(os.environ[CONFIG_ENV]).read_text(encoding="utf-8")))
    # Each worker arms its own stop watchdog: the parent waits for its workers, so one frozen worker would
    # keep the whole service from stopping (server/ops/shutdown.py).
    app = create_app(config, exit_within_s=config.shutdown_grace_s)
    tune_gc()
    return app


def serve_app(app: FastAPI, host: str, port: int, log_level: str, grace_s: int) -> None:
    """``app`` served in this process as ``factdebate serve`` serves it: what startup built frozen out of the
    collector's way (:func:`tune_gc`), no proxy headers trusted, no server header; told to stop, the requests in
    progress get ``grace_s`` seconds (server/ops/shutdown.py). The benchmarks serve the guard through it too, so
    that what they measure is what the command runs."""
    import uvicorn

    tune_gc()
    uvicorn.run(app, host=host, port=port, log_level=log_level, proxy_headers=False, server_header=False,
                timeout_graceful_shutdown=grace_s)


def tune_gc() -> None:
    """A long-lived server makes many short-lived objects per request: freezing what startup built keeps
    full collections from rescanning it, and a larger first generation makes collections rarer (in the load
    benchmark this cut the server's CPU time per debate by about a fifth)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
