"""The chat guard in front of a real model server: llama-cpp-python's OpenAI-compatible server on the shipped
SmolLM2 weights as the upstream, the official ``openai`` SDK as the client, plain and streamed. The checker
is scripted (its claims are the answer's sentences, each supported), so what is asserted does not depend on
what the small model happens to write: the answer is the server's, and each claim's span slices it to the
claim's words."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.app import create_app
from tests.llm.test_llama_server import MODEL, pytestmark, server_url  # noqa: F401 - the server fixture
from tests.server.conftest import KEY, PLAIN, LiveServer, offline_build
from tests.server.guard_support import words_of

_SENTENCE = re.compile(r"[^.!?\n]*[A-Za-z][^.!?\n]*[.!?]")


def sentences_of(text: str) -> list[str]:
    found = [s.strip() for s in _SENTENCE.findall(text) if len(s.strip()) > 3]
    return found or ([text.strip()] if text.strip() else [])


def checker(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """Claims: the sentences of the text given; every claim supported by the first passage."""
    prompt, text = call.prompt.split(":")[0], messages[0]["content"]
    if prompt == "claims_extract":
        given = text.split("\nText:\n", 1)[-1].rsplit("\n\nReply with", 1)[0]
        return json.dumps({"claims": sentences_of(given)})
    if prompt == "guard_fast":
        return json.dumps({"label": "SUPPORTS", "passage": 1, "quote": ""})
    return "SUPPORTS"


@pytest.fixture
def guard(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:  # noqa: F811
    monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", server_url)
    backend = ScriptedBackend(checker)
    app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite", rate_limit_per_minute=0,
                     build=lambda settings: offline_build(settings, backend))
    with LiveServer(app) as server:
        yield server


ASK: dict[str, Any] = {"model": MODEL, "max_tokens": 48, "temperature": 0, "seed": 0,
                       "messages": [{"role": "user", "content": "In two sentences: what is Paris?"}],
                       "extra_body": {"factdebate": {"tier": "fast", "method": "single", "deadline_s": 60}}}


def _assert_spans(found: dict[str, Any], answer: str) -> None:
    assert found["claims"], found
    for claim in found["claims"]:
        assert claim["status"] == "checked" and claim["label"] == "SUPPORTS"
        assert words_of(claim, answer) == claim["claim"]


def test_the_sdk_through_the_guard_to_llama_cpp_plain_and_streamed(guard: LiveServer) -> None:
    sdk = openai.OpenAI(base_url=f"{guard.url}/v1", api_key=KEY, max_retries=0, timeout=300)
    done = sdk.chat.completions.create(**ASK)
    answer = done.choices[0].message.content or ""
    assert answer.strip() and done.model == MODEL
    _assert_spans(done.model_extra["factdebate"], answer)

    chunks = list(sdk.chat.completions.create(**ASK, stream=True))
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed.strip() and chunks[-1].choices == []
    _assert_spans(chunks[-1].model_extra["factdebate"], streamed)
