"""The conformance suite through the real gateways: LiteLLM's proxy server and NeMo
Guardrails' ``LLMRails``, each run from its own locked environment (.venv-litellm, .venv-nemo: scripts/setup.sh
--dev builds them from requirements/gateways/) as a separate process, as teams deploy them, in front of the
guard with the conformance suite's scripted checker and upstream model (test_conformance.open_world).

- LiteLLM: ``litellm --config docs/guard/litellm-config.yaml`` as the docs give it (its addresses and keys come
  from the environment), on a free loopback port, with outbound connections sent to a dead proxy (and, under
  scripts/test.sh, no network at all). A client asks it for the answer plain and streamed, of both its models:
  ``gpt-4o-mini`` (the guard as LiteLLM's guardrail) and ``gpt-4o-mini-checked`` (the guard as LiteLLM's model:
  LiteLLM calls the guard's chat route, which drops what LiteLLM does not pass on, so the client finds the
  verdicts by the check id LiteLLM renames, or by its conversation). The one addition to the file: a third
  model behind a copy of the documented guardrail under policy ``block`` (proxy_config), so ``block`` runs
  through the same proxy.
- NeMo: a small script (nemo_rails.py) builds ``LLMRails`` from docs/guard/nemo's files as they are (the main
  model's address from ``OPENAI_BASE_URL``, which their config.py passes on) and answers one ``generate`` per
  line it reads.

Asserted per scenario and gateway: the guard is asked once per reply (LiteLLM's stream included: never its
partial text; the guard as LiteLLM's model is not run through the guardrail as well); what the client gets
is what the guard decided (a flagged answer arrives with its footnote, a blocked one not at all); no false
sentence reaches the client as checked (test_conformance.judge); and the verdicts are those of the direct
door, ``POST /v1/guard/check`` with the same options. A few scenarios, not
all of them: the gateways add nothing per scenario that the others would exercise. Slower than 5 s: the
first test of each gateway waits for its process, one per module. Measured on the 2-core machine at load 18:
LiteLLM's proxy ready after 7.6 CPU-seconds (47 s of wall time at that load; it imports all of LiteLLM),
NeMo's ``LLMRails`` built after 1.2 CPU-seconds (6.4 s); the whole module used 16 CPU-seconds of pytest's.
"""

from __future__ import annotations

import copy
import json
import os
import select
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.guard.conformance.scenarios import BERLIN, PARIS, SCENARIOS, TOWER, Faults, Scenario
from tests.guard.conformance.test_conformance import Outcome, World, conversation, judge, open_world, prepare
from tests.guard.conformance.test_conformance import verdicts as by_words
from tests.readiness import wait_until_ready
from tests.server.conftest import AUTH, KEY, free_port

ROOT = Path(__file__).resolve().parents[3]
LITELLM = ROOT / ".venv-litellm" / "bin" / "litellm"
NEMO_PYTHON = ROOT / ".venv-nemo" / "bin" / "python"
LITELLM_CONFIG = ROOT / "docs" / "guard" / "litellm-config.yaml"
NEMO_CONFIG = ROOT / "docs" / "guard" / "nemo"
MASTER_KEY = "sk-conformance-master-key"
GUARDRAIL_PATH = "/beta/litellm_basic_guardrail_api"
PRE_CALL = GUARDRAIL_PATH + " (pre_call)"  # the guardrail's check of a request, recorded apart
CHAT_PATH = "/v1/chat/completions"
CHECKED_MODEL = "gpt-4o-mini-checked"  # the documented config's model served through the guard's chat route
BLOCK_MODEL = "gpt-4o-mini-block"  # the tests' one addition: the documented guardrail again, under policy block
RENAMED_CHECK_ID = "llm_provider-x-factdebate-check-id"  # X-Factdebate-Check-Id as LiteLLM passes it on
MISSING = "{} is missing: `make setup` (scripts/setup.sh --dev) builds it from requirements/gateways/"

# A few of the suite's scenarios, each to the documented options (flag, fail closed) and its own faults.
NAMES = ("checker-down-flag-pass", "checker-malformed-flag-pass", "upstream-cut-mid-sentence", "pronoun-sentence",
         "framed-honestly", "correction-contradicted-by-quote")
