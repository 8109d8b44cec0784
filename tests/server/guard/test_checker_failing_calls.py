"""A checker that answers 500 to every call is given up on once per reply, plain or streamed: the reply's calls
share one allowance of failed tries (llm/failure_budget.py), so the stream, whose windows each retried on their
own until the deadline, makes no more calls than the plain reply, and both answer with the upstream's words."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from factdebate.guard_engine.check import REPLY_FAILED_TRIES
from factdebate.llm import make_backend
from tests.fake_openai import FakeOpenAI
from tests.server.conftest import AUTH, AppFactory, LiveServer, offline_build
from tests.server.guard_support import Upstream, upstream_app

FAST = {"tier": "fast", "method": "single"}
CHECKER = {"llm": "openai:m", "agents": ["none", "none"], "scoring": False, "cache": False, "rounds": 1}
CHAT = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}], "factdebate": FAST}


def calls_for(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, stream: bool) -> tuple[int, str]:
    with FakeOpenAI(fault=lambda n: (500, None)) as checker, LiveServer(upstream_app(Upstream())) as upstream:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        backend = make_backend("openai:m", base_url=checker.base_url)
        app = make_app(defaults=CHECKER, rate_limit_per_minute=0,
                       build=lambda settings: offline_build(settings, backend))
        with TestClient(app) as client:
            reply = client.post("/v1/chat/completions", json={**CHAT, "stream": stream}, headers=AUTH)
        assert reply.status_code == 200, reply.text
        return len(checker.requests), shown(reply.text, stream)


def shown(body: str, stream: bool) -> str:
    """The answer's text as the client reads it, and its closing check object."""
    if not stream:
        data = json.loads(body)
        return data["choices"][0]["message"]["content"] + json.dumps(data["factdebate"])
    chunks = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: {")]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices"))
    return text + "".join(json.dumps(c["factdebate"]) for c in chunks if "factdebate" in c)


def test_a_checker_failing_every_call_is_given_up_on_once_plain_or_streamed(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    plain, plain_text = calls_for(make_app, monkeypatch, stream=False)
    streamed, streamed_text = calls_for(make_app, monkeypatch, stream=True)
    assert "Paris is the capital of France" in plain_text and "Paris is the capital of France" in streamed_text
    assert '"degraded": true' in plain_text and '"degraded": true' in streamed_text
    # the allowance, plus what was already on its way when it ran out (one call a claim at most in flight)
    assert plain <= REPLY_FAILED_TRIES + 2 and streamed <= REPLY_FAILED_TRIES + 2, (plain, streamed)
