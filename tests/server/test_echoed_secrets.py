"""A checker, a guard upstream, a search engine and an MCP server that each answer with an error
quoting the key they were sent and an internal host ("Incorrect API key provided: <key>. You can find your key at
gw-node-3.corp.internal:8443") hand neither to a caller, on any face: /v1/verify's 5xx, /v1/verify/stream's error
event, /v1/check-response, a batch's results, kept checks, /v1/guard/check's degraded_reason, the chat proxy's
``factdebate`` object (plain and streamed) and its passed-on upstream error, the LiteLLM route, ``mcp --http`` and
the MCP tools of the stdio front, and the CLI's error lines. Each face is asserted on the text the client
receives, and each must still say what failed (the echoed sentence, with the key masked)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from factdebate.cli.main import run
from factdebate.run.build import build_resources, make_tool
from factdebate.settings.model import Settings
from factdebate.tools.tavily import TavilyTool
from tests.helpers import BagOfWordsEncoder
from tests.server.conftest import AUTH, KEY, AppFactory, LiveServer, parse_sse
from tests.server.guard_support import ANSWER, Upstream, upstream_app

CHECKER_KEY = "chk-operator-Zx81Qw27Lm55"  # not shaped like any provider's key: only its value gives it away
UPSTREAM_KEY = "sk-upstream-0a1b2c3d4e5f6789"
SEARCH_KEY = "tvly-operator-5566778899aabb"
MCP_KEY = "wiki-env-value-31415926"
INTERNAL = "gw-node-3.corp.internal:8443"
# How a gateway may name where it is: an internal name, a bare host:port (a compose service, a name in the
# operator's search domain), a private IP with its port. None of them may reach a caller.
WHERE = (INTERNAL, "gw-node-3:8443", "10.20.30.40:8443")
MCP_HOST = "wiki-db.corp.internal:5433"
ECHOED = "Incorrect API key provided"
ECHO_MCP = Path(__file__).parent / "mcp" / "echo_mcp_server.py"
FAST = {"tier": "fast", "method": "single"}


class _Echo(BaseHTTPRequestHandler):
    """Every request answered in OpenAI's error shape, quoting the key it came with and an internal host: 401 to a
    call, 404 to a listing (a gateway without a model list: a run's start-up probe takes it for running)."""

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        key = (self.headers.get("authorization") or "").removeprefix("Bearer ").strip()
        self.server.keys.add(key)  # type: ignore[attr-defined]
        where = self.server.where  # type: ignore[attr-defined]
        body = json.dumps({"error": {"message": f"{ECHOED}: {key}. You can find your key at {where}",
                                     "type": "invalid_request_error", "param": None,
                                     "code": "invalid_api_key"}}).encode()
        self.send_response(401 if self.command == "POST" else 404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


class EchoServer:
    def __init__(self) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
        self.httpd.keys = set()  # type: ignore[attr-defined]
        self.httpd.where = INTERNAL  # type: ignore[attr-defined]
        self.address = f"127.0.0.1:{self.httpd.server_address[1]}"
        self.url = f"http://{self.address}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def keys(self) -> set[str]:
        return self.httpd.keys  # type: ignore[attr-defined]

    def answer_from(self, where: str) -> None:
        """The address its errors name from now on."""
        self.httpd.where = where  # type: ignore[attr-defined]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def echo() -> Iterator[EchoServer]:
    server = EchoServer()
    yield server
    server.close()


@pytest.fixture
def operator_env(echo: EchoServer, monkeypatch: pytest.MonkeyPatch) -> EchoServer:
    """The checker (OPENAI_BASE_URL) and the search engine's key point at the echoing server."""
    monkeypatch.setenv("OPENAI_BASE_URL", f"{echo.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", CHECKER_KEY)
    monkeypatch.setenv("TAVILY_API_KEY", SEARCH_KEY)
    echo.answer_from(INTERNAL)
    return echo


def assert_private(name: str, text: str, *hosts: str) -> None:
    for secret in (CHECKER_KEY, UPSTREAM_KEY, SEARCH_KEY, MCP_KEY, *WHERE, "gw-node-3", "10.20.30.40", MCP_HOST,
                   "wiki-db", "10.0.3.7", "corp.internal", *hosts):
        assert secret not in text, f"{name}: {secret} reached the caller: {text[:3000]}"


CHECKER = {"llm": "openai:gpt-echo", "agents": ["none", "none"], "scoring": False, "cache": False, "rounds": 1}


@pytest.mark.parametrize("where", WHERE)
def test_every_face_of_the_service_hides_what_a_checker_echoes(make_app: AppFactory, operator_env: EchoServer,
                                                             wait_for: Callable[..., None], where: str) -> None:
    echo = operator_env
    echo.answer_from(where)
    upstream = LiveServer(upstream_app(Upstream())).__enter__()  # a working upstream: the checker fails
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
            app = make_app(defaults=CHECKER, rate_limit_per_minute=0)
        texts: dict[str, str] = {}
        with TestClient(app) as client:
            verify = client.post("/v1/verify", json={"claim": "Paris is in France."}, headers=AUTH)
            assert verify.status_code >= 500, verify.text
            texts["verify"] = verify.text
            stream = client.post("/v1/verify/stream", json={"claim": "Paris is in France."}, headers=AUTH)
            assert [name for name, _ in parse_sse(stream.text)][-1] == "error", stream.text
            texts["verify/stream"] = stream.text
            response = client.post("/v1/check-response", headers=AUTH, json={
                "response": "Paris is in France. The Eiffel Tower is in Rome.", "method": "single"})
            texts["check-response"] = response.text
            texts["check-response/stream"] = client.post("/v1/check-response/stream", headers=AUTH, json={
                "response": "Paris is in France. The Eiffel Tower is in Rome.", "method": "single"}).text
            batch = client.post("/v1/batches", content='{"claim": "Paris is in France."}', headers=AUTH).json()
            wait_for(lambda: client.get(f"/v1/batches/{batch['id']}", headers=AUTH).json()["status"] == "done")
            texts["batch results"] = client.get(f"/v1/batches/{batch['id']}/results", headers=AUTH).text
            guard = client.post("/v1/guard/check", headers=AUTH, json={"text": ANSWER, "factdebate": FAST})
            assert guard.json()["degraded"], guard.text
            texts["guard/check"] = guard.text
            chat = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}], "factdebate": FAST}
            plain = client.post("/v1/chat/completions", json=chat, headers=AUTH)
            assert plain.json()["factdebate"]["degraded"], plain.text
            texts["chat"] = plain.text
            texts["chat stream"] = client.post("/v1/chat/completions", json={**chat, "stream": True},
                                               headers={**AUTH, "X-Factdebate-Verdicts": "each"}).text
            texts["litellm"] = client.post("/beta/litellm_basic_guardrail_api", headers=AUTH, json={
                "input_type": "response", "texts": [ANSWER], "additional_provider_specific_params": FAST}).text
            kept = [guard.headers.get("X-Factdebate-Check-Id"), plain.headers.get("X-Factdebate-Check-Id"),
                    response.headers.get("X-Check-Id")]
            texts["kept checks"] = "\n".join(client.get(f"/v1/checks/{check}", headers=AUTH).text
                                             for check in kept if check)
            assert kept[0], "the guard's check was not kept"
    finally:
        upstream.__exit__()
    assert CHECKER_KEY in echo.keys  # the checker was asked, with the operator's key, and quoted it
    for face, text in texts.items():
        assert_private(face, text, echo.address)
        assert ECHOED in text, f"{face} no longer says what failed: {text[:2000]}"