CHOSEN = [*(s for s in SCENARIOS if s.name in NAMES), Scenario("all-true-flag", reply=f"{PARIS} {TOWER}"),
          Scenario("extractor-down", reply=f"{TOWER} {BERLIN}", faults=Faults(down="extract"))]
# Through the guard as LiteLLM's model, fewer: the guard's chat route meets every scenario in the suite already,
# and what LiteLLM adds (the header, the dropped chunk, the options) shows in any of them (checker-down only costs).
MODEL_CHOSEN = [s for s in CHOSEN if s.name in ("pronoun-sentence", "correction-contradicted-by-quote",
                                                "checker-malformed-flag-pass", "upstream-cut-mid-sentence",
                                                "all-true-flag")]
# Under block (LiteLLM's BLOCKED: an error for the client, a stream's included, never the answer's start).
BLOCK_CHOSEN = [s for s in CHOSEN if s.name in ("pronoun-sentence", "checker-malformed-flag-pass", "all-true-flag")]
LITELLM_CASES = [*((s, "flag") for s in CHOSEN), *((s, "block") for s in BLOCK_CHOSEN)]


@dataclass
class Recorder:
    """The guard's answers on its gateway routes (what LiteLLM's guardrail and NeMo's action were told)."""

    answers: list[tuple[str, Any]] = field(default_factory=list)
    call_ids: list[Any] = field(default_factory=list)  # each guardrail check's litellm_call_id, in order
    checks: list[Any] = field(default_factory=list)  # each request to /v1/guard/check, as sent

    def wrap(self, app: Any) -> Any:
        async def recorded(scope: dict[str, Any], receive: Any, send: Any) -> None:
            path = scope.get("path", "")
            if scope["type"] != "http" or path not in (GUARDRAIL_PATH, "/v1/guard/check", CHAT_PATH):
                await app(scope, receive, send)
                return
            body, asked = bytearray(), bytearray()

            async def read() -> Any:
                message = await receive()
                if message["type"] == "http.request":
                    asked.extend(message.get("body", b""))
                return message

            async def keep(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.body":
                    body.extend(message.get("body", b""))
                    if not message.get("more_body"):  # (a stream's body is not JSON: kept as None)
                        answer = None if body.startswith(b"data:") else json.loads(body or b"null")
                        request = json.loads(asked) if path == GUARDRAIL_PATH and asked else {}
                        if request.get("input_type") == "request":  # LiteLLM's pre_call check of the request
                            self.answers.append((PRE_CALL, {"answer": answer, "request": request}))
                        else:
                            self.answers.append((path, answer))
                        if request:
                            self.call_ids.append(request.get("litellm_call_id"))
                        if path == "/v1/guard/check":
                            self.checks.append(json.loads(asked or b"null"))
                await send(message)

            await app(scope, read, keep)

        return recorded

    def take(self) -> list[tuple[str, Any]]:
        taken, self.answers = self.answers, []
        return taken

    def take_call_ids(self) -> list[Any]:
        taken, self.call_ids = self.call_ids, []
        return taken


@dataclass
class Gateways:
    world: World
    recorder: Recorder
    env: dict[str, str]


@pytest.fixture(scope="module")
def gateways(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateways]:
    recorder = Recorder()
    with open_world(tmp_path_factory.mktemp("gateways"), recorder.wrap) as world:
        yield Gateways(world, recorder, gateway_env(world))


def gateway_env(world: World) -> dict[str, str]:
    """The gateways' environment: the guard's and the upstream's addresses and keys, and the network cut."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update({
        # The network cut for the gateways: anything but loopback goes to a port where nothing listens.
        "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1,localhost",
        "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "FACTDEBATE_URL": world.guard_url, "FACTDEBATE_API_BASE": f"{world.guard_url}/v1",
        "FACTDEBATE_API_KEYS": KEY, "LITELLM_MASTER_KEY": MASTER_KEY,
        "OPENAI_BASE_URL": f"{world.upstream_url}/v1", "OPENAI_API_KEY": "sk-scripted-upstream"})
    return env


@pytest.fixture(scope="module")
def litellm_proxy(gateways: Gateways, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not LITELLM.exists():
        pytest.skip(MISSING.format(".venv-litellm"))
    port, folder = free_port(), tmp_path_factory.mktemp("litellm")
    log = (folder / "proxy.log").open("w+")
    process = subprocess.Popen([str(LITELLM), "--config", str(proxy_config(folder)), "--host", "127.0.0.1",
                                "--port", str(port), "--num_workers", "1"],
                               env=gateways.env, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    url = f"http://127.0.0.1:{port}"

    def live() -> bool:
        try:
            return httpx.get(f"{url}/health/liveliness", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    try:
        # Its import takes about 8 CPU-seconds: at load 20 over 90 s of wall time, so the wait is by state.
        ready = wait_until_ready(live, process, "LiteLLM's proxy", log=Path(log.name))
        print(f"LiteLLM's proxy ready after {ready.cpu_s} CPU-s of its own, {ready.wall_s} s")  # (pytest -s)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def proxy_config(folder: Path) -> Path:
    """The documented config with one model more: ``gpt-4o-mini`` again, behind a copy of the documented
    guardrail whose policy is ``block`` (a guardrail's options are the operator's, per guardrail: LiteLLM passes
    a request's own only on its Enterprise tier), so ``block`` runs through the same proxy."""
    config = yaml.safe_load(LITELLM_CONFIG.read_text())
    guardrail = copy.deepcopy(config["guardrails"][0])
    guardrail["guardrail_name"] = "factdebate-block"
    guardrail["litellm_params"]["additional_provider_specific_params"]["policy"] = "block"
    model = copy.deepcopy(config["model_list"][0])
    model["model_name"] = BLOCK_MODEL
    model["litellm_params"]["guardrails"] = [guardrail["guardrail_name"]]
    config["guardrails"].append(guardrail)
    config["model_list"].append(model)
    path = folder / "litellm-config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def documented_options() -> dict[str, Any]:
    entry = yaml.safe_load(LITELLM_CONFIG.read_text())["guardrails"][0]["litellm_params"]
    return dict(entry["additional_provider_specific_params"])


def direct(gateways: Gateways, scenario: Scenario, options: dict[str, Any]) -> dict[str, Any]:
    """The same reply through ``POST /v1/guard/check`` with the gateway's options: the verdicts to match."""
    reply = httpx.post(f"{gateways.world.guard_url}/v1/guard/check", headers=AUTH, timeout=60, json={
        "text": scenario.reply, "messages": conversation(scenario), "factdebate": options})
    gateways.recorder.take()
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


def verdicts(result: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    return sorted((c["claim"], c["label"], c["status"]) for c in result["claims"])


def model_options() -> dict[str, Any]:
    """The options the documented config's guard-as-model entry sends (its ``extra_body``)."""
    models = yaml.safe_load(LITELLM_CONFIG.read_text())["model_list"]
    entry = next(m for m in models if m["model_name"] == CHECKED_MODEL)["litellm_params"]
    return dict(entry["extra_body"]["factdebate"])


@dataclass
class Got:
    """What LiteLLM's client got."""

    text: str | None  # the answer's text (None: an error instead)
    problem: str = ""  # the error, if any
    headers: dict[str, str] = field(default_factory=dict)
    factdebate: dict[str, Any] | None = None  # a ``factdebate`` object in the body or in a chunk, if one came


def through_litellm(url: str, scenario: Scenario, stream: bool, model: str = "gpt-4o-mini",
                    options: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> Got:
    """Ask LiteLLM for ``scenario``'s answer as its client would (``options``: the client's own ``factdebate``
    object, sent as the OpenAI SDK's ``extra_body`` sends it; ``extra``: more of the request, such as its
    ``response_format``)."""
    body: dict[str, Any] = {"model": model, "messages": conversation(scenario), "stream": stream, **(extra or {})}
    if options is not None:
        body["factdebate"] = options
    headers = {"Authorization": f"Bearer {MASTER_KEY}"}
    if not stream:
        reply = httpx.post(f"{url}/v1/chat/completions", json=body, headers=headers, timeout=90)
        if reply.status_code != 200:
            return Got(None, f"{reply.status_code} {reply.text}", dict(reply.headers))
        data = reply.json()
        return Got(data["choices"][0]["message"].get("content") or "", "", dict(reply.headers), data.get("factdebate"))
    got = Got("")
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, headers=headers, timeout=90) as reply:
        got.headers = dict(reply.headers)
        if reply.status_code != 200:
            return Got(None, f"{reply.status_code} {reply.read()!r}", got.headers)
        for line in reply.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if "error" in chunk:
                got.problem = json.dumps(chunk["error"])
            got.factdebate = chunk.get("factdebate", got.factdebate)
            for choice in chunk.get("choices") or []:
                got.text = (got.text or "") + ((choice.get("delta") or {}).get("content") or "")
    return got


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(("scenario", "policy"), LITELLM_CASES, ids=lambda c: c if isinstance(c, str) else c.name)
def test_litellms_proxy_delivers_only_what_the_guard_decided(gateways: Gateways, litellm_proxy: str,
                                                             scenario: Scenario, policy: str, stream: bool) -> None:
    options = {**documented_options(), "policy": policy}
    prepare(gateways.world, scenario)
    expected = direct(gateways, scenario, options)
    gateways.recorder.take_call_ids()
    got = through_litellm(litellm_proxy, scenario, stream, model=BLOCK_MODEL if policy == "block" else "gpt-4o-mini")
    delivered, problem = got.text, got.problem
    recorded = gateways.recorder.take()
    asked = [answer for path, answer in recorded if path == GUARDRAIL_PATH]
    door = f"LiteLLM {'stream' if stream else 'plain'} ({policy})"
    assert len(asked) == 1, f"{scenario.name} through {door}: the guard was asked {len(asked)} times: {asked}"
    # The request's pre_call check (the documented mode): it passes, and its conversation and call id are those
    # the reply's check is read with (server/guard/litellm.py).
    [before] = [answer for path, answer in recorded if path == PRE_CALL]
    assert before["answer"] == {"action": "NONE"}, before
    assert before["request"].get("litellm_call_id") and before["request"].get("structured_messages"), before
    ids = gateways.recorder.take_call_ids()
    assert len(ids) == 2 and ids[0] == ids[1], f"{door}: the reply's check is not the request's call: {ids}"
    answer = asked[0]
    if "factdebate" not in answer:  # the guard refused or failed: LiteLLM fails closed
        assert delivered is None or not delivered.strip(), f"{door}: {delivered!r} delivered after {answer}"
        return
    result = answer["factdebate"][0]
    if "original_text" in result:  # the whole reply, once: not a stream's partial text, not its own footnote
        assert result["original_text"] == scenario.reply, f"{door}: the guard checked {result['original_text']!r}"
    judge(scenario, Outcome(door, delivered, result, problem))
    if result["action_taken"] == "blocked":  # an error instead, and not a word of the answer before it
        assert not delivered and (problem or delivered is None), f"{door}: {delivered!r} delivered, blocked"
        assert "withheld" in problem, f"{door}: the client was not told why: {problem!r}"
    else:
        decided = answer["texts"][0] if answer["action"] == "GUARDRAIL_INTERVENED" else scenario.reply
        assert delivered == decided, f"{door}: the client got {delivered!r}, the guard decided {decided!r}"
    assert verdicts(result) == verdicts(expected), f"{scenario.name}: {door} differs from /v1/guard/check"


def kept(gateways: Gateways, check_id: str) -> dict[str, Any]:
    """The guard's kept check, as its client reads it again (``GET /v1/checks/{id}``)."""
    reply = httpx.get(f"{gateways.world.guard_url}/v1/checks/{check_id}", headers=AUTH, timeout=30)
    assert reply.status_code == 200, reply.text
    verdict: dict[str, Any] = reply.json()["verdict"]
    return verdict


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("scenario", MODEL_CHOSEN, ids=lambda s: s.name)
def test_the_guard_as_litellms_model_delivers_only_what_it_decided(gateways: Gateways, litellm_proxy: str,
                                                                   scenario: Scenario, stream: bool) -> None:
    """The documented config's second model: LiteLLM calls the guard's chat route (once, and not through the
    guardrail as well). What its client gets, as docs/guard.md says: the policy's text (flag's footnote
    included, a stream's too); the check id only as ``llm_provider-x-factdebate-check-id``; the ``factdebate``
    object in a plain reply, and none in a stream (LiteLLM 1.108.7 drops the chunk that carries it), so the
    verdicts are read again by that id."""
    options = model_options()
    prepare(gateways.world, scenario)
    expected = direct(gateways, scenario, options)
    got = through_litellm(litellm_proxy, scenario, stream, model=CHECKED_MODEL)
    door = f"the guard as LiteLLM's model, {'stream' if stream else 'plain'}"
    asked = [path for path, _ in gateways.recorder.take()]
    assert asked == [CHAT_PATH], f"{scenario.name} through {door}: the guard was asked {asked}"
    assert "x-factdebate-check-id" not in got.headers, f"{door}: LiteLLM passed the header on by its own name"
    check_id = got.headers.get(RENAMED_CHECK_ID)
    assert check_id, f"{door}: no {RENAMED_CHECK_ID} header ({got.problem or 'no error'}): {got.headers}"
    result = kept(gateways, check_id)
    if stream:
        assert got.factdebate is None, f"{door}: LiteLLM now passes the verdicts' chunk on; docs/guard.md says not"
    else:
        assert got.factdebate is not None and got.factdebate["check_id"] == check_id, f"{door}: {got.factdebate}"
        assert verdicts(got.factdebate) == verdicts(result)
    assert result["policy"] == options["policy"] and result["tier"] == options["tier"], f"{door}: {result}"
    judge(scenario, Outcome(door, got.text, result, got.problem))
    assert got.text == result["text"], f"{door}: the client got {got.text!r}, the guard decided {result['text']!r}"
    # Named by the words each claim's span marks, as the suite compares doors (a stream's extractor may leave
    # "It is in Berlin." as it is where the whole reply's resolves "It").
    found, direct_door = (by_words(Outcome(door, got.text, r), scenario.reply) for r in (result, expected))
    assert found == direct_door, f"{scenario.name}: {door} differs from /v1/guard/check"


def test_a_litellm_client_finds_its_checks_by_conversation(gateways: Gateways, litellm_proxy: str) -> None:
    """A LiteLLM client's own ``factdebate`` object reaches the guard and replaces the config's whole (LiteLLM
    merges ``extra_body`` by its top-level keys), so it restates the options with its ``conversation_id``; the
    conversation's checks then list every reply, newest first, streamed ones too."""
    scenario = Scenario("pronoun", reply=f"{TOWER} It is in Berlin.")
    prepare(gateways.world, scenario)
    conversation_id = "litellm-client-1"
    ids = []
    for stream in (False, True):
        got = through_litellm(litellm_proxy, scenario, stream, model=CHECKED_MODEL,
                              options={**model_options(), "conversation_id": conversation_id})
        ids.append(got.headers[RENAMED_CHECK_ID])
    alone = through_litellm(litellm_proxy, scenario, False, model=CHECKED_MODEL,
                            options={"conversation_id": "litellm-client-2"})
    gateways.recorder.take()
    listed = httpx.get(f"{gateways.world.guard_url}/v1/checks", headers=AUTH, timeout=30,
                       params={"conversation_id": conversation_id}).json()["checks"]
    assert [c["id"] for c in listed] == ids[::-1]
    for check in listed:
        assert check["verdict"]["policy"] == model_options()["policy"]
        # The documented config sends no passages and the world's tools find none: the checker's REFUTES
        # quotes nothing, so the claim is listed unchecked, never flagged.
        assert any(c["status"] == "unchecked" and "Berlin" in c["claim"] for c in check["verdict"]["claims"])
    # Its deadline is the world's guard.deadline_s (60 s), not the config's 20 s (its policy, flag, is the
    # guard's default too, so it would not tell).
    assert alone.factdebate is not None and alone.factdebate["deadline_s"] != model_options()["deadline_s"], \
        "the client's factdebate object no longer replaces the config's: docs/guard.md says it does"


NEMO_SCRIPT = Path(__file__).with_name("nemo_rails.py")


@dataclass
class Nemo:
    process: subprocess.Popen[str]
    log: Path  # its stderr (what NeMo printed)


@pytest.fixture(scope="module")
def nemo(gateways: Gateways, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Nemo]:
    if not NEMO_PYTHON.exists():
        pytest.skip(MISSING.format(".venv-nemo"))
    folder = tmp_path_factory.mktemp("nemo") / "config"
    # The documented files as they are: the main model is found through OPENAI_BASE_URL (config.py), as the
    # quick start's reader points it at a local server.
    shutil.copytree(NEMO_CONFIG, folder)
    assert gateways.env["OPENAI_BASE_URL"] and "base_url" not in (folder / "config.yml").read_text()
    log = folder.parent / "nemo.log"
    with log.open("w") as errors:
        process = subprocess.Popen([str(NEMO_PYTHON), str(NEMO_SCRIPT), str(folder)], env=gateways.env, text=True,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
    try:
        # The script says "ready" once LLMRails is built (NeMo's import is seconds of CPU: slower under load).
        ready = wait_until_ready(lambda: said_ready(process), process, "NeMo's LLMRails", log=log)
        print(f"NeMo's LLMRails ready after {ready.cpu_s} CPU-s of its own, {ready.wall_s} s")  # (pytest -s)
        yield Nemo(process, log)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def said_ready(process: subprocess.Popen[str]) -> bool:
    """Whether the script's first line, ``{"ready": true}``, has come (without blocking before it has)."""
    assert process.stdout is not None
    if not select.select([process.stdout], [], [], 0)[0]:
        return False
    line = process.stdout.readline()
    assert not line or json.loads(line) == {"ready": True}, f"NeMo's script began with {line!r}"
    return bool(line)


def through_nemo(nemo: Nemo, scenario: Scenario) -> dict[str, Any]:
    process = nemo.process
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps({"messages": conversation(scenario)}) + "\n")
    process.stdin.flush()
    line = process.stdout.readline()
    assert line, f"NeMo's script ended (exit {process.poll()}):\n{nemo.log.read_text()[-4000:]}"
    found: dict[str, Any] = json.loads(line)
    return found


def nemo_options() -> dict[str, Any]:
    """The documented action's options (docs/guard/nemo/actions.py's OPTIONS), read without importing NeMo."""
    source = (NEMO_CONFIG / "actions.py").read_text()
    line = next(line for line in source.splitlines() if line.startswith("OPTIONS"))
    options: dict[str, Any] = json.loads(line.split(" = ", 1)[1])  # past its annotation
    return options


@pytest.mark.parametrize("scenario", CHOSEN[:4] + CHOSEN[-2:], ids=lambda s: s.name)
def test_nemos_llmrails_delivers_only_what_the_guard_decided(gateways: Gateways, nemo: Nemo,
                                                             scenario: Scenario) -> None:
    options = nemo_options()
    prepare(gateways.world, scenario)
    expected = direct(gateways, scenario, {**options, "evidence": []})
    out = through_nemo(nemo, scenario)
    asked = [answer for path, answer in gateways.recorder.take() if path == "/v1/guard/check"]
    assert len(asked) == 1, f"{scenario.name} through NeMo: the guard was asked {len(asked)} times"
    result, delivered = asked[0], out.get("content")
    if "claims" not in result:  # the guard refused or failed: the action raises, NeMo answers no answer
        assert not delivered or scenario.reply not in delivered, f"NeMo: {delivered!r} delivered after {result}"
        return
    judge(scenario, Outcome("NeMo", delivered, result, out.get("error", "")))
    if result["action_taken"] == "blocked":
        assert scenario.reply not in (delivered or "")
    else:
        assert delivered == result["text"], f"NeMo: the user got {delivered!r}, the guard decided {result['text']!r}"
    assert verdicts(result) == verdicts(expected), f"{scenario.name}: NeMo differs from /v1/guard/check"


def test_nemos_action_sends_the_conversation_it_has(gateways: Gateways, nemo: Nemo) -> None:
    """A follow-up through the real ``LLMRails``: the documented action sends the system prompt and the turns
    before the answer (NeMo's events), so the guard reads "It is in Berlin." with the tower it is about."""
    before = [{"role": "system", "content": "You are a travel guide for Paris."},
              {"role": "user", "content": "Tell me about the Eiffel Tower."},
              {"role": "assistant", "content": TOWER},
              {"role": "user", "content": "Where is it, again?"}]
    scenario = Scenario("nemo-follow-up", reply=BERLIN, messages=before)
    prepare(gateways.world, scenario)
    gateways.recorder.checks.clear()
    out = through_nemo(nemo, scenario)
    asked = [answer for path, answer in gateways.recorder.take() if path == "/v1/guard/check"]
    assert len(asked) == 1 and len(gateways.recorder.checks) == 1, out
    sent = gateways.recorder.checks[0]
    assert sent["text"] == BERLIN and sent["question"] == "Where is it, again?"
    assert sent["messages"] == before, sent["messages"]  # the answer itself is the text, not a turn
    assert out.get("content") == asked[0]["text"] and asked[0]["action_taken"] == "flagged"
