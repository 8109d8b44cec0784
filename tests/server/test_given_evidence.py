"""The caller's own evidence on the existing faces: /v1/verify, /v1/check-response, their streams and the
MCP tools read it (given, or first then retrieval), bounded and checked like every other field."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.methods import Resources
from factdebate.settings.model import Settings
from tests.server.conftest import AUTH, AppFactory, offline_build, parse_sse

BOT = [{"title": "Bot notes", "text": "The Eiffel Tower stands on the Champ de Mars.", "url": "https://bot.example/1"}]
TEXT = "The Eiffel Tower is in Paris. It opened in 1889."


def _backend() -> ScriptedBackend:
    agree = protocol_responder(False)

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("claims_extract"):
            return json.dumps({"claims": ["The Eiffel Tower is in Paris.", "The Eiffel Tower opened in 1889."]})
        return agree(call, messages, params)

    return ScriptedBackend(respond)


def _app(make_app: AppFactory, backend: ScriptedBackend) -> Any:
    def build(settings: Settings) -> Resources:
        return offline_build(settings, backend)

    return make_app(build=build)


def _prompts(backend: ScriptedBackend, prompt: str) -> list[str]:
    return [m[0]["content"] for info, m in backend.calls if info.prompt == prompt]


def test_verify_and_check_response_read_the_callers_evidence(make_app: AppFactory) -> None:
    backend = _backend()
    with TestClient(_app(make_app, backend)) as client:
        verdict = client.post("/v1/verify", headers=AUTH, json={"claim": "The Eiffel Tower is in Paris.",
                                                                "method": "single", "evidence": BOT})
        assert verdict.status_code == 200, verdict.text
        assert _prompts(backend, "single") and all("Champ de Mars" in p for p in _prompts(backend, "single"))
        backend.calls.clear()
        checked = client.post("/v1/check-response", headers=AUTH,
                              json={"response": TEXT, "method": "single", "evidence": BOT, "evidence_mode": "given"})
        assert checked.status_code == 200, checked.text
        assert len(_prompts(backend, "single")) == 2 and all("Champ de Mars" in p for p in _prompts(backend, "single"))
        body = checked.json()
        for claim in body["claims"]:  # the service says where each claim is
            assert claim["span"] is not None or claim["span_note"]
        first = body["claims"][0]
        assert body["response"][first["span"]["start"]:first["span"]["end"]] == "The Eiffel Tower is in Paris."


@pytest.mark.parametrize("route", ["/v1/verify/stream", "/v1/check-response/stream"])
def test_the_streams_show_the_agents_searching_the_callers_passages(make_app: AppFactory, route: str) -> None:
    backend = _backend()
    body: dict[str, Any] = {"method": "tool-mad", "agents": ["rag", "search"], "evidence": BOT,
                            "evidence_mode": "given"}
    body |= {"claim": "The Eiffel Tower is in Paris."} if "verify" in route else {"response": TEXT}
    with TestClient(_app(make_app, backend)) as client:
        stream = client.post(route, headers=AUTH, json=body)
    assert stream.status_code == 200, stream.text
    found = [doc for name, event in parse_sse(stream.text) if name == "tool_call" for doc in event["results"]]
    assert found and {d["title"] for d in found} == {"Bot notes"}


@pytest.mark.parametrize(("body", "needle"), [
    ({"evidence_mode": "given"}, "needs evidence"),
    ({"evidence": [{"text": "x", "colour": "red"}]}, "colour"),
    ({"evidence": [{"text": ""}]}, "evidence"),
    ({"evidence": [{"text": "ok"}] * 51}, "max_evidence_items"),
    ({"evidence": [{"text": "bad \x00 byte"}]}, "control character"),
    ({"evidence": BOT, "evidence_mode": "everything"}, "evidence_mode"),
])
def test_evidence_out_of_bounds_is_refused(make_app: AppFactory, body: dict[str, Any], needle: str) -> None:
    backend = _backend()
    with TestClient(_app(make_app, backend)) as client:
        for route, text in (("/v1/verify", {"claim": "The tower is in Paris."}), ("/v1/check-response",
                                                                                {"response": TEXT})):
            refused = client.post(route, headers=AUTH, json={**text, "method": "single", **body})
            assert refused.status_code == 422 and needle in refused.text, (route, refused.text)
    assert backend.calls == []


def test_a_long_passage_is_accepted_whole(make_app: AppFactory) -> None:
    backend = _backend()
    long = " ".join(["Filler about the weather."] * 400) + " The Eiffel Tower stands on the Champ de Mars."
    with TestClient(_app(make_app, backend)) as client:
        ok = client.post("/v1/verify", headers=AUTH, json={"claim": "The Eiffel Tower is on the Champ de Mars.",
                                                           "method": "single", "evidence": [{"text": long}]})
    assert ok.status_code == 200, ok.text
    assert any("Champ de Mars" in p for p in _prompts(backend, "single"))  # the end of it, ranked for the claim


async def test_mcp_tools_take_evidence() -> None:
    from factdebate.scale.resource_pool import ResourcePool
    from factdebate.server.mcp.server import build_server

    backend = _backend()
    server = build_server(pool=ResourcePool(2, lambda settings: offline_build(settings, backend)))
    await server.call_tool("verify_claim", {"claim": "The Eiffel Tower is in Paris.", "method": "single",
                                            "evidence": BOT, "evidence_mode": "given"})
    assert _prompts(backend, "single") and all("Champ de Mars" in p for p in _prompts(backend, "single"))
    backend.calls.clear()
    result = await server.call_tool("check_response", {"response": TEXT, "method": "single", "evidence": BOT})
    assert all("Champ de Mars" in p for p in _prompts(backend, "single"))
    payload = result.structured_content if hasattr(result, "structured_content") else None
    text = json.dumps(payload if payload is not None else [c.model_dump() for c in result])  # type: ignore[union-attr]
    assert '"span"' in text


def test_every_evidence_mode_searches_the_same_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    import factdebate.scale.resource_pool as module
    from factdebate.settings.load import load_settings

    made: list[str] = []
    monkeypatch.setattr(module, "make_tool", lambda kind, settings: made.append(kind) or object())
    pool = module.ResourcePool(4)
    base = load_settings(environ={})
    for mode in ("retrieved", "both", "given"):
        pool.tool("search", base.model_copy(update={"retrieval": base.retrieval.model_copy(update={"evidence": mode})}))
    assert made == ["search"]  # one engine (one open index) whatever the request's evidence mode