@pytest.mark.parametrize("where", WHERE)
def test_a_guard_upstream_that_echoes_its_key_passes_its_error_on_without_it(
        make_app: AppFactory, operator_env: EchoServer, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    echo = operator_env
    echo.answer_from(where)
    monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{echo.url}/v1")
    monkeypatch.setenv("FACTDEBATE_GUARD_UPSTREAM_KEY", UPSTREAM_KEY)
    app = make_app(defaults=CHECKER, rate_limit_per_minute=0)
    chat = {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "factdebate": FAST}
    with TestClient(app) as client:
        replies = [client.post("/v1/chat/completions", json={**chat, "stream": stream}, headers=AUTH)
                   for stream in (False, True)]
    assert UPSTREAM_KEY in echo.keys
    for reply in replies:
        assert reply.status_code == 401, reply.text
        assert_private("upstream error", reply.text, echo.address)
        assert reply.json()["error"]["message"].startswith(f"{ECHOED}: ***. You can find your key at the operator's")


def _search_and_mcp_build(echo: EchoServer) -> Callable[[Settings], Any]:
    def build(settings: Settings, backend: object = None) -> Any:
        def tool(kind: str) -> Any:  # the search engine is Tavily's client, pointed at the echoing server
            return TavilyTool(base_url=echo.url, attempts=1) if kind == "search" else make_tool(kind, settings)

        return build_resources(settings, tool_factory=tool, encoder_factory=BagOfWordsEncoder)

    return build


def test_a_search_engine_and_an_mcp_server_that_echo_their_keys_reach_no_caller(
        make_app: AppFactory, operator_env: EchoServer, tmp_path: Path) -> None:
    echo = operator_env
    mark = tmp_path / "echo-mcp-started"
    config = tmp_path / "settings.yaml"
    config.write_text(yaml.safe_dump({"mcp_servers": {"wiki": {
        "command": sys.executable, "args": [str(ECHO_MCP), str(mark)], "env": {"WIKI_ACCESS": MCP_KEY}}}}),
        encoding="utf-8")
    app = make_app(config_file=config, build=_search_and_mcp_build(echo), allowed_mcp_tools=["mcp:wiki/lookup"],
                   defaults={"llm": "scripted:agree", "scoring": False, "cache": False, "rounds": 1})
    texts: dict[str, str] = {}
    with TestClient(app) as client:
        for name, agents in (("search engine", ["search", "none"]), ("mcp server", ["none", "mcp:wiki/lookup"])):
            claim = {"claim": "Paris is in France.", "agents": agents}
            verdict = client.post("/v1/verify", json=claim, headers=AUTH)
            texts[f"{name}: verify"] = verdict.text
            texts[f"{name}: verify/stream"] = client.post("/v1/verify/stream", json=claim, headers=AUTH).text
            if check := verdict.headers.get("X-Check-Id"):
                texts[f"{name}: kept check"] = client.get(f"/v1/checks/{check}", headers=AUTH).text
    assert SEARCH_KEY in echo.keys and mark.exists()  # both were asked, and both failed quoting what they hold
    for face, text in texts.items():
        assert_private(face, text, echo.address)
    # The search engine's failure fails the claim (a 500, an error event); the MCP tool's is the agent's
    # observation, which the stream shows as its tool_error event; each still says what failed.
    assert ECHOED in texts["search engine: verify"] and ECHOED in texts["search engine: verify/stream"]
    assert "wiki backend refused credential ***" in texts["mcp server: verify/stream"]
    assert "mcp server: kept check" in texts


@pytest.fixture
def mcp_config(tmp_path: Path, operator_env: EchoServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path / "data"))
    config = tmp_path / "settings.yaml"
    config.write_text(yaml.safe_dump({"llm": {"debater": "openai:gpt-echo", "cache": False},
                                      "methods": {"tool-mad": {"agents": ["none", "none"], "rounds": 1,
                                                               "scoring": False}}}), encoding="utf-8")
    return config


