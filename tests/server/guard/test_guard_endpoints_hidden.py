"""The chat guard's routes do not tell a caller where the operator's servers are: an
unreachable upstream, an upstream's error that names its address, a checker model server that cannot be
reached (for the extraction, for a claim) — on /v1/chat/completions plain and streamed, /v1/guard/check and
/beta/litellm_basic_guardrail_api, in the reply and in the kept check — each says what failed, never the
address; the server's log keeps it."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest

from factdebate.core.errors import EndpointUnavailableError
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import script
from tests.server.conftest import AUTH, closed_port
from tests.server.guard.test_guard_chat import FAST, PARIS, ROME, Guard, guard  # noqa: F401 - the fixture
from tests.server.guard_support import ANSWER, Upstream

CHAT = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}], "factdebate": FAST}


class DeadModelServer(ScriptedBackend):
    """A checker model server that cannot be reached: for every call, or (``extracts``) for every call but the
    claims' extraction."""

    def __init__(self, extracts: bool) -> None:
        answer = script(claims=[PARIS, ROME])
        self.address = f"http://127.0.0.1:{closed_port()}/v1"

        def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
            if extracts and call.prompt.split(":")[0] == "claims_extract":
                return str(answer(call, messages, params))
            raise EndpointUnavailableError(self.address, 1, "ConnectError: [Errno 111] Connection refused")

        super().__init__(respond)


def _host_port(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[0]


def _guarded_texts(server: Any) -> dict[str, str]:
    """Every guard route's answer to the same reply (the chat routes ask the upstream for it)."""
    chat = httpx.post(f"{server.url}/v1/chat/completions", json=CHAT, headers=AUTH, timeout=60)
    streamed = httpx.post(f"{server.url}/v1/chat/completions", json={**CHAT, "stream": True}, timeout=60,
                          headers={**AUTH, "X-Factdebate-Verdicts": "each"})
    check = httpx.post(f"{server.url}/v1/guard/check", json={"text": ANSWER, "factdebate": FAST}, headers=AUTH,
                       timeout=60)
    litellm = httpx.post(f"{server.url}/beta/litellm_basic_guardrail_api", headers=AUTH, timeout=60,
                         json={"input_type": "response", "texts": [ANSWER],
                               "additional_provider_specific_params": FAST})
    replies = {"chat": chat, "stream": streamed, "check": check, "litellm": litellm}
    for name, reply in replies.items():
        assert reply.status_code == 200, (name, reply.text)
    kept = [httpx.get(f"{server.url}/v1/checks/{reply.headers['X-Factdebate-Check-Id']}", headers=AUTH,
                      timeout=30).text for reply in (chat, check, litellm)]
    return {**{name: reply.text for name, reply in replies.items()}, "kept": "\n".join(kept)}


@pytest.mark.parametrize("extracts", [False, True], ids=["extraction", "claims"])
def test_a_dead_checker_model_server_is_named_by_what_failed(guard: Guard, extracts: bool,  # noqa: F811
                                                             caplog: pytest.LogCaptureFixture) -> None:
    dead = DeadModelServer(extracts)
    server, _ = guard(backend=dead)
    caplog.set_level(logging.WARNING, logger="factdebate.server")
    texts = _guarded_texts(server)
    for name, text in texts.items():
        assert _host_port(dead.address) not in text, name
        assert "the operator's endpoint" in text, (name, text[:2000])
    if not extracts:  # the extraction failed: the check says so
        found = json.loads(texts["check"])
        assert found["degraded"] and found["degraded_reason"].startswith("the claims could not be extracted: "
                                                                         "could not reach the operator's endpoint")
    else:  # the claims failed: each says so, its verdict chunk on the stream too
        found = json.loads(texts["check"])
        assert {c["status"] for c in found["claims"]} == {"error"}
        assert all("could not reach the operator's endpoint" in (c["reason"] or "") for c in found["claims"])
        chunks = [json.loads(line[6:]) for line in texts["stream"].splitlines()
                  if line.startswith("data: {")]
        verdicts = [chunk for chunk in chunks if "factdebate_claim" in chunk]
        assert verdicts and all("the operator's endpoint" in v["factdebate_claim"]["reason"] for v in verdicts)
    assert dead.address in caplog.text  # the operator's to see


def test_an_unreachable_upstream_says_so_without_its_address(guard: Guard,  # noqa: F811
                                                              caplog: pytest.LogCaptureFixture) -> None:
    address = f"http://127.0.0.1:{closed_port()}/v1"
    server, _ = guard(upstream_url=address)
    caplog.set_level(logging.WARNING, logger="factdebate.server")
    plain = httpx.post(f"{server.url}/v1/chat/completions", json=CHAT, headers=AUTH, timeout=60)
    streamed = httpx.post(f"{server.url}/v1/chat/completions", json={**CHAT, "stream": True}, headers=AUTH,
                          timeout=60)
    for reply in (plain, streamed):
        assert reply.status_code == 502 and reply.json()["error"]["code"] == "upstream_unreachable"
        assert _host_port(address) not in reply.text
        assert reply.json()["error"]["message"] == "the operator's upstream model could not be reached (ConnectError)"
    # rewrite asks the upstream to revise: the check's route says the revision failed, not where it was sent.
    for url, body in [(f"{server.url}/v1/guard/check", {"text": ANSWER, "factdebate": {**FAST, "policy": "rewrite"}}),
                      (f"{server.url}/beta/litellm_basic_guardrail_api",
                       {"input_type": "response", "texts": [ANSWER],
                        "additional_provider_specific_params": {**FAST, "policy": "rewrite"}})]:
        reply = httpx.post(url, json=body, headers=AUTH, timeout=60)
        assert _host_port(address) not in reply.text, reply.text
        assert "could not be reached" in reply.text, reply.text
    assert _host_port(address) in caplog.text


def test_an_upstreams_own_error_loses_the_addresses_it_names(guard: Guard) -> None:  # noqa: F811
    behind = "http://10.1.2.3:8000/v1/chat/completions"
    error = {"error": {"message": f"proxy: {behind} answered 500", "type": "server_error", "code": None}}
    server, _ = guard(Upstream(fail=(500, error)))
    for stream in (False, True):
        reply = httpx.post(f"{server.url}/v1/chat/completions", json={**CHAT, "stream": stream}, headers=AUTH,
                           timeout=60)
        assert reply.status_code == 500 and "10.1.2.3" not in reply.text
        assert reply.json()["error"]["message"] == "proxy: the operator's endpoint answered 500"
