"""The ``openai:`` path against a real llama.cpp server: llama-cpp-python's own OpenAI-compatible server
(its ``[server]`` extra, a dev dependency) serving the shipped SmolLM2 weights in a subprocess, no fakes.

The goal these tests hold: every verdict and every turn labelled, no unparsed answer, because the backend
detects the server and constrains labels, queries and verdict lines with grammars."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from benchmarks.served import Proxy
from factdebate.core.types import Label, Verdict
from factdebate.llm.base import GenParams, Message
from factdebate.llm.llama_cpp import builtin_model_path
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.methods.kit.common import LABEL_CHOICES
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.helpers import BagOfWordsEncoder, StaticTool
from tests.readiness import wait_until_ready

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(builtin_model_path() is None or importlib.util.find_spec("sse_starlette") is None,
                       reason="needs the built-in model and llama-cpp-python[server] (scripts/setup.sh)"),
]

EXE = str(Path(sys.executable).with_name("factdebate"))
MODEL = "smollm2"
LABELS = {label.value for label in Label}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = (tmp_path_factory.mktemp("llama-server") / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(builtin_model_path()), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--model_alias", MODEL, "--seed", "0",
         # One thread for prompts as for tokens (the server's default gives prompts every core): the suite
         # keeps both cores busy, where llama.cpp's waiting threads spin (llm/llama_threads.py).
         "--n_threads", "1", "--n_threads_batch", "1",
         # As docs/configuration.md says to start it: a request that arrives waits for the one being answered
         # instead of cutting its stream.
         "--interrupt_requests", "False"],
        stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"

    def serving() -> bool:
        try:
            return httpx.get(f"{url}/models", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    try:
        # Loading the model is CPU and disk: waited for by the server's state, not a wall-clock limit.
        wait_until_ready(serving, process, "llama-cpp-python's server", log=Path(log.name), every_s=0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _verify(server_url: str, *args: str, env: dict[str, str] | None = None) -> Verdict:
    full_env = {**os.environ, "OPENAI_BASE_URL": server_url, **(env or {})}
    result = subprocess.run([EXE, "verify", "Paris is the capital of France.", "--llm", f"openai:{MODEL}",
                             "--json", "--no-cache", *args], capture_output=True, text=True, env=full_env,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    return Verdict.model_validate(json.loads(result.stdout))


def _assert_all_labelled(verdict: Verdict) -> None:
    assert verdict.label is not None and verdict.decided_by != "unparsed"
    assert verdict.unparsed_turns == 0
    labelled = [t for r in verdict.rounds for t in r.turns if t.label is not None]
    assert labelled and all(t.label_constrained for t in labelled)
    if verdict.judge is not None:
        assert verdict.judge.label is not None and verdict.judge.label_constrained


async def test_the_backend_recognises_the_server_and_holds_answers_to_the_labels(server_url: str) -> None:
    backend = OpenAIBackend(MODEL, base_url=server_url)
    assert await backend.resolve_constrain() == "grammar"
    reply = await backend.complete([{"role": "user", "content": "Is Paris in France?"}],
                                   GenParams(max_tokens=8, choices=LABEL_CHOICES))
    assert reply.constrained and reply.text in LABEL_CHOICES


async def test_the_server_says_it_serves_one_request_at_a_time(server_url: str) -> None:
    """llama-cpp-python's server names itself in its model list (``owned_by: me``) and serves one request at a
    time: that is what the limit follows, and its root has no /props to ask (llm/server_slots.py)."""
    from factdebate.llm.server_slots import props_url

    backend = OpenAIBackend(MODEL, base_url=server_url)
    said = await backend.server_slots()
    assert said is not None and said.count == 1 and "llama-cpp-python" in said.said_by
    async with httpx.AsyncClient() as client:
        assert (await client.get(props_url(server_url))).status_code == 404
    await backend.aclose()


def test_verify_labels_every_turn_through_the_openai_path(server_url: str) -> None:
    verdict = _verify(server_url, "--agents", "none,none", "--rounds", "1", "--no-scoring")
    _assert_all_labelled(verdict)
    # One held generation per answer: no label re-ask was needed.
    assert all(t.parse_retries == 0 for r in verdict.rounds for t in r.turns)


def test_mad_labels_through_the_openai_path(server_url: str) -> None:
    verdict = _verify(server_url, "--method", "mad", env={"FACTDEBATE_BASELINES__MAD_ROUNDS": "1"})
    _assert_all_labelled(verdict)


async def test_tool_mad_with_tools_and_query_rewrites_labels_every_turn(server_url: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server_url)
    settings = load_settings(overrides={"llm": {"debater": f"openai:{MODEL}", "cache": False},
                                        "methods": {"tool-mad": {"rounds": 2, "scoring": False}}}, environ={})
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
    verdict = await run_claim("Paris is the capital of France.", settings, resources)
    _assert_all_labelled(verdict)


async def test_a_rejected_json_schema_falls_back_and_says_so(server_url: str) -> None:
    # llama-cpp-python refuses response_format type json_schema (a 500 naming the field).
    backend = OpenAIBackend(MODEL, base_url=server_url, constrain="json_schema")
    reply = await backend.complete([{"role": "user", "content": "Is Paris in France?"}],
                                   GenParams(max_tokens=8, choices=LABEL_CHOICES))
    assert backend.constrain == "none" and "rejected a 'json_schema' constraint" in backend.constraint_notes[0]
    assert not reply.constrained and reply.completion_tokens > 0


# A JSON string holding a raw newline: what llama.cpp's JSON-schema grammars let a model write (their string
# rule admits control characters). Each reader of model replies reads it, as it reads anything the
# constraint allowed (llm/json_reply.py).
NEWLINE_REPLIES = {
    "mermaid step": '{"thought": "The claim names Paris.\nParis is in France.", "answer": "True"}',
    "mermaid decomposition": '{"triplets": [{"subject": "Paris", "relation": "capital of", "object": "France",'
                             ' "attributes": "city\nnation"}], "topic": "geography"}',
    "dpd ballot": '{"why": "The affirmative cites an atlas.\nThe negative cites nothing.", "affirmative": '
                  '{"evidence": 0.9, "logic": 0.8, "neutrality": 0.7, "persuasiveness": 0.8}, "negative": '
                  '{"evidence": 0.2, "logic": 0.3, "neutrality": 0.6, "persuasiveness": 0.3}, "vote": '
                  '"affirmative", "confidence": 0.8}',
    "dpd queries": '{"support": "Paris capital\nFrance", "refute": "capital of France other city"}',
    "claim extraction": '{"claims": ["Paris is the capital\nof France."]}',
    "factool verdict": '{"reasoning": "The atlas says so.\nNothing disagrees.", "factual": true}',
    "json template": '{"reasoning": "The atlas says so.\nNothing disagrees.", "verdict": "SUPPORTS"}',
}


def _read_reply(reader: str, text: str) -> object:
    from factdebate.llm.constraints import render_json
    from factdebate.methods.baselines.factool import read_verification
    from factdebate.methods.dpd.panel import read_ballot
    from factdebate.methods.dpd.team import parse_queries
    from factdebate.methods.mermaid.decomposer import parse_decomposition
    from factdebate.methods.mermaid.executor import parse_step
    from factdebate.response_level.extract import parse_string_list

    readers = {
        "mermaid step": lambda: parse_step(text, False).label,  # type: ignore[union-attr]
        "mermaid decomposition": lambda: parse_decomposition(text).triplets[0]["attributes"],  # type: ignore[union-attr]
        "dpd ballot": lambda: read_ballot(text).vote,
        "dpd queries": lambda: parse_queries(text),
        "claim extraction": lambda: parse_string_list(text, "claims")[0],
        "factool verdict": lambda: read_verification(text)[0],
        "json template": lambda: render_json(text, "{reasoning}\nVerdict: {verdict}"),
    }
    return readers[reader]()


@pytest.mark.parametrize("reader", list(NEWLINE_REPLIES))
async def test_every_reader_reads_a_newline_inside_a_json_string_as_the_server_wrote_it(server_url: str,
                                                                                         reader: str) -> None:
    wanted = NEWLINE_REPLIES[reader]
    with pytest.raises(json.JSONDecodeError, match="control character"):
        json.loads(wanted)  # the strict reading every parser used before
    backend = OpenAIBackend(MODEL, base_url=server_url)
    # The server replays the reply: a grammar of that one string leaves the model no other token.
    replayed = await backend.complete([{"role": "user", "content": "Answer in JSON."}],
                                      GenParams(max_tokens=400, grammar=f"root ::= {json.dumps(wanted)}\n"))
    assert replayed.constrained and replayed.text == wanted
    value = _read_reply(reader, replayed.text)
    assert value is not None and value != ([], "")
    if reader in ("mermaid step", "factool verdict"):
        assert value in (Label.SUPPORTS, True)
    if reader == "dpd ballot":
        assert value == 1


async def _probe_seconds(model: OpenAIBackend) -> float:
    started = time.perf_counter()
    await model.complete([{"role": "user", "content": "Say OK."}], GenParams(max_tokens=1))
    return time.perf_counter() - started


STORY: list[Message] = [{"role": "user", "content": "Write a long story about a lighthouse keeper and a storm, "
                                                    "chapter by chapter."}]


async def test_a_cancelled_call_stops_the_server_behind_a_gateway_that_names_none(server_url: str) -> None:
    """Calls end when their claim does also where nothing names the server: by default
    (``llm.stream: auto``) a call through a gateway whose ``GET /models`` is 404 (OpenAI's API, Ollama and most
    gateways name no server that stops) is a stream, so cancelling it, as a deadline or a given-up try does,
    stops llama-cpp-python generating. The server answers one request at a time, so a one-token probe sent
    after the cancel waits for whatever the cancelled answer still generates (benchmarks/served_cancel.py
    --nameless measures the same)."""
    gateway = Proxy(server_url.removesuffix("/v1"), names_server=False)
    model = OpenAIBackend(MODEL, base_url=f"{gateway.url}/v1", timeout=600, constrain="none")
    try:
        alone = await _probe_seconds(model)
        call = asyncio.create_task(model.complete(STORY, GenParams(max_tokens=2000, temperature=0.7)))
        await asyncio.sleep(1.5)
        assert not call.done(), "the story ended within 1.5 s: nothing was left to stop"
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        after = await _probe_seconds(model)
    finally:
        await model.aclose()
        gateway.server.shutdown()
    # Up to 2,000 tokens more would hold the probe for minutes here; a stopped answer, a second or two.
    assert after - alone < 30, f"the server went on generating {after - alone:.1f} s after the cancel"