async def test_the_mcp_tools_hide_it_over_stdio_and_http(mcp_config: Path, operator_env: EchoServer) -> None:
    import httpx2
    import mcp
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.mcpserver.exceptions import ToolError

    from factdebate.server.mcp.http import http_app
    from factdebate.server.mcp.server import build_server
    from factdebate.server.security import KeyRing

    arguments = {"claim": "Paris is in France."}
    with pytest.raises(ToolError) as failed:  # what the stdio front turns into the client's error result
        await build_server(mcp_config).call_tool("verify_claim", arguments)
    shown = {"stdio": str(failed.value)}
    server = LiveServer(http_app(mcp_config, [], KeyRing([KEY]), "127.0.0.1")).__enter__()
    try:
        keyed = httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(120))
        async with keyed, streamable_http_client(f"{server.url}/mcp", http_client=keyed) as (read, write), \
                mcp.ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("verify_claim", arguments)
        shown["http"] = json.dumps(result.model_dump(mode="json"))
    finally:
        server.__exit__()
    for face, text in shown.items():
        assert_private(f"mcp {face}", text, operator_env.address)
        assert ECHOED in text, (face, text[:2000])


def test_the_clis_error_line_hides_the_key(operator_env: EchoServer, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["verify", "Paris is in France.", "--llm", "openai:gpt-echo", "--agents", "none,none", "--no-cache",
                "--no-scoring"])
    err = capsys.readouterr().err
    assert code != 0 and ECHOED in err, err
    # The operator's own terminal still says which server failed (they set it); never the key it holds.
    assert CHECKER_KEY not in err and "***" in err, err
