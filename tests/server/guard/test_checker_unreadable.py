"""A checker model whose answers cannot be read (a body gzipped twice under ``Content-Encoding: gzip, gzip``,
bytes that are not UTF-8, JSON nested past Python's parser) is an unusable answer on every face a caller reads,
never a 500 and never the caller's own bad JSON: the chat proxy delivers its upstream's words with the check
marked degraded, /v1/guard/check answers degraded, /v1/verify answers without a traceback."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from factdebate.llm import make_backend
from tests.hostile_server import UNREADABLE, HostileServer
from tests.server.conftest import AUTH, AppFactory, LiveServer, offline_build
from tests.server.guard_support import ANSWER, Upstream, upstream_app

FAST = {"tier": "fast", "method": "single"}
CHECKER = {"llm": "openai:m", "agents": ["none", "none"], "scoring": False, "cache": False, "rounds": 1}
CHAT = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}], "factdebate": FAST}


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_unreadable_checker_answer_leaves_every_face_its_words_and_a_degraded_check(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    with HostileServer(kind) as checker, LiveServer(upstream_app(Upstream())) as upstream:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        backend = make_backend("openai:m", base_url=checker.url)
        app = make_app(defaults=CHECKER, rate_limit_per_minute=0,
                       build=lambda settings: offline_build(settings, backend))
        with TestClient(app, raise_server_exceptions=False) as client:
            chat = client.post("/v1/chat/completions", json=CHAT, headers=AUTH)
            check = client.post("/v1/guard/check", json={"text": ANSWER, "factdebate": FAST}, headers=AUTH)
            verify = client.post("/v1/verify", json={"claim": "Paris is in France."}, headers=AUTH)
    assert chat.status_code == 200, chat.text
    assert chat.json()["choices"][0]["message"]["content"].startswith(ANSWER), chat.text  # the upstream's words
    assert chat.json()["factdebate"]["degraded"] is True, chat.text
    assert check.status_code == 200 and check.json()["degraded"] is True, check.text
    assert "unusable response body: the answer" in check.json()["degraded_reason"], check.text
    assert verify.status_code == 502 and "unusable response body" in verify.json()["detail"], verify.text
    assert "Internal" not in verify.text and "Traceback" not in verify.text
    assert checker.requests >= 1
