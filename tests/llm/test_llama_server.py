"""The ``openai:`` path against a real llama.cpp server: llama-cpp-python's own OpenAI-compatible server
(its ``[server]`` extra, a dev dependency) serving the shipped SmolLM2 weights in a subprocess, no fakes.

The goal these tests hold: every verdict and every turn labelled, no unparsed answer, because the backend
detects the server and constrains labels, queries and verdict lines with grammars."""

from __future__ import annotations

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

from factdebate.core.types import Label, Verdict
from factdebate.llm.base import GenParams
from factdebate.llm.llama_cpp import builtin_model_path
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.methods.kit.common import LABEL_CHOICES
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.helpers import BagOfWordsEncoder, StaticTool

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
         "--port", str(port), "--n_ctx", "4096", "--model_alias", MODEL, "--seed", "0"],
        stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {process.returncode}; see {log.name}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama.cpp server did not start within 180 s")
            time.sleep(0.5)
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
