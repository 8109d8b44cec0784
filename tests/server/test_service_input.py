"""Every text a caller sends is checked once, at the edge (clean text, bounded length), and a debate slot is
given back whatever happens to a stream: a bad ``question``, an unencodable event or a fault in the middle
of a run can no longer leave a slot taken (after ``max_active_runs`` of them, every caller got 503)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.core.runtime import EventSink
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.resources import Resources
from factdebate.run.build import build_resources
from factdebate.settings.model import Settings
from factdebate.util.errors import InputError
from tests.cli.test_exits import call
from tests.helpers import BagOfWordsEncoder, StaticTool
from tests.server.conftest import AUTH, AppFactory, parse_sse

TEXT = "Paris is the capital of France."
JSON = {**AUTH, "Content-Type": "application/json"}
SURROGATE_QUESTION = '{"response": "Paris is the capital of France.", "question": "Where \\ud800?"}'


def active_runs(client: TestClient) -> int:
    return int(client.get("/v1/health").json()["active_runs"])


@pytest.mark.parametrize("route", ["/v1/check-response", "/v1/check-response/stream"])
def test_a_bad_question_is_a_422_and_holds_no_slot(make_app: AppFactory, route: str) -> None:
    with TestClient(make_app(defaults={"llm": "scripted:agree", "method": "single", "cache": False}),
                    raise_server_exceptions=False) as client:
        surrogate = client.post(route, content=SURROGATE_QUESTION, headers=JSON)
        huge = client.post(route, json={"response": TEXT, "question": "why " * 2000}, headers=AUTH)
        blank = client.post(route, json={"response": TEXT, "question": "  ", "method": "single"}, headers=AUTH)
        assert active_runs(client) == 0
    assert surrogate.status_code == 422 and "question" in surrogate.json()["detail"]
    assert "not valid text" in surrogate.json()["detail"]
    assert huge.status_code == 422
    assert "question is 7999 characters long; the limit is 2000" in huge.json()["detail"]
    assert blank.status_code == 200  # a blank question is no question


@pytest.mark.parametrize("option", [{"method": "\ud800"}, {"llm": "x\ud800"}, {"exclude_domains": ["a\udcff.org"]},
                                    {"dpd_judges": ["j\ud800"]}, {"search_before": "2020\ud800"},
                                    {"llm": "m" * 600}])
def test_every_text_option_is_checked_like_the_claim(make_app: AppFactory, option: dict[str, Any]) -> None:
    with TestClient(make_app(), raise_server_exceptions=False) as client:
        # json.dumps escapes a surrogate as \\ud800: valid JSON, as a hostile client would send it.
        answers = [client.post("/v1/verify", content=json.dumps({"claim": TEXT, **option}), headers=JSON),
                   client.post("/v1/check-response/stream", content=json.dumps({"response": TEXT, **option}),
                               headers=JSON)]
        assert active_runs(client) == 0
    for answer in answers:
        assert answer.status_code == 422, answer.text
        name = next(iter(option))
        assert name in answer.json()["detail"] and ("not valid text" in answer.text or "limit is" in answer.text)


def _faulty_run(fault: str) -> Callable[..., Any]:
    """A run that streams a few events, then fails the way ``fault`` says."""

    async def run(*args: Any, sinks: list[EventSink] | None = None, **kwargs: Any) -> Any:
        for sink in sinks or []:
            sink({"event": "run_started", "claim": TEXT, "method": "single"})
            sink({"event": "turn_started", "agent": "a", "round": 1})
            if fault == "unencodable":  # an event that no UTF-8 stream can write
                sink({"event": "answer", "agent": "a", "round": 1, "response": "bad \ud800 text"})
        if fault == "raise":
            raise KeyError("a bug in the middle of the run")
        raise ZeroDivisionError("after the unencodable event")

    return run


@pytest.mark.parametrize("fault", ["raise", "unencodable"])
@pytest.mark.parametrize(("route", "target", "body"), [
    ("/v1/verify/stream", "factdebate.server.routes.verify.run_claim", {"claim": TEXT}),
    # the one call every door of check-response makes
    ("/v1/check-response/stream", "factdebate.guard_engine.call.check_response_text", {"response": TEXT}),
])
def test_a_fault_mid_stream_ends_with_an_error_event_and_frees_the_slot(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, fault: str, route: str, target: str,
        body: dict[str, Any]) -> None:
    module, name = target.rsplit(".", 1)
    monkeypatch.setattr(importlib.import_module(module), name, _faulty_run(fault))
    with TestClient(make_app(max_active_runs=2), raise_server_exceptions=False) as client:
        streams = [client.post(route, json=body, headers=AUTH) for _ in range(3)]  # more than max_active_runs
        assert active_runs(client) == 0
    for stream in streams:
        assert stream.status_code == 200
        events = parse_sse(stream.text)
        assert [name for name, _ in events][:2] == ["run_started", "turn_started"]
        assert events[-1][0] == "error" and events[-1][1]["type"] == "internal", events
        assert "bug" not in stream.text and "\ud800" not in stream.text


def test_cli_question_is_checked_before_any_model_call(capsys: pytest.CaptureFixture[str]) -> None:
    for question, needle in (("where\udc80", "not valid text"), ("why " * 600, "the limit is 2000")):
        code, err = call(capsys, "check-response", TEXT, "--question", question, "--llm", "scripted:agree",
                         "--method", "single", "--no-cache")
        assert code == 2, err
        assert needle in err and "internal error" not in err and len(err.strip().splitlines()) == 1, err


def test_python_api_refuses_a_bad_question() -> None:
    from factdebate.api import check_response

    with pytest.raises(InputError, match="question"):
        check_response(TEXT, question="x\ud800", llm="scripted:agree", method="single", cache=False)


async def test_mcp_tool_refuses_a_huge_question_without_calling_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")
    from mcp.server.mcpserver.exceptions import ToolError

    from factdebate.scale.resource_pool import ResourcePool
    from factdebate.server.mcp.server import build_server

    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree")
    backend = ScriptedBackend(lambda *_: '{"claims": ["Paris is the capital of France."]}')

    def build(settings: Settings) -> Resources:
        return build_resources(settings, backends={"debater": backend}, encoder_factory=BagOfWordsEncoder,
                               tool_factory=lambda kind: StaticTool(kind))

    server = build_server(pool=ResourcePool(2, build))
    for question, needle in (("q" * 800_000, "the limit is 2000"), ("x\ud800", "not valid text")):
        with pytest.raises(ToolError) as info:
            await server.call_tool("check_response", {"response": TEXT, "question": question, "method": "single"})
        assert "question" in str(info.value) and needle in str(info.value)
    with pytest.raises(ToolError, match="not valid text"):
        await server.call_tool("search_evidence", {"query": "x\ud800"})
    assert backend.calls == []
