"""OpenClaw with factdebate, against the real packages: the plug-in (integrations/openclaw) loaded by OpenClaw's own
plug-in loader and its hooks called by OpenClaw's hook runner, under the real Node 24, against factdebate's service
(tests/server/openclaw_drive.mjs; no gateway); the plug-in installed by its documented command into one real
OpenClaw gateway for the module, with a scripted model, read through the gateway's HTTP API, its CLI, a WebChat
client (tests/server/openclaw_chat.mjs) and its Telegram channel, whose Bot API is scripted on loopback
(tests/server/guard/telegram_bot_api.py); and, with ``FACTDEBATE_TEST_OPENCLAW_GATEWAY=1``, gateways of their own
with the guard as the model provider, and with ``factdebate mcp`` as the MCP server for two sessions at once. The
one that needs neither: what the guard as OpenClaw's model provider answers for a dead checker.

All but one need ``scripts/openclaw-for-tests.sh`` to have installed Node 24 and OpenClaw (about 840 MB in ~/.cache;
``scripts/setup.sh --dev``, make test's setup, runs it in the background); until then they are skipped, saying so.
The plug-in's driver test takes 20 s at load 9-16 (OpenClaw's loader is 1.2 CPU-s of it). The module's gateway
is the slow part, and in make test: the module's three tests share one xdist group (its
fixtures are module-scoped, tests/parallel.py), a unit of work that xdist hands out among the first few dozen,
so it runs beside the rest rather than at the end. Measured with the module alone (docs/guard/openclaw.md): 361 s
and 172 CPU-seconds in all at load 7-13 (the install and the gateway's start 62 s, the surface test 173 s, the
Telegram test 108 s, the driver 9 s); 142 s at load 3-4 with one streamed case fewer. Each withheld or marked
answer is one more pass of the agent's, prepared by the gateway. The provider and MCP gateway
tests, a gateway each, stay opt-in: 41-61 s each at load 11-17, and ``openclaw gateway run`` took 2 to 3.5
minutes to start at load 18-19 and twice failed to start there (its state lease's own 5 s limit). The network
is cut by scripts/test.sh (``unshare -rn``); OpenClaw starts and answers without it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from factdebate.core.errors import EndpointUnavailableError
from factdebate.llm import make_backend
from factdebate.llm.base import Backend, Completion, FatalLLMError, GenParams, Message
from factdebate.server.app import create_app
from tests.paths import ROOT
from tests.readiness import wait_until_ready
from tests.server.conftest import PLAIN, LiveServer, closed_port, free_port, offline_build
from tests.server.guard.telegram_bot_api import TOKEN as BOT_TOKEN
from tests.server.guard.telegram_bot_api import BotApi, bot_api
from tests.server.test_commands import EXE

OPENCLAW_VERSION = "2026.9.6"
INSTALL = Path(os.environ.get("FACTDEBATE_OPENCLAW_DIR",
                              Path.home() / ".cache" / "factdebate" / f"openclaw-{OPENCLAW_VERSION}"))
NODE = INSTALL / "node" / "node_modules" / "node" / "bin" / "node"
OPENCLAW = INSTALL / "claw" / "node_modules" / "openclaw" / "openclaw.mjs"
PLUGIN = ROOT / "integrations" / "openclaw"
KEY = "plugin-key-0123456789"
WRONG = "The Eiffel Tower is in Berlin."
ROME = "The Eiffel Tower is in Rome."  # the checker is down for it (_DownOverRome)
LYON = "The Eiffel Tower is in Lyon."  # the checker's server could not be reached for it (_DownOverRome)
CHECKER = "http://checker.internal:8080/v1"  # that server's address, which no end user may read
MADRID = "The Eiffel Tower is in Madrid."  # the checker decides it too late for the plug-in's deadline
# The scripted checker refutes every claim it is given, so the revision that passes is one with no claim in it.
REVISED = "Thanks for asking!"
PASSAGE = {"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris. It was completed in 1889."}

# every test but the provider way's words, which reads the guard's answer itself
INSTALLED = pytest.mark.skipif(not (NODE.exists() and OPENCLAW.exists()),
                                reason="Node 24 and OpenClaw are not installed: run scripts/openclaw-for-tests.sh")


class _DownOverRome:
    """The checker's model, scripted, and down (every call fails) for a text that mentions Rome: factdebate is up,
    its check is not (``degraded``); unreachable for one that mentions Lyon, as a server that answered 500 to
    every retry is (factdebate's words name its address and the attempts); slow (5 s) to decide a claim about
    Madrid, so that a short deadline leaves it unchecked while the extraction, not slowed, succeeds."""

    endpoint = ""
    max_parallel = 1024

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.name = backend.name

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        if any("Rome" in m["content"] for m in messages):
            raise FatalLLMError("the checker's model is down")
        if any("Lyon" in m["content"] for m in messages):
            raise EndpointUnavailableError(CHECKER, 16, "HTTP 500: Internal Server Error")
        if any("Madrid" in m["content"] for m in messages) and "label" in json.dumps(params.json_schema or {}):
            await asyncio.sleep(5)
        return await self.backend.complete(messages, params)


@pytest.fixture(scope="module")
def factdebate_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """factdebate's service (the app ``factdebate serve`` runs, on a real port in this process) whose scripted
    checker refutes what the given passage does not say, and is down for an answer about Rome; no search agents:
    the plug-in sends the evidence. The operator lets a claim climb to the standard tier; the plug-in's maxTier
    (``_config``: fast) keeps it at the fast tier's verdict."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("FACTDEBATE_GUARD__MAX_TIER", "standard")
        env.setenv("FACTDEBATE_GUARD__TIER", "fast")
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path_factory.mktemp("serve") / "service.sqlite",
                         build=lambda s: offline_build(s, _DownOverRome(make_backend(s.llm.debater))))
        with LiveServer(app) as server:
            yield server.url


