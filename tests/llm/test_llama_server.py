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
         "--port", str(port), "--n_ctx", "4096", "--model_alias", MODEL, "--seed", "0",
         # One thread for prompts as for tokens (the server's default gives prompts every core): the suite
         # keeps both cores busy, where llama.cpp's waiting threads spin (llm/llama_threads.py).
         "--n_threads", "1", "--n_threads_batch", "1"],
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
