"""A checker that echoes the operator's key and internal host URL-encoded, in hex and in base64 (short, and inside a
longer payload at each byte alignment) hands none of them to a caller, on the faces a caller reads: /v1/verify and
its stream, /v1/check-response, /v1/guard/check, the chat proxy plain and streamed, the LiteLLM route and the kept
checks. Each face still says what failed. (The key as sent: tests/server/test_echoed_secrets.py.)"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import AUTH, AppFactory, LiveServer, parse_sse
from tests.server.guard_support import ANSWER, Upstream, upstream_app
from tests.server.secret_forms import gives_away, written
from tests.server.test_echoed_secrets import ECHOED, EchoServer, echo, operator_env  # noqa: F401 - the fixtures

CHECKER_KEY = "Op3r/t0r+Key=Secret2026"  # the key the checker is sent, and echoes
HOST = "gw-node-3.corp.internal:8443"
FAST = {"tier": "fast", "method": "single"}
CHECKER = {"llm": "openai:gpt-echo", "agents": ["none", "none"], "scoring": False, "cache": False, "rounds": 1}
ENCODED = [name for name in written(CHECKER_KEY) if name != "as is"]


def echoed_where() -> str:
    """Where the echoing checker says it is: its host, and the key it was sent in every encoding."""
    key, host = written(CHECKER_KEY), written(HOST)
    return f"{host['url']} (" + ", ".join(f"{name} {key[name]}" for name in ENCODED) + f"; {host['base64 alone']})"


def test_every_face_hides_a_key_and_host_a_checker_echoes_encoded(
        make_app: AppFactory, operator_env: EchoServer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    checker = operator_env
    monkeypatch.setenv("OPENAI_API_KEY", CHECKER_KEY)
    monkeypatch.setenv("GATEWAY_URL", f"https://{HOST}/v1")  # the operator's environment names the host
    checker.answer_from(echoed_where())
    upstream = LiveServer(upstream_app(Upstream())).__enter__()
    try:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        app = make_app(defaults=CHECKER, rate_limit_per_minute=0)
        texts: dict[str, str] = {}
        with TestClient(app) as client:
            texts["verify"] = client.post("/v1/verify", json={"claim": "Paris is in France."}, headers=AUTH).text
            stream = client.post("/v1/verify/stream", json={"claim": "Paris is in France."}, headers=AUTH)
            assert [name for name, _ in parse_sse(stream.text)][-1] == "error", stream.text
            texts["verify/stream"] = stream.text
            response = client.post("/v1/check-response", headers=AUTH, json={
                "response": "Paris is in France. The Eiffel Tower is in Rome.", "method": "single"})
            texts["check-response"] = response.text
            guard = client.post("/v1/guard/check", headers=AUTH, json={"text": ANSWER, "factdebate": FAST})
            texts["guard/check"] = guard.text
            chat = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}], "factdebate": FAST}
            plain = client.post("/v1/chat/completions", json=chat, headers=AUTH)
            texts["chat"] = plain.text
            texts["chat stream"] = client.post("/v1/chat/completions", json={**chat, "stream": True},
                                               headers={**AUTH, "X-Factdebate-Verdicts": "each"}).text
            texts["litellm"] = client.post("/beta/litellm_basic_guardrail_api", headers=AUTH, json={
                "input_type": "response", "texts": [ANSWER], "additional_provider_specific_params": FAST}).text
            kept = [guard.headers.get("X-Factdebate-Check-Id"), plain.headers.get("X-Factdebate-Check-Id"),
                    response.headers.get("X-Check-Id")]
            texts["kept checks"] = "\n".join(client.get(f"/v1/checks/{check}", headers=AUTH).text
                                             for check in kept if check)
    finally:
        upstream.__exit__()
    assert CHECKER_KEY in checker.keys  # the checker was sent the key, and echoed it in every encoding
    for face, text in texts.items():
        for secret in (CHECKER_KEY, HOST):
            assert gives_away(secret, text) is None, (face, secret, gives_away(secret, text), text[:3000])
        assert "gw-node-3" not in text, (face, text[:3000])
        assert ECHOED in text, f"{face} no longer says what failed: {text[:2000]}"