def _config(url: str, policy: str, **extra: Any) -> dict[str, Any]:
    # deadlineS: the guard's most (guard.max_deadline_s), so that a check slowed by a loaded machine still ends
    # in its verdicts, not in claims left unchecked by the deadline
    return {"baseUrl": url, "apiKey": KEY, "policy": policy, "tier": "fast", "maxTier": "fast", "deadlineS": 120,
            "evidence": [PASSAGE], "evidenceMode": "given", **extra}


@INSTALLED
def test_the_plugin_footnotes_revises_and_refuses_inside_openclaw(factdebate_url: str, tmp_path: Path) -> None:
    """The plug-in loaded by OpenClaw's own plug-in loader from integrations/openclaw and its hooks called by
    OpenClaw's hook runner (tests/server/openclaw_drive.mjs), under the real Node 24: a refuted answer comes out
    footnoted, revised (and checked again) or refused, each as the run's own answer (the agent's last pass gives
    the text the plug-in decided); an agent that does not give it is stopped with the text as OpenClaw's error; a
    checker that is down or unreachable reads as one, with no address or attempt count; heartbeat and tool-only
    turns are not checked."""
    closed = f"http://127.0.0.1:{closed_port()}"
    scenarios = [
        {"name": "flag", "config": _config(factdebate_url, "flag"), "answers": [WRONG]},
        {"name": "flagcopy", "config": _config(factdebate_url, "flag"), "answers": [WRONG], "otherCopy": True},
        {"name": "uncapped", "config": {k: v for k, v in _config(factdebate_url, "flag").items() if k != "maxTier"},
         "answers": [WRONG]},
        {"name": "rewrite", "config": _config(factdebate_url, "rewrite"), "answers": [WRONG, REVISED]},
        {"name": "stubborn", "config": _config(factdebate_url, "rewrite"), "answers": [WRONG, WRONG]},
        {"name": "block", "config": _config(factdebate_url, "block"), "answers": [WRONG]},
        {"name": "deaf", "config": _config(factdebate_url, "block"), "answers": [WRONG], "deaf": True},
        {"name": "heartbeat", "config": _config(factdebate_url, "block"), "answers": [WRONG],
         "trigger": "heartbeat"},
        {"name": "toolonly", "config": _config(factdebate_url, "block"), "answers": [""]},
        {"name": "closed", "config": _config(closed, "flag", failClosed=True), "answers": [WRONG]},
        {"name": "open", "config": _config(closed, "block"), "answers": [WRONG]},
        {"name": "degraded", "config": _config(factdebate_url, "flag", failClosed=True), "answers": [ROME]},
        {"name": "degradedopen", "config": _config(factdebate_url, "flag"), "answers": [ROME]},
        {"name": "dead", "config": _config(factdebate_url, "flag", failClosed=True), "answers": [LYON]},
        {"name": "deadopen", "config": _config(factdebate_url, "flag"), "answers": [LYON]},
        {"name": "late", "config": _config(factdebate_url, "flag", failClosed=True, deadlineS=3), "answers": [MADRID]},
    ]
    env = {**os.environ, "HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path / "openclaw")}
    done = subprocess.run([str(NODE), str(ROOT / "tests" / "server" / "openclaw_drive.mjs"), json.dumps(scenarios),
                           str(OPENCLAW.parent), str(PLUGIN)], capture_output=True, text=True, timeout=240,
                          env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # the last line: the plug-in's own lines (what it logs when loaded) come before it
    turns = {turn["name"]: turn for turn in json.loads(done.stdout.splitlines()[-1])}
    kept = {name: httpx.get(f"{factdebate_url}/v1/checks", params={"conversation_id": f"agent:main:{name}"},
                            headers={"Authorization": f"Bearer {KEY}"}).json()["checks"] for name in turns}
    checked = {name: len(checks) for name, checks in kept.items()}
    # each check the plug-in asked for: a pass that gives the decided text is not checked again
    assert checked == {"flag": 1, "flagcopy": 1, "uncapped": 1, "rewrite": 2, "stubborn": 2, "block": 1, "deaf": 1,
                       "heartbeat": 0, "toolonly": 0, "closed": 0, "open": 0, "degraded": 1, "degradedopen": 1,
                       "dead": 1, "deadopen": 1, "late": 1}

    def relays(turn: dict[str, Any]) -> list[str | None]:
        """What each decision asked: a revision, the decided text to give (a relay), or nothing (accepted)."""
        return [None if d is None else "relay" if "-----BEGIN REPLY-----" in d["retry"]["instruction"] else "revise"
                for d in turn["decisions"]]

    flag = turns["flag"]  # the answer with its footnote, as the run's own answer: what every surface reads
    assert flag["answer"].startswith(WRONG) and "Fact check:" in flag["answer"] and "Paris" in flag["answer"]
    assert relays(flag) == ["relay", None] and flag["shown"] == flag["answer"] and flag["stopped"] is None
    # the pass that gives it has no other task, and no tool to call
    assert "word for word" in flag["systemPrompts"][0] and flag["toolsAllowed"] == [[]]
    assert turns["flagcopy"]["shown"] == flag["shown"]  # delivered by another copy of the plug-in: the same
    # maxTier caps the climb: the refuted claim keeps the fast tier's verdict, where without it (the operator
    # allows standard) it climbs to a debate round, whose verdict is another (the scripted debaters')
    [capped], [climbed] = kept["flag"], kept["uncapped"]
    assert [c["tier"] for c in capped["verdict"]["claims"]] == ["fast"], capped["verdict"]["claims"]
    assert [c["tier"] for c in climbed["verdict"]["claims"]] == ["standard"], climbed["verdict"]["claims"]
    assert capped["verdict"]["usage"]["model_calls"] < climbed["verdict"]["usage"]["model_calls"]

    rewrite = turns["rewrite"]
    asked = rewrite["decisions"][0]
    assert asked["action"] == "revise" and WRONG in asked["retry"]["instruction"]
    assert '"The Eiffel Tower is in Paris."' in asked["retry"]["instruction"]  # the passage against it
    assert "Correction: The Eiffel Tower is in Paris" in asked["retry"]["instruction"]
    assert relays(rewrite) == ["revise", None] and rewrite["answer"] == rewrite["shown"] == REVISED
    assert rewrite["systemPrompts"] == rewrite["toolsAllowed"] == [None]  # a revision: the agent's own prompt, tools

    stubborn = turns["stubborn"]  # one revision only; one still wrong goes out footnoted, on every surface
    assert relays(stubborn) == ["revise", "relay", None]
    assert stubborn["answer"].startswith(WRONG) and "Fact check:" in stubborn["answer"]

    block = turns["block"]  # the refusal is the run's answer: an ordinary message, no error
    assert relays(block) == ["relay", None] and block["stopped"] is None
    assert block["answer"].startswith("This answer was withheld") and WRONG in block["answer"]
    assert block["shown"] == block["answer"]
    deaf = turns["deaf"]  # an agent that gives something else is sent back again, and that pass is stopped
    assert relays(deaf) == ["relay", "relay"] and deaf["answer"] is None
    assert deaf["stopped"] == block["answer"] and deaf["shown"] == deaf["stopped"]  # a channel: the refusal alone

    for skipped in ("heartbeat", "toolonly"):
        assert turns[skipped]["decisions"] == [None] and turns[skipped]["stopped"] is None
    assert turns["heartbeat"]["shown"] == WRONG

    # factdebate unreachable, its checker down or unreachable: the reader is told the checker is not available,
    # never its address, its port, the attempts or the error (the operator's, in the gateway's log)
    unavailable = "the fact checker is not available right now"
    read = {name: turns[name]["answer"] for name in ("closed", "open", "degraded", "degradedopen", "dead", "deadopen")}
    for name, text in read.items():
        assert unavailable in text, (name, text)
        for technical in ("http", "127.0.0.1", "checker.internal", "attempt", "500", "ECONN", "is down"):
            assert technical not in text, (name, technical, text)
        assert turns[name]["shown"] == text and turns[name]["stopped"] is None, turns[name]
    assert read["closed"] == f"This answer was withheld: it could not be fact-checked ({unavailable})."
    assert read["open"] == f"{WRONG}\n\n---\nNot fact-checked: {unavailable}."
    # factdebate up, its checker down: withheld under failClosed (the guard's on_unchecked: block), else the
    # answer with the guard's note that it could not be checked
    for name, answer in (("degraded", ROME), ("dead", LYON)):
        assert read[name] == f"This answer was withheld: it could not be checked ({unavailable}).", read[name]
        assert read[f"{name}open"] == f"{answer}\n\n---\nFact check:\n- The answer could not be checked: {unavailable}"
        [record] = kept[name]  # factdebate's record keeps the operator's words
        assert record["verdict"]["degraded"], record["verdict"]
    assert "after 16 attempt(s): HTTP 500" in kept["dead"][0]["verdict"]["degraded_reason"]
    # a check the deadline cut short (a checker slower than deadlineS): withheld under failClosed too, saying so;
    # the guard says it of the claim, or of the extraction when the claim's check holds the extraction's up
    late = turns["late"]
    [record] = kept["late"]
    if record["verdict"]["degraded"]:
        assert late["answer"] == "This answer was withheld: it could not be checked (the claims were not extracted " \
            "within the deadline (3 s)).", late["answer"]
    else:
        assert [c["status"] for c in record["verdict"]["claims"]] == ["unchecked"], record["verdict"]
        assert late["answer"] == f'This answer was withheld: parts of it could not be checked: "{MADRID}"'
    assert late["shown"] == late["answer"]  # a channel gets the refusal alone


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


@dataclass(frozen=True)
class Claw:
    """A running ``openclaw gateway run``: its port and the environment its CLI needs to reach it."""

    port: int
    env: dict[str, str]
    start_s: float  # from the process's start to its /readyz answering 200
    log: Path  # what the gateway printed

    @property
    def completions(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/chat/completions"


def _claw_env(home: Path) -> dict[str, str]:
    """OpenClaw's CLI and gateway with their state and config under ``home``."""
    state = home / "openclaw"
    return {**os.environ, "HOME": str(home), "OPENCLAW_STATE_DIR": str(state),
            "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"), "PATH": f"{NODE.parent}:{os.environ['PATH']}"}


@contextlib.contextmanager
def _gateway(tmp_path: Path, model: type[BaseHTTPRequestHandler], extra: dict[str, Any],
             base: dict[str, Any] | None = None) -> Iterator[Claw]:
    """``openclaw gateway run`` on loopback with ``model`` as its only model and ``extra`` in its config (over
    ``base``, a config OpenClaw's CLI wrote); yields it (the token is TOKEN)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = free_port()
    config = {
        **(base or {}),
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
    env = _claw_env(tmp_path)
    state = Path(env["OPENCLAW_STATE_DIR"])
    state.mkdir(exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps(config))
    with (tmp_path / "gateway.log").open("w") as log:
        began = time.monotonic()
        gateway = subprocess.Popen([str(NODE), str(OPENCLAW), "gateway", "run"], env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        def ready() -> bool:  # /readyz: started, its agents' databases admitted (its HTTP answers come earlier)
            try:
                return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200
            except httpx.TransportError:
                return False

        try:  # by its state and its own CPU (12-14 CPU-s to /readyz at load 15-45), not a wall-clock limit
            wait_until_ready(ready, gateway, "OpenClaw's gateway", log=tmp_path / "gateway.log", every_s=0.5)
            yield Claw(port=port, env=env, start_s=time.monotonic() - began, log=tmp_path / "gateway.log")
        finally:
            # the gateway and its helpers (spawn broker, SQLite workers): its own stop may drain for minutes
            os.killpg(gateway.pid, signal.SIGTERM)
            try:
                gateway.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(gateway.pid, signal.SIGKILL)
                gateway.wait(10)
            server.shutdown()


def _ask(url: str, user: str) -> str:
    reply = httpx.post(url, timeout=400, headers={"Authorization": f"Bearer {TOKEN}"}, json={
        "model": "openclaw", "user": user, "messages": [{"role": "user", "content": "Where is the Eiffel Tower?"}]})
    assert reply.status_code == 200, reply.text
    return str(reply.json()["choices"][0]["message"]["content"])


TOKEN = "gateway-token-0123456789"
GATEWAY = pytest.mark.skipif(not os.environ.get("FACTDEBATE_TEST_OPENCLAW_GATEWAY"), reason=(
    "OpenClaw's gateway takes minutes to start here: set FACTDEBATE_TEST_OPENCLAW_GATEWAY=1"))


# The plug-in's request that the agent give a decided text as its answer (integrations/openclaw/guard.js)
RELAY = re.compile(r"-----BEGIN REPLY-----\n(.*)\n-----END REPLY-----", re.S)


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _relay_asked(body: dict[str, Any]) -> str | None:
    """The text a model call is asked to give, if it is the pass that gives one: in the last user message that
    asks (a channel's turn adds OpenClaw's conversation context after it)."""
    for message in reversed(body["messages"]):
        if message.get("role") == "user" and (asked := RELAY.search(_text_of(message))):
            return asked.group(1)
    return None


class _Agent(BaseHTTPRequestHandler):
    """The agents' model, scripted by the question: the wrong place; after the plug-in's revision request a reply
    with no claim in it, unless the question says ``[stubborn]`` (the wrong place again); Rome (the checker is down
    for it) when it says ``[rome]``. Asked to give a text between the plug-in's marker lines, it gives it, unless
    the question says ``[deaf]`` (then it answers as before)."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        type(self).requests.append(body)
        said = json.dumps(body["messages"])
        asked = _relay_asked(body)
        if asked is not None and "[deaf]" not in said:
            _stream(self, {"content": asked})
            return
        answer = ROME if "[rome]" in said else REVISED if "A fact check found" in said and "[stubborn]" not in said \
            else WRONG
        _stream(self, {"content": answer})

    def log_message(self, *args: Any) -> None:
        pass


QUESTION = "Where is the Eiffel Tower?"
# Each case: the OpenClaw agent it runs on (its policy in the plug-in's `agents`: main flags, block blocks,
# rewrite rewrites with failClosed) and the question. Three agents, not one per case: each agent's first run
# costs the gateway seconds of its own.
CASES = {"flag": ("main", QUESTION), "block": ("block", QUESTION), "rewrite": ("rewrite", QUESTION),
         "stubborn": ("rewrite", f"{QUESTION} [stubborn]"), "closed": ("rewrite", f"{QUESTION} [rome]"),
         "note": ("main", f"{QUESTION} [rome]"), "deaf": ("block", f"{QUESTION} [deaf]")}
# `openclaw agent` is a process of its own, seconds of CPU each: one per kind of outcome the plug-in decides (the
# footnoted answer, the refusal, the stopped run); a revision is the agent's own answer as any other. The HTTP
# API and WebChat take every case.
CLI_CASES = ("flag", "closed", "deaf")
# The channel path: OpenClaw's Telegram channel, each case's user in a private chat of their own that a binding
# routes to the case's agent. Four cases (each run costs the gateway 2-3 CPU-seconds here): the clean revision is
# what every surface shows already, and a channel gets the decided text whatever the agent's last pass said. A
# second set of users for a round asked again (LOCKED, below).
TELEGRAM_CASES = ("flag", "block", "stubborn", "closed")
TELEGRAM_USERS = [{name: 7001 + 100 * attempt + i for i, name in enumerate(TELEGRAM_CASES)} for attempt in (0, 1)]


@pytest.fixture(scope="module")
def telegram() -> Iterator[BotApi]:
    """Telegram's Bot API, scripted on loopback (tests/server/guard/telegram_bot_api.py): the chat service is the
    one part of the channel path that cannot be reached offline."""
    with bot_api() as api:
        yield api


def _telegram_channel(telegram: BotApi) -> dict[str, Any]:
    """The gateway's config for its Telegram channel, polling ``telegram``: the case users allowed, each routed to
    the case's agent, a session per user."""
    users = [(name, user) for attempt in TELEGRAM_USERS for name, user in attempt.items()]
    return {
        "channels": {"telegram": {"enabled": True, "botToken": BOT_TOKEN, "apiRoot": telegram.url,
                                  "dmPolicy": "allowlist", "allowFrom": [str(user) for _, user in users]}},
        "bindings": [{"agentId": "main", "match": {"channel": "telegram", "accountId": "default"}}] + [
            {"agentId": CASES[name][0], "match": {"channel": "telegram", "peer": {"kind": "direct", "id": str(user)}}}
            for name, user in users],
        # maintenance "warn": OpenClaw's automatic session maintenance plans in a worker of its own; in 1 of 2
        # channel runs at load 20 its plan, rejected after 7.5 s, was followed by 3 of the 4 runs failing on the
        # state lock (LOCKED, below), and none in 4 runs with it set so. A test gateway's few sessions need none.
        "session": {"dmScope": "per-channel-peer", "maintenance": {"mode": "warn"}},
    }


@pytest.fixture(scope="module")
def claw(factdebate_url: str, telegram: BotApi, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Claw]:
    """One ``openclaw gateway run`` for the plug-in's surface tests, with the plug-in installed by the command
    docs/guard/openclaw.md gives, word for word, three agents: ``main`` (flag), ``block`` and ``rewrite``
    (with failClosed), and OpenClaw's Telegram channel polling ``telegram``. Lean: OpenClaw's other plug-ins,
    tools and workspace files are left out (they cost each run seconds here), and the config is in the form
    OpenClaw's doctor would migrate it to at start."""
    home = tmp_path_factory.mktemp("claw")
    env = _claw_env(home)
    done = subprocess.run([str(NODE), str(OPENCLAW), "plugins", "install", "--link", "./integrations/openclaw",
                           "--force", "--accept-capabilities"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    installed = json.loads((Path(env["OPENCLAW_CONFIG_PATH"])).read_text())
    plugins = installed["plugins"]
    assert [Path(p).resolve() for p in plugins["load"]["paths"]] == [PLUGIN.resolve()]
    assert plugins["entries"]["factdebate"]["enabled"] is True  # the install enables it
    plugins["allow"] = ["factdebate", "telegram"]  # OpenClaw's own Telegram channel is a bundled plug-in
    plugins["entries"]["factdebate"].update(hooks={"allowConversationAccess": True}, config=_config(
        factdebate_url, "flag", agents={"block": {"policy": "block"},
                                        "rewrite": {"policy": "rewrite", "failClosed": True}}))
    # no heartbeats: a heartbeat turn of `main` (not checked) would write to the first Telegram user's chat
    agents = {"defaults": {"model": {"primary": "scripted/m1"}, "skipBootstrap": True,
                           "systemAgent": {"agentId": "main"}, "heartbeat": {"agentId": "main", "every": "0m"}},
              "entries": {"main": {}, "block": {}, "rewrite": {}}, "ownership": "explicit"}
    _Agent.requests.clear()
    with _gateway(home, _Agent, {"plugins": plugins, "agents": agents, "tools": {"profile": "minimal"},
                                 **_telegram_channel(telegram)}, base=installed) as gateway:
        yield gateway


def _over_http(claw: Claw, name: str, attempt: str = "") -> tuple[int, str]:
    """What a caller of the gateway's /v1/chat/completions reads: the status and the answer (or the body)."""
    agent, question = CASES[name]
    # no timeout of its own: a run takes minutes on a loaded machine, and the test's timeout bounds them all
    reply = httpx.post(claw.completions, timeout=None, headers={"Authorization": f"Bearer {TOKEN}"}, json={
        "model": f"openclaw/{agent}", "user": f"{name}-http{attempt}",
        "messages": [{"role": "user", "content": question}]})
    if reply.status_code != 200:
        return reply.status_code, reply.text
    return 200, str(reply.json()["choices"][0]["message"]["content"])


def _over_http_streamed(claw: Claw, name: str, attempt: str = "") -> dict[str, Any]:
    """What a caller of /v1/chat/completions with ``stream: true`` reads: the status, the text its chunks carried
    (in order: what was on screen before the end), an error chunk's message, and the finish reason."""
    agent, question = CASES[name]
    read: dict[str, Any] = {"deltas": [], "error": None, "finish": None}
    with httpx.stream("POST", claw.completions, timeout=None, headers={"Authorization": f"Bearer {TOKEN}"}, json={
            "model": f"openclaw/{agent}", "user": f"{name}-stream{attempt}", "stream": True,
            "messages": [{"role": "user", "content": question}]}) as reply:
        read["status"] = reply.status_code
        for line in reply.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[len("data: "):])
            if "error" in chunk:
                read["error"] = chunk["error"].get("message")
                continue
            for choice in chunk.get("choices", []):
                if content := choice.get("delta", {}).get("content"):
                    read["deltas"].append(content)
                read["finish"] = choice.get("finish_reason") or read["finish"]
    read["text"] = "".join(read["deltas"])
    return read


def _over_cli(claw: Claw, name: str, attempt: str = "") -> tuple[int, str]:
    """What ``openclaw agent`` prints (its exit status and output)."""
    agent, question = CASES[name]
    done = subprocess.run([str(NODE), str(OPENCLAW), "agent", "--agent", agent, "--session-key",
                           f"agent:{agent}:cli{attempt}-{name}", "-m", question], env=claw.env, capture_output=True,
                          text=True)
    return done.returncode, (done.stdout + done.stderr).strip()


def _over_chat(claw: Claw, attempt: str = "") -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """What a WebChat client shows (tests/server/openclaw_chat.mjs, chat.send): per case, the run's end; and once
    they have ended, what the plug-in's status answers (the method `openclaw gateway call factdebate.status`
    calls)."""
    turns = [{"sessionKey": f"agent:{agent}:webchat{attempt}-{name}", "message": question}
             for name, (agent, question) in CASES.items()]
    done = subprocess.run([str(NODE), str(ROOT / "tests" / "server" / "openclaw_chat.mjs"),
                           f"ws://127.0.0.1:{claw.port}", TOKEN, json.dumps(turns), json.dumps(["factdebate.status"])],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    return {end["sessionKey"].rsplit("-", 1)[1]: end for end in read["ends"]}, read["calls"]["factdebate.status"]


# OpenClaw's own words when a run of its gateway could not take its state database's lock from another of its
# processes: at load 15-45 on the shared 2-core machine, 2 of 10 runs of the test below had a case's run fail
# so (HTTP 500, WebChat "another OpenClaw process owns state-lifecycle"; the gateway's SQLite maintenance worker
# took 14 s there), a case that passed in the other runs; none in 6 runs since `openclaw agent` runs after the
# others. Such a round is asked again once, on new sessions.
LOCKED = "another OpenClaw process owns"
# The cases also asked with `stream: true`: the footnoted answer, the refusal (where OpenClaw's own way of
# withholding, a stopped run, streams an error chunk), the revision (its refuted first answer never streamed), the
# stopped run
STREAMED_CASES = ("flag", "block", "rewrite", "deaf")


def _over_http_and_chat(claw: Claw, attempt: str = "") -> tuple[dict[str, tuple[tuple[int, str], dict[str, Any] | None,
                                                                               dict[str, Any]]], dict[str, Any]]:
    """Every case through the HTTP API (plain, and streamed for STREAMED_CASES) and WebChat at once: what each
    shows; and the plug-in's status once WebChat's runs have ended."""
    with ThreadPoolExecutor(len(CASES) + len(STREAMED_CASES) + 1) as pool:
        chat = pool.submit(_over_chat, claw, attempt)
        http = {name: pool.submit(_over_http, claw, name, attempt) for name in CASES}
        streamed = {name: pool.submit(_over_http_streamed, claw, name, attempt) for name in STREAMED_CASES}
        chat_ends, status = chat.result()
        return {name: (http[name].result(), streamed[name].result() if name in streamed else None,
                       chat_ends[name]) for name in CASES}, status


# The module's install and gateway start count within it: 235 s at load 7-13 (docs/guard/openclaw.md).
@INSTALLED
@pytest.mark.timeout(900)
def test_what_each_surface_shows_under_each_policy(claw: Claw) -> None:
    """The plug-in in a real gateway, as its users read it: the HTTP API (plain and streamed), the CLI and a
    WebChat client, under flag, block, rewrite (a clean revision, and one still wrong), the checker down with and
    without failClosed, and block with an agent that does not pass the refusal on. Each surface reads the checked
    answer as an ordinary answer: the footnoted answer, the answer with its note, the revision, the refusal, with
    no unmarked or refuted answer on screen first; only the agent that did not pass the refusal on gets OpenClaw's
    error for a stopped run, carrying the refusal's words where OpenClaw shows any. The pass that gives the text
    is offered no tools. The plug-in's status (``factdebate.status``) and its lines in the gateway's log say what
    each surface shows; the status counts the passes."""
    ended, plugin_status = _over_http_and_chat(claw)
    # OpenClaw failed a run on its own state lock (a client shows it, or the gateway's log outside a warning it
    # goes on after, "owner profile resolution failed", seen in a run that passed): every case once more
    logged = [line for line in claw.log.read_text(errors="replace").splitlines()
              if LOCKED in line and "profile resolution failed" not in line]
    if logged or LOCKED in json.dumps([[stream, chat] for _, stream, chat in ended.values()]):
        _Agent.requests.clear()
        ended, plugin_status = _over_http_and_chat(claw, "-again")
    # `openclaw agent` after the others, one at a time (its own process opens the state directory's database)
    cli = {name: _over_cli(claw, name) for name in CLI_CASES}
    cli |= {name: _over_cli(claw, name, "-again") for name, (_, printed) in cli.items() if LOCKED in printed}
    shown = {name: (*ended[name], cli.get(name)) for name in CASES}

    refusal = f'This answer was withheld: a fact check found that it says what the evidence contradicts: "{WRONG}"'
    unavailable = "the fact checker is not available right now"
    down = f"This answer was withheld: it could not be checked ({unavailable})."
    # the checker down without failClosed: the answer with the guard's note
    note = f"{ROME}\n\n---\nFact check:\n- The answer could not be checked: {unavailable}"
    expected = {"rewrite": REVISED, "block": refusal, "closed": down, "note": note}
    for name in ("flag", "stubborn", "rewrite", "block", "closed", "note"):
        (status, text), streamed, chat, printed = shown[name]
        if name in ("flag", "stubborn"):  # the answer with its footnote below it
            assert text.startswith(f"{WRONG}\n") and "Fact check:" in text, shown[name]
            assert f'"{WRONG}" is contradicted by the evidence (Eiffel Tower: "The Eiffel Tower is in Paris.")' in text
        else:
            assert text == expected[name], shown[name]
        assert status == 200 and printed in (None, (0, text)), shown[name]
        assert (chat["state"], chat["text"]) == ("final", text), chat
        # what was on screen on the way: only the start of that text, never the answer as first written
        assert all(text.startswith(delta) for delta in chat["deltas"]), chat
        if streamed is not None:
            assert (streamed["status"], streamed["text"], streamed["error"]) == (200, text, None), streamed
            assert streamed["finish"] == "stop", streamed
    (status, text), streamed, chat, printed = shown["deaf"]  # the refusal, as OpenClaw shows a stopped run
    assert status == 500 and "Berlin" not in text, text  # OpenClaw's HTTP API: "internal error"
    assert streamed is not None and streamed["error"] and "Berlin" not in json.dumps(streamed), streamed
    assert chat["state"] == "error" and chat["text"] is None and not chat["deltas"], chat
    said = [chat["error"]] + ([printed[1]] if printed else [])
    for words in said:  # OpenClaw's words for a run stopped by a gate, around the refusal
        assert words == f"Your message could not be sent: {refusal} (blocked by factdebate)", said

    asked = [r for r in _Agent.requests if _relay_asked(r) is not None]
    systems = {_text_of(r["messages"][0]) for r in asked}
    assert len(systems) == 1 and "word for word" in systems.pop()  # the pass that gives the text: no other task
    # ... and no tool to call, where the agent's other passes are offered its tools
    assert [r for r in asked if r.get("tools")] == [], [r["tools"] for r in asked if r.get("tools")]
    toolless = [json.dumps(r["messages"])[-200:] for r in _Agent.requests
                if _relay_asked(r) is None and not r.get("tools")]
    assert toolless == [], toolless
    deaf = [r for r in _Agent.requests if "[deaf]" in json.dumps(r["messages"])]
    # each of the deaf case's runs: the answer and the pass asked to give the refusal; the pass after it is
    # stopped before it reaches the model
    assert len(deaf) == 2 * (3 + (1 if "deaf" in cli else 0)), [json.dumps(r["messages"])[-300:] for r in deaf]
    stubborn = [a for a in _Agent.requests if "[stubborn]" in json.dumps(a["messages"])]
    assert len(stubborn) == 3 * 2, stubborn  # HTTP and WebChat: the answer, its one revision, the footnoted text

    # the plug-in's status, once WebChat's runs had ended: what each surface shows, and the passes so far (at
    # least WebChat's: five texts given, one refused; none that OpenClaw did not run)
    passes = plugin_status["passes"]
    assert set(plugin_status["surfaces"]) == {"HTTP API, CLI, WebChat", "channels (Telegram, Slack, ...)"}
    assert passes["given"] >= 5 and passes["refused"] >= 1 and passes["notRun"] == 0, plugin_status
    assert KEY not in json.dumps(plugin_status), plugin_status
    # the same words in the gateway's log, from when it loaded the plug-in
    gateway_log = claw.log.read_text(errors="replace")
    for surface, shows in plugin_status["surfaces"].items():
        assert f"factdebate: {surface}: {shows}" in gateway_log, surface


def _over_telegram(claw: Claw, telegram: BotApi,
                   users: dict[str, int]) -> tuple[dict[str, list[str]], list[str], list[str]]:
    """Each case's user writes the case's question to the bot; what each one's chat shows once the gateway is done
    with them, and the lines of the gateway's log meanwhile: those that say a run failed on OpenClaw's state lock,
    and the plug-in's."""
    logged = claw.log.stat().st_size
    for name, user in users.items():
        telegram.say(user, CASES[name][1])
    chats = telegram.chats_when_done(users.values(), quiet_s=3, timeout_s=240)
    with claw.log.open("rb") as log:
        log.seek(logged)
        lines = log.read().decode(errors="replace").splitlines()
    locked = [line for line in lines if LOCKED in line and "profile resolution failed" not in line]
    plugin = [line for line in lines if "factdebate:" in line]
    return {name: chats[user] for name, user in users.items()}, locked, plugin


@INSTALLED
@pytest.mark.timeout(300)
def test_what_a_telegram_chat_shows_under_each_policy(claw: Claw, telegram: BotApi) -> None:
    """The channel path, in the module's gateway: OpenClaw's own Telegram channel polls a scripted Bot API on
    loopback, and each case's user writes to the bot. What the chat shows is the reply OpenClaw delivers, which
    the plug-in's ``reply_payload_sending`` replaces with the checked answer: under flag and a stubborn rewrite the
    answer with its footnote, and the refusal alone for an answer withheld under block or failClosed with the
    checker down. Nothing else was ever on screen."""
    for users in TELEGRAM_USERS:  # OpenClaw failed the round on its own state lock: once more, new chats
        first = len(_Agent.requests)
        shown, locked, said = _over_telegram(claw, telegram, users)
        if not locked and "Something went wrong" not in json.dumps(shown):  # OpenClaw's words for a failed run
            break
    assert all(len(messages) == 1 for messages in shown.values()), shown  # one message in each chat
    for name in ("flag", "stubborn"):  # the answer, and below it what the evidence says
        [text] = shown[name]
        assert text.startswith(f"{WRONG}\n") and "Fact check:" in text, shown[name]
        footnote = f'"{WRONG}" is contradicted by the evidence (Eiffel Tower: "The Eiffel Tower is in Paris.")'
        assert footnote in text, text
    for name, why in (("block", f'a fact check found that it says what the evidence contradicts: "{WRONG}"'),
                      ("closed", "it could not be checked (the fact checker is not available right now).")):
        [text] = shown[name]  # the refusal alone: not OpenClaw's "could not be sent" around it
        assert text == f"This answer was withheld: {why}", shown[name]
    # what the chats showed on the way: each message as it ended (no unmarked answer first, no later edit)
    assert {name: telegram.ever_shown(user) for name, user in users.items()} == shown
    # the agent itself gave each checked text (none of them is the delivery hook's stand-in for a stopped run)
    assert not [line for line in said if "did not give" in line], said
    asked = [json.dumps(r["messages"]) for r in _Agent.requests[first:]]
    stubborn = [a for a in asked if "[stubborn]" in a]
    assert len(stubborn) == 3, stubborn  # the answer, its one revision, the footnoted text given


@pytest.mark.parametrize("policy", ["block", "flag"])
def test_the_provider_way_says_a_dead_checker_in_a_readers_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 policy: str) -> None:
    """The guard as OpenClaw's model provider (way 1) with its checker's server answering 500 to every retry: what
    OpenClaw's user reads is the guard's chat answer (with ``block_finish_reason: stop`` OpenClaw shows it as it
    is, test_the_guard_as_provider_refuses_with_an_answer), plain and streamed. It says the fact checker is not
    available, never the server's address, the attempts or the error; the check's record keeps those for the
    operator. Needs no Node: it reads the guard's answer itself."""
    from factdebate.llm.scripted import ScriptedBackend
    from tests.server.guard_support import ANSWER, Upstream, upstream_app

    def dead(*_: Any) -> str:
        raise EndpointUnavailableError(CHECKER, 16, "HTTP 500: Internal Server Error")

    with LiveServer(upstream_app(Upstream())) as model:
        for name, value in {"UPSTREAM": f"{model.url}/v1", "POLICY": policy, "ON_UNCHECKED": "block" if policy ==
                            "block" else "pass", "BLOCK_FINISH_REASON": "stop", "TIER": "fast",
                            "MAX_TIER": "fast"}.items():
            monkeypatch.setenv(f"FACTDEBATE_GUARD__{name}", value)
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                         build=lambda settings: offline_build(settings, ScriptedBackend(dead)))
        with LiveServer(app) as guard:
            chat = {"model": "m1", "messages": [{"role": "user", "content": "Tell me about Paris."}]}
            auth = {"Authorization": f"Bearer {KEY}"}
            plain = httpx.post(f"{guard.url}/v1/chat/completions", json=chat, headers=auth, timeout=120)
            streamed = httpx.post(f"{guard.url}/v1/chat/completions", json={**chat, "stream": True}, headers=auth,
                                  timeout=120)
            record = httpx.get(f"{guard.url}/v1/checks/{plain.headers['X-Factdebate-Check-Id']}", headers=auth,
                               timeout=30).json()
    assert plain.status_code == streamed.status_code == 200, (plain.text, streamed.text)
    chunks = [json.loads(line[6:]) for line in streamed.text.splitlines() if line.startswith("data: {")]
    read = {"plain": str(plain.json()["choices"][0]["message"]["content"]),
            "streamed": "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices"))}
    unavailable = "the fact checker is not available right now"
    for way, text in read.items():
        if policy == "block":
            assert text == f"This answer was withheld: it could not be checked ({unavailable}).", (way, text)
        else:
            assert text.startswith(ANSWER) and f"- The answer could not be checked: {unavailable}" in text, (way, text)
        for technical in ("http", "checker.internal", "operator's", "attempt", "500"):
            assert technical not in text, (way, technical, text)
    assert "after 16 attempt(s): HTTP 500" in record["verdict"]["degraded_reason"], record["verdict"]


@INSTALLED
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
            with _gateway(tmp_path, _Model, provider) as claw:
                reply = httpx.post(claw.completions, timeout=400, headers={"Authorization": f"Bearer {TOKEN}"}, json={
                    "model": "openclaw", "user": "alice",
                    "messages": [{"role": "user", "content": "Tell me about Paris."}]})
    if finish == "stop":
        assert reply.status_code == 200, reply.text
        shown = str(reply.json()["choices"][0]["message"]["content"])
        assert shown.startswith("This answer was withheld") and rome in shown and ANSWER not in shown, shown
    else:  # what the issue saw: the run fails (OpenClaw 2026.9.6's HTTP API: 500, "internal error")
        assert reply.status_code >= 500 and "withheld" not in reply.text, reply.text


@INSTALLED
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
    with _gateway(tmp_path, _McpAgent, mcp) as claw, ThreadPoolExecutor(2) as pool:
        shown = list(pool.map(lambda user: _ask(claw.completions, user), ["alice", "bob"]))
    assert shown == ["verdict: REFUTES", "verdict: REFUTES"]
    called = [r for r in _McpAgent.requests if any(m.get("role") in ("tool", "toolResult") for m in r["messages"])]
    assert len(called) == 2  # each session called the tool once and read its result
