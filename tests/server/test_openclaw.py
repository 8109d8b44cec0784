"""OpenClaw with factdebate, against the real packages: the plug-in (integrations/openclaw) loaded by OpenClaw's own
plug-in loader and its hooks called by OpenClaw's hook runner, under the real Node 24, against factdebate's service
(tests/server/openclaw_drive.mjs; no gateway); and, with ``FACTDEBATE_TEST_OPENCLAW_GATEWAY=1``, the real OpenClaw
gateway with a scripted model: with the plug-in, with the guard as its model provider, and with ``factdebate mcp``
as its MCP server for two sessions at once.

All need ``scripts/openclaw-for-tests.sh`` to have installed Node 24 and OpenClaw (about 840 MB in ~/.cache;
``scripts/setup.sh --dev``, make test's setup, runs it in the background); until then they are skipped, saying so.
The plug-in's test takes about 3 s (OpenClaw's loader is 1.2 CPU-s of it). The gateway's tests 41-61 s each at
load 11-17, minutes at other times: ``openclaw gateway run`` took 2 to 3.5 minutes to start at load 18-19, and
twice failed to start there (its state lease's own 5 s limit), hence their switch. The network is cut by
scripts/test.sh (``unshare -rn``); OpenClaw starts and answers without it."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from factdebate.server.app import create_app
from tests.paths import ROOT
from tests.server.conftest import PLAIN, LiveServer, free_port, offline_build
from tests.server.test_commands import EXE

OPENCLAW_VERSION = "2026.9.6"
INSTALL = Path(os.environ.get("FACTDEBATE_OPENCLAW_DIR",
                              Path.home() / ".cache" / "factdebate" / f"openclaw-{OPENCLAW_VERSION}"))
NODE = INSTALL / "node" / "node_modules" / "node" / "bin" / "node"
OPENCLAW = INSTALL / "claw" / "node_modules" / "openclaw" / "openclaw.mjs"
PLUGIN = ROOT / "integrations" / "openclaw"
KEY = "plugin-key-0123456789"
WRONG = "The Eiffel Tower is in Berlin."
# The scripted checker refutes every claim it is given, so the revision that passes is one with no claim in it.
REVISED = "Thanks for asking!"
PASSAGE = {"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris. It was completed in 1889."}

pytestmark = pytest.mark.skipif(not (NODE.exists() and OPENCLAW.exists()),
                                reason="Node 24 and OpenClaw are not installed: run scripts/openclaw-for-tests.sh")


@pytest.fixture(scope="module")
def factdebate_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """factdebate's service (the app ``factdebate serve`` runs, on a real port in this process) whose scripted
    checker refutes what the given passage does not say; no search agents: the plug-in sends the evidence."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("FACTDEBATE_GUARD__MAX_TIER", "fast")  # the fast tier's verdict, not an escalation's
        env.setenv("FACTDEBATE_GUARD__TIER", "fast")
        app = create_app(api_keys=[KEY], defaults=PLAIN, build=offline_build,
                         db_path=tmp_path_factory.mktemp("serve") / "service.sqlite")
        with LiveServer(app) as server:
            yield server.url


def _config(url: str, policy: str, **extra: Any) -> dict[str, Any]:
    return {"baseUrl": url, "apiKey": KEY, "policy": policy, "tier": "fast", "deadlineS": 30,
            "evidence": [PASSAGE], "evidenceMode": "given", **extra}


