"""Reading a long text does not hold the service: a 100,000-character ``/v1/guard/check`` (and a long
``/v1/check-response``) splits its text and places its claims in a worker thread, so ``/v1/health`` is
answered while it reads. The text work here waits until health has been answered: had it run on the event
loop, health could not have been, and the request would have waited its bound out instead."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.app import create_app
from tests.guard.support import script
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build

SENTENCE = "The Eiffel Tower is in Rome. Paris is the capital of France. "
HELD_AT_MOST = 20.0  # how long the text work waits for health before it gives up (a failure, then)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LiveServer]:
    backend = ScriptedBackend(script())
    app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite", rate_limit_per_minute=0,
                     build=lambda settings: offline_build(settings, backend))
    with LiveServer(app) as server:
        yield server


def _held_until_health_answers(real: Callable[..., Any], answered: threading.Event,
                               seen: dict[str, bool]) -> Callable[..., Any]:
    """``real``, once it has waited for /v1/health to be answered (at most HELD_AT_MOST seconds)."""

    def work(*args: Any, **kwargs: Any) -> Any:
        seen["reading"] = True
        seen["health answered while the text was read"] = answered.wait(HELD_AT_MOST)
        return real(*args, **kwargs)

    return work


def _while_reading(server: LiveServer, path: str, body: dict[str, Any], answered: threading.Event,
                   seen: dict[str, bool]) -> httpx.Response:
    """Sends ``body`` to ``path``; once its text work has started, asks /v1/health; the request's answer."""
    reply: dict[str, httpx.Response] = {}
    sender = threading.Thread(target=lambda: reply.setdefault(
        "r", httpx.post(f"{server.url}{path}", json=body, headers=AUTH, timeout=120)))
    sender.start()
    with httpx.Client(timeout=HELD_AT_MOST / 2) as client:
        while not seen.get("reading") and sender.is_alive():
            threading.Event().wait(0.01)
        health = client.get(f"{server.url}/v1/health")
    answered.set()
    sender.join(120)
    assert health.status_code == 200
    return reply["r"]


def test_a_100k_guard_check_leaves_health_answering(service: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.guard_engine import check

    answered, seen = threading.Event(), dict[str, bool]()
    monkeypatch.setattr(check, "gate", _held_until_health_answers(check.gate, answered, seen))
    text = (SENTENCE * (100_000 // len(SENTENCE)))[:100_000].rstrip()
    reply = _while_reading(service, "/v1/guard/check", {"text": text, "factdebate": {"tier": "fast",
                                                                                      "method": "single"}},
                           answered, seen)
    assert reply.status_code == 200, reply.text
    assert seen == {"reading": True, "health answered while the text was read": True}
    assert [c["claim"] for c in reply.json()["claims"]] == ["Paris is the capital of France.",
                                                            "The Eiffel Tower is in Rome."]


def test_a_long_response_check_leaves_health_answering(service: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.guard_engine import response_check as response

    answered, seen = threading.Event(), dict[str, bool]()
    monkeypatch.setattr(response, "claim_spans", _held_until_health_answers(response.claim_spans, answered, seen))
    text = (SENTENCE * (15_000 // len(SENTENCE))).rstrip()
    reply = _while_reading(service, "/v1/check-response", {"response": text, "method": "single"}, answered, seen)
    assert reply.status_code == 200, reply.text
    assert seen == {"reading": True, "health answered while the text was read": True}
    assert all(c["span"] is not None for c in reply.json()["claims"])


def test_a_long_chat_leaves_health_answering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chat of many short messages (50,000 held /v1/health for 2-7 s) has each message
    checked in a worker thread (guard/chat_request.py), so health is answered meanwhile; the chat is answered."""
    from factdebate.server.guard import chat_request as guard_request
    from tests.server.guard_support import Upstream, upstream_app

    answered, seen = threading.Event(), dict[str, bool]()
    monkeypatch.setattr(guard_request, "check_messages",
                        _held_until_health_answers(guard_request.check_messages, answered, seen))
    with LiveServer(upstream_app(Upstream())) as model:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        backend = ScriptedBackend(script())
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                         rate_limit_per_minute=0, build=lambda settings: offline_build(settings, backend))
        messages = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"message {n}"}
                    for n in range(1_001)]
        with LiveServer(app) as server:
            reply = _while_reading(server, "/v1/chat/completions", {
                "model": "m", "messages": messages, "factdebate": {"tier": "fast", "method": "single"}},
                answered, seen)
    assert reply.status_code == 200, reply.text
    assert seen == {"reading": True, "health answered while the text was read": True}
    assert reply.json()["factdebate"]["claims"]
