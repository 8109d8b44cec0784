"""A checker model whose server is gone (its port refuses connections), as a chatbot team meets it: after the
first few refusals the guard stops calling it and answers at once, degraded with the reason; /v1/health lists
it in ``down`` (a 503 only when the operator set ``models_required``); a metric counts the replies answered
that way; and once the server is back, the next call after the pause goes through."""

from __future__ import annotations

import socket
import time
from typing import Any

from fastapi.testclient import TestClient

from factdebate.llm import breaker, make_backend
from tests.fake_openai import FakeOpenAI
from tests.server.conftest import AUTH, AppFactory, offline_build

METRICS_KEY = "metrics-key-0123456789"
CHECK = {"text": "The Eiffel Tower is in Rome.", "factdebate": {"tier": "fast", "method": "single"}}
DEFAULTS = {"llm": "openai:m", "agents": ["none", "none"], "scoring": False, "cache": False}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def app_for(make_app: AppFactory, url: str, **fields: Any) -> Any:
    backend = make_backend("openai:m", base_url=url)
    return make_app(defaults=DEFAULTS, build=lambda settings: offline_build(settings, backend),
                    metrics_key=METRICS_KEY, **fields)


def test_a_dead_checker_is_told_at_once_in_the_reply_in_health_and_in_a_metric(make_app: AppFactory) -> None:
    app = app_for(make_app, f"http://127.0.0.1:{closed_port()}/v1")
    with TestClient(app) as client:
        assert client.get("/v1/health").json()["down"] == []
        replies = [client.post("/v1/guard/check", json=CHECK, headers=AUTH).json() for _ in range(4)]
        for reply in replies:
            assert reply["degraded"] and reply["label"] is None, reply
        # the first reply's calls met the refusals that opened the breaker; the later ones were not sent at all
        for reply in replies[1:]:
            assert "the model server of openai:m is down: it refused 3 connections in a row" in \
                reply["degraded_reason"], reply["degraded_reason"]
        health = client.get("/v1/health")
        assert health.status_code == 200 and health.json()["down"] == ["model openai:m"]
        scrape = client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_KEY}"}).text
        counted = [line for line in scrape.splitlines()
                   if line.startswith("factdebate_guard_checker_down_replies_total")]
        assert counted and float(counted[0].split()[-1]) >= 3, counted


def test_an_operator_who_requires_the_checker_gets_a_503_from_health(make_app: AppFactory) -> None:
    app = app_for(make_app, f"http://127.0.0.1:{closed_port()}/v1", models_required=True)
    with TestClient(app) as client:
        client.post("/v1/guard/check", json=CHECK, headers=AUTH)
        health = client.get("/v1/health")
        assert health.status_code == 503 and health.json()["down"] == ["model openai:m"]
        assert health.json()["status"] == "unavailable" and int(health.headers["Retry-After"]) >= 1


def test_a_checker_back_from_the_dead_is_called_again_after_its_pause(make_app: AppFactory) -> None:
    port = closed_port()
    app = app_for(make_app, f"http://127.0.0.1:{port}/v1")
    with TestClient(app) as client:
        client.post("/v1/guard/check", json=CHECK, headers=AUTH)
        assert client.get("/v1/health").json()["down"] == ["model openai:m"]
        with FakeOpenAI(port=port, reply='{"claims": []}'):
            time.sleep(breaker.FIRST_PAUSE_S + 0.2)
            reply = client.post("/v1/guard/check", json=CHECK, headers=AUTH).json()
            assert "is down" not in (reply.get("degraded_reason") or "")
            assert client.get("/v1/health").json()["down"] == []