def test_the_plugin_footnotes_revises_and_refuses_inside_openclaw(factdebate_url: str, tmp_path: Path) -> None:
    """The plug-in loaded by OpenClaw's own plug-in loader from integrations/openclaw and its hooks called by
    OpenClaw's hook runner (tests/server/openclaw_drive.mjs), under the real Node 24: a refuted answer comes out
    footnoted, revised (and checked again) or refused; heartbeat and tool-only turns are not checked."""
    closed = f"http://127.0.0.1:{free_port()}"
    scenarios = [
        {"name": "flag", "config": _config(factdebate_url, "flag"), "answers": [WRONG]},
        {"name": "rewrite", "config": _config(factdebate_url, "rewrite"), "answers": [WRONG, REVISED]},
        {"name": "stubborn", "config": _config(factdebate_url, "rewrite"), "answers": [WRONG, WRONG]},
        {"name": "block", "config": _config(factdebate_url, "block"), "answers": [WRONG]},
        {"name": "heartbeat", "config": _config(factdebate_url, "block"), "answers": [WRONG],
         "trigger": "heartbeat"},
        {"name": "toolonly", "config": _config(factdebate_url, "block"), "answers": [""]},
        {"name": "closed", "config": _config(closed, "flag", failClosed=True), "answers": [WRONG]},
        {"name": "open", "config": _config(closed, "block"), "answers": [WRONG]},
    ]
    env = {**os.environ, "HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path / "openclaw")}
    done = subprocess.run([str(NODE), str(ROOT / "tests" / "server" / "openclaw_drive.mjs"), json.dumps(scenarios),
                           str(OPENCLAW.parent), str(PLUGIN)], capture_output=True, text=True, timeout=240,
                          env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    turns = {turn["name"]: turn for turn in json.loads(done.stdout)}
    checked = {name: len(httpx.get(f"{factdebate_url}/v1/checks", params={"conversation_id": f"agent:main:{name}"},
                                   headers={"Authorization": f"Bearer {KEY}"}).json()["checks"]) for name in turns}

    flag = turns["flag"]
    assert flag["shown"].startswith(WRONG) and "Fact check:" in flag["shown"] and "Paris" in flag["shown"]
    assert flag["decisions"] == [None]  # nothing asked of the agent

    rewrite = turns["rewrite"]
    asked = rewrite["decisions"][0]
    assert asked["action"] == "revise" and WRONG in asked["retry"]["instruction"]
    assert '"The Eiffel Tower is in Paris"' in asked["retry"]["instruction"]  # the passage against it
    assert "Correction: The Eiffel Tower is in Paris" in asked["retry"]["instruction"]
    assert rewrite["decisions"][1] is None and rewrite["shown"] == REVISED  # the revision, checked again: clean

    stubborn = turns["stubborn"]  # one revision only; one still wrong goes out footnoted
    assert [d and d["action"] for d in stubborn["decisions"]] == ["revise", None]
    assert stubborn["shown"].startswith(WRONG) and "Fact check:" in stubborn["shown"]

    block = turns["block"]
    assert block["shown"].startswith("This answer was withheld") and WRONG in block["shown"]

    assert checked == {"flag": 1, "rewrite": 2, "stubborn": 2, "block": 1, "heartbeat": 0, "toolonly": 0,
                       "closed": 0, "open": 0}  # what factdebate kept: each check the plug-in asked for
    for skipped in ("heartbeat", "toolonly"):
        assert turns[skipped]["decisions"] == [None]
    assert turns["heartbeat"]["shown"] == WRONG

    closed_turn = turns["closed"]["shown"]
    assert closed_turn.startswith("This answer was withheld: it could not be fact-checked")
    assert "Berlin" not in closed_turn
    assert turns["open"]["shown"].startswith(WRONG) and "Not fact-checked: factdebate could not be reached" in \
        turns["open"]["shown"]


def _stream(handler: BaseHTTPRequestHandler, delta: dict[str, Any]) -> None:
    """One streamed chat completion: ``delta`` (text or tool calls), then its finish."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.end_headers()
    head = {"id": "scripted", "object": "chat.completion.chunk", "created": 1, "model": "m1"}
    finish = "tool_calls" if "tool_calls" in delta else "stop"
    for part, end in (({"role": "assistant", **delta}, None), ({}, finish)):
        chunk = {**head, "choices": [{"index": 0, "delta": part, "finish_reason": end}]}
        handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
    handler.wfile.write(b"data: [DONE]\n\n")


class _Model(BaseHTTPRequestHandler):
    """The agent's model, scripted: it answers the wrong place, and after the plug-in's revision request a
    reply with no claim in it (the scripted checker refutes every claim)."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        type(self).requests.append(body)
        _stream(self, {"content": REVISED if "A fact check found" in json.dumps(body["messages"]) else WRONG})

    def log_message(self, *args: Any) -> None:
        pass


class _McpAgent(_Model):
    """An agent's model that calls factdebate's ``check_answer`` (an MCP tool, as OpenClaw names it) on its
    answer, then says the verdict the tool returned."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        type(self).requests.append(body)
        results = [m for m in body["messages"] if m.get("role") in ("tool", "toolResult")]
        if results:
            said = json.dumps(results[-1].get("content"))
            _stream(self, {"content": "verdict: " + ("REFUTES" if "REFUTES" in said else said[:300])})
            return
        args = {"answer": WRONG, "evidence": [PASSAGE], "evidence_mode": "given", "tier": "fast", "deadline_s": 60}
        _stream(self, {"tool_calls": [{"index": 0, "id": f"call-{len(type(self).requests)}", "type": "function",
                                       "function": {"name": "factdebate__check_answer",
                                                    "arguments": json.dumps(args)}}]})


@contextlib.contextmanager
def _gateway(tmp_path: Path, model: type[BaseHTTPRequestHandler], extra: dict[str, Any]) -> Iterator[str]:
    """``openclaw gateway run`` on loopback with ``model`` as its only model and ``extra`` in its config; yields
    the chat completions URL (the token is TOKEN)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = free_port()
    config = {
        "gateway": {"mode": "local", "bind": "loopback", "port": port, "auth": {"mode": "token", "token": TOKEN},
                    "http": {"endpoints": {"chatCompletions": {"enabled": True}}}},
        "models": {"mode": "replace", "providers": {"scripted": {
            "baseUrl": f"http://127.0.0.1:{server.server_address[1]}/v1", "apiKey": "none",
            "api": "openai-completions", "models": [{
                "id": "m1", "name": "scripted", "reasoning": False, "input": ["text"], "contextWindow": 32000,
                "maxTokens": 1024, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]}}},
        "agents": {"defaults": {"model": {"primary": "scripted/m1"}}},
        **extra,
    }
    state = tmp_path / "openclaw"
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps(config))
    env = {**os.environ, "HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(state),
           "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"), "PATH": f"{NODE.parent}:{os.environ['PATH']}"}
    with (tmp_path / "gateway.log").open("w") as log:
        gateway = subprocess.Popen([str(NODE), str(OPENCLAW), "gateway", "run"], env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 400
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
                    break
                except httpx.TransportError:
                    assert gateway.poll() is None, (tmp_path / "gateway.log").read_text()[-3000:]
                    assert time.monotonic() < deadline, "the gateway did not start"
                    time.sleep(1)
            yield f"http://127.0.0.1:{port}/v1/chat/completions"
        finally:
            gateway.terminate()
            gateway.wait(60)
            server.shutdown()


def _ask(url: str, user: str) -> str:
    reply = httpx.post(url, timeout=400, headers={"Authorization": f"Bearer {TOKEN}"}, json={
        "model": "openclaw", "user": user, "messages": [{"role": "user", "content": "Where is the Eiffel Tower?"}]})
    assert reply.status_code == 200, reply.text
    return str(reply.json()["choices"][0]["message"]["content"])


TOKEN = "gateway-token-0123456789"
GATEWAY = pytest.mark.skipif(not os.environ.get("FACTDEBATE_TEST_OPENCLAW_GATEWAY"), reason=(
    "OpenClaw's gateway takes minutes to start here: set FACTDEBATE_TEST_OPENCLAW_GATEWAY=1"))


@GATEWAY
def test_the_gateway_shows_the_checked_revision(factdebate_url: str, tmp_path: Path) -> None:
    """The plug-in inside ``openclaw gateway run``: a refuted answer is sent back once, and the caller of the
    gateway's HTTP API reads the revision (checked again), not the refuted answer."""
    _Model.requests.clear()
    plugin = {"plugins": {"load": {"paths": [str(PLUGIN)]}, "entries": {"factdebate": {
        "enabled": True, "hooks": {"allowConversationAccess": True}, "config": _config(factdebate_url, "rewrite")}}}}
    with _gateway(tmp_path, _Model, plugin) as url:
        shown = _ask(url, "alice")
    assert shown == REVISED
    asked = json.dumps(_Model.requests[-1]["messages"])
    assert len(_Model.requests) == 2 and WRONG in asked and "Correction" in asked


@GATEWAY
@pytest.mark.parametrize("finish", ["stop", "content_filter"])
def test_the_guard_as_provider_refuses_with_an_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      finish: str) -> None:
    """The guard as OpenClaw's model provider under ``block``: with ``guard.block_finish_reason: stop`` the
    refusal is the answer the gateway's caller reads; with OpenAI's ``content_filter`` (the default) OpenClaw
    fails the run and the refusal is not shown."""
    from factdebate.llm.scripted import ScriptedBackend
    from tests.guard.support import script
    from tests.server.guard_support import ANSWER, Upstream, upstream_app

    rome = "The Eiffel Tower is in Rome."
    with LiveServer(upstream_app(Upstream())) as model:
        for name, value in {"UPSTREAM": f"{model.url}/v1", "POLICY": "block", "BLOCK_FINISH_REASON": finish,
                            "TIER": "fast", "MAX_TIER": "fast"}.items():
            monkeypatch.setenv(f"FACTDEBATE_GUARD__{name}", value)
        backend = ScriptedBackend(script(claims=["Paris is the capital of France.", rome]))
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                         build=lambda settings: offline_build(settings, backend))
        with LiveServer(app) as guard:
            provider = {"models": {"mode": "replace", "providers": {"factdebate": {
                "baseUrl": f"{guard.url}/v1", "apiKey": KEY, "api": "openai-completions", "models": [{
                    "id": "m1", "name": "m1, fact-checked", "reasoning": False, "input": ["text"],
                    "contextWindow": 32000, "maxTokens": 1024,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]}}},
                "agents": {"defaults": {"model": {"primary": "factdebate/m1"}}}}
            with _gateway(tmp_path, _Model, provider) as url:
                reply = httpx.post(url, timeout=400, headers={"Authorization": f"Bearer {TOKEN}"}, json={
                    "model": "openclaw", "user": "alice",
                    "messages": [{"role": "user", "content": "Tell me about Paris."}]})
    if finish == "stop":
        assert reply.status_code == 200, reply.text
        shown = str(reply.json()["choices"][0]["message"]["content"])
        assert shown.startswith("This answer was withheld") and rome in shown and ANSWER not in shown, shown
    else:  # what the issue saw: the run fails (OpenClaw 2026.9.6's HTTP API: 500, "internal error")
        assert reply.status_code >= 500 and "withheld" not in reply.text, reply.text


@GATEWAY
def test_two_sessions_use_factdebate_mcp_at_once(tmp_path: Path) -> None:
    """OpenClaw starts ``factdebate mcp`` (stdio) for its sessions; two sessions asking at the same time both get
    check_answer's verdict. Tool Search is off so the MCP tools are offered by name."""
    _McpAgent.requests.clear()
    env = {"FACTDEBATE_DATA_DIR": str(tmp_path / "data"), "FACTDEBATE_LLM": "scripted:disagree",
           "FACTDEBATE_GUARD__MAX_TIER": "fast", "FACTDEBATE_GUARD__TIER": "fast",
           "FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[none, none]"}
    mcp = {"tools": {"toolSearch": False},
           # requestTimeoutMs as docs/guard/openclaw.md has it: without it the tool listing gets 1.5 s
           "mcp": {"servers": {"factdebate": {"command": EXE, "args": ["mcp"], "env": env,
                                              "connectionTimeoutMs": 5000, "requestTimeoutMs": 120000}}}}
    with _gateway(tmp_path, _McpAgent, mcp) as url, ThreadPoolExecutor(2) as pool:
        shown = list(pool.map(lambda user: _ask(url, user), ["alice", "bob"]))
    assert shown == ["verdict: REFUTES", "verdict: REFUTES"]
    called = [r for r in _McpAgent.requests if any(m.get("role") in ("tool", "toolResult") for m in r["messages"])]
    assert len(called) == 2  # each session called the tool once and read its result
