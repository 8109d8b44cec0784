"""The /v1 API against the app in-process."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from factdebate.server.app import create_app
from factdebate.util.errors import FactDebateError
from tests.server.conftest import AUTH, KEY, PLAIN, AppFactory, offline_build, parse_sse


def test_health_needs_no_key(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        body = client.get("/v1/health").json()
    assert body["status"] == "ok" and body["auth"] == "required"


def test_methods_lists_catalogue_and_defaults(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        body = client.get("/v1/methods", headers=AUTH).json()
    assert "tool-mad" in [m["name"] for m in body["methods"]]
    assert body["llms"] == ["scripted:disagree"]
    assert body["defaults"]["agents"] == ["none", "none"]
    assert body["defaults"]["max_claim_chars"] == 2000
    # each method's form comes from its settings model
    (mad,) = [m for m in body["methods"] if m["name"] == "mad"]
    assert [o["name"] for o in mad["options"]] == ["mad_rounds"] and mad["options"][0]["value_schema"]["maximum"] == 10


def test_verify_returns_the_verdict_json(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        response = client.post("/v1/verify", json={"claim": "The sky is blue.", "rounds": 2}, headers=AUTH)
    assert response.status_code == 200
    verdict = response.json()
    assert verdict["claim"] == "The sky is blue."
    assert verdict["decided_by"] == "judge" and verdict["label"] == "SUPPORTS"
    assert len(verdict["rounds"]) == 2
    assert [t["label"] for t in verdict["rounds"][0]["turns"]] == ["SUPPORTS", "REFUTES"]


def test_an_offered_model_with_an_endpoint_of_the_callers_is_refused_in_words_that_do_not_contradict(
        make_app: AppFactory) -> None:
    with TestClient(make_app(allowed_llms=["openai:fake-model"])) as client:
        response = client.post("/v1/verify", headers=AUTH, json={
            "claim": "The Eiffel Tower was completed in 1889.", "llm": "openai:fake-model@http://10.1.2.3:8000/v1"})
    detail = response.json()["detail"]
    assert response.status_code == 422, detail
    assert detail.startswith("model 'openai:fake-model' with an endpoint of the request's own is not offered: where "
                             "a model runs is the operator's to set; choose one of: "), detail
    assert detail.endswith("openai:fake-model")
    assert "10.1.2.3" not in detail


def test_verify_with_tools_and_scores(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        response = client.post("/v1/verify", headers=AUTH, json={
            "claim": "The Eiffel Tower was completed in 1889.", "agents": ["rag", "search"], "scoring": True,
            "llm": "scripted:agree"})
    # scripted:agree is not offered by this server: only the configured model is
    assert response.status_code == 422 and "not offered" in response.json()["detail"]
    with TestClient(make_app(allowed_llms=["scripted:agree"])) as client:
        response = client.post("/v1/verify", headers=AUTH, json={
            "claim": "The Eiffel Tower was completed in 1889.", "agents": ["rag", "search"], "scoring": True,
            "llm": "scripted:agree"})
    verdict = response.json()
    assert response.status_code == 200, verdict
    turn = verdict["rounds"][0]["turns"][0]
    assert turn["evidence"][0]["source"].startswith("https://")
    assert turn["scores"]["faithfulness"] is not None and turn["scores"]["answer_relevance"] is not None


def test_stream_sends_every_step_then_the_result(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client, client.stream(
            "POST", "/v1/verify/stream", json={"claim": "Water boils at 100 C.", "rounds": 2}, headers=AUTH) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = parse_sse("".join(r.iter_text()))
    names = [name for name, _ in events]
    assert names[0] == "run_started" and names[-1] == "result"
    assert names.count("turn_started") == 4 and names.count("answer") == 4 and names.count("round") == 2
    assert "verdict" in names and "run_finished" in names
    verdict = events[-1][1]
    assert verdict["decided_by"] == "judge" and len(verdict["rounds"]) == 2


def test_stream_reports_a_failure_as_an_error_event(tmp_path: object, make_app: AppFactory) -> None:
    class BrokenTool:
        name = "broken"

        async def search(self, query: str, k: int) -> list[object]:
            raise FactDebateError("the search index is unavailable")

    def build(settings: object) -> object:
        resources = offline_build(settings)  # type: ignore[arg-type]
        resources.tool_factory = lambda kind: BrokenTool()  # type: ignore[assignment,return-value]
        return resources

    app = make_app(build=build)
    with TestClient(app) as client, client.stream(
            "POST", "/v1/verify/stream", json={"claim": "x is y", "agents": ["rag", "none"]}, headers=AUTH) as r:
        events = parse_sse("".join(r.iter_text()))
    assert events[-1] == ("error", {"type": "FactDebateError", "message": "the search index is unavailable"})
    with TestClient(app) as client:
        plain = client.post("/v1/verify", json={"claim": "x is y", "agents": ["rag", "none"]}, headers=AUTH)
    assert plain.status_code == 500 and plain.json()["detail"] == "the search index is unavailable"


def test_validation_errors_are_readable(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        empty = client.post("/v1/verify", json={"claim": "   "}, headers=AUTH)
        unknown = client.post("/v1/verify", json={"claim": "a", "temperature": 2}, headers=AUTH)
        bad_method = client.post("/v1/verify", json={"claim": "a", "method": "astrology"}, headers=AUTH)
        bad_rounds = client.post("/v1/verify", json={"claim": "a", "rounds": 99}, headers=AUTH)
        no_claim = client.post("/v1/verify", json={}, headers=AUTH)
    assert empty.status_code == 422 and "empty" in empty.json()["detail"]
    assert unknown.status_code == 422 and "temperature" in unknown.json()["detail"]
    assert bad_method.status_code == 422 and "unknown method 'astrology'" in bad_method.json()["detail"]
    assert bad_rounds.status_code == 422 and "rounds" in bad_rounds.json()["detail"]
    assert no_claim.status_code == 422 and "claim" in no_claim.json()["detail"]
    assert "input" not in str(no_claim.json()["errors"])


def test_operator_only_options_are_refused(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        for option in ({"milvus_uri": "http://elsewhere:19530"}, {"max_claim_chars": 10**6}, {"cache": True},
                       {"corpus": "../../etc"}):
            response = client.post("/v1/verify", json={"claim": "a", **option}, headers=AUTH)
            assert response.status_code == 422, option


def test_page_docs_and_schema_are_served(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        page = client.get("/")
        script = client.get("/static/api.js")
        layout = client.get("/static/layouts/teams.js")  # modules in subfolders are served too
        docs = client.get("/docs")
        schema = client.get("/openapi.json").json()
    assert page.status_code == 200 and "factdebate" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert script.status_code == 200 and "readSSE" in script.text
    assert "javascript" in script.headers["content-type"]  # what the browser needs to run it as a module
    assert layout.status_code == 200 and "registerMethodView" in layout.text
    assert docs.status_code == 200 and "docs.js" in docs.text
    assert {"/v1/verify", "/v1/verify/stream", "/v1/batches", "/v1/batches/{batch_id}", "/v1/health",
            "/v1/methods", "/v1/views", "/v1/verdicts/upgrade"} <= set(schema["paths"])


def test_cors_is_off_unless_configured(make_app: AppFactory) -> None:
    preflight = {"Origin": "https://chat.example", "Access-Control-Request-Method": "POST"}
    with TestClient(make_app()) as client:
        assert "access-control-allow-origin" not in client.options("/v1/verify", headers=preflight).headers
    with TestClient(make_app(cors_origins=["https://chat.example"])) as client:
        headers = client.options("/v1/verify", headers=preflight).headers
    assert headers["access-control-allow-origin"] == "https://chat.example"


def test_keys_come_from_the_environment(monkeypatch: object, tmp_path: object) -> None:
    monkeypatch.setenv("FACTDEBATE_API_KEYS", f" other , {KEY} ")  # type: ignore[attr-defined]
    app = create_app(defaults=PLAIN, db_path=tmp_path / "db.sqlite", build=offline_build)  # type: ignore[operator]
    with TestClient(app) as client:
        assert client.get("/v1/methods", headers=AUTH).status_code == 200
        assert client.get("/v1/methods", headers={"Authorization": "Bearer other"}).status_code == 200
        assert client.get("/v1/methods", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_resources_are_cached_per_distinct_settings(make_app: AppFactory) -> None:
    app = make_app(resource_cache_size=2)
    service = app.state.service
    with TestClient(app) as client:
        for rounds in (1, 1, 2, 3, 3):
            client.post("/v1/verify", json={"claim": "a b", "rounds": rounds}, headers=AUTH)
    assert len(service.pool) == 2


def test_operator_secrets_in_settings_are_not_echoed(make_app: AppFactory) -> None:
    defaults = {**PLAIN, "milvus_uri": "https://user:secret@milvus.internal:19530"}
    with TestClient(make_app(defaults=defaults)) as client:
        verdict = client.post("/v1/verify", json={"claim": "a b", "rounds": 1}, headers=AUTH).json()
    assert "secret" not in json.dumps(verdict)
    assert "milvus_uri" not in verdict["config"]["retrieval"]  # operator-only: not in the caller's view at all


class _Session:
    closed = False

    async def aclose(self) -> None:
        self.closed = True


def test_services_are_shared_by_all_settings_and_closed_with_the_app(make_app: AppFactory) -> None:
    import asyncio

    from factdebate.settings.load import load_settings

    app = make_app()
    service = app.state.service
    session = _Session()
    with TestClient(app):
        first = service.resources(load_settings(overrides={"method": "cot"}, environ={}))
        second = service.resources(load_settings(overrides={"method": "mad"}, environ={}))
        assert first is not second and first.services is second.services
        assert asyncio.run(first.service("session", lambda: session)) is session
        assert not session.closed
    assert session.closed


def test_views_need_no_key_and_old_verdicts_are_upgraded_by_the_server(make_app: AppFactory) -> None:
    old = {"claim": "c", "method": "vote", "label": "SUPPORTS", "decided_by": "consensus", "rounds": [],
           "judge": {"response": "votes: SUPPORTS 3", "label": "SUPPORTS"}}
    with TestClient(make_app()) as client:
        views = client.get("/v1/views").json()
        refused = client.post("/v1/verdicts/upgrade", json={"records": [old]})
        upgraded = client.post("/v1/verdicts/upgrade", json={"records": [old]}, headers=AUTH).json()["records"]
    assert views["methods"]["dpd"]["layout"] == "teams" and views["methods"]["tool-mad"]["layout"] == "debate"
    assert views["methods"]["dpd"]["ballot"]["C"] == "Logical consistency"
    assert views["label_aliases"]["NEI"] == "NOT ENOUGH INFO"
    assert refused.status_code == 401
    assert upgraded == [{**{k: v for k, v in old.items() if k != "judge"}, "judges": [], "decided_by": "vote",
                         "explanation": "votes: SUPPORTS 3", "schema_version": 2}]
