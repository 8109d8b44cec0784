"""What the chat proxy's client receives, as bytes, for an answer it asked for as JSON (``response_format``
``json_object`` or ``json_schema``) that states a refuted claim: under the default policy (flag) the content is
the upstream's JSON as it came, plain and streamed, marked by the ``X-Factdebate-Action`` and
``X-Factdebate-Refuted`` headers of a whole answer and by the ``factdebate`` object; under hold it is refused
whole, its content a JSON error object (test_guard_json_policies.py has every policy). The same answer asked
for as text gets the footnote in its content. A scripted upstream and the guard as ``serve`` runs it, on
loopback."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from pydantic import BaseModel

from tests.server.conftest import AUTH, KEY, LiveServer
from tests.server.guard_support import Upstream, scripted_checker_app, upstream_app

FAST = {"tier": "fast", "method": "single"}
HI = [{"role": "user", "content": "Tell me about Paris, as JSON."}]
# The scripted checker's claims: Paris is the capital of France (supported), the Eiffel Tower is in Rome (refuted).
JSON_ANSWER = '{"capital": "Paris is the capital of France.", "tower": "The Eiffel Tower is in Rome."}'
SCHEMA = {"type": "json_schema", "json_schema": {"name": "facts", "strict": True, "schema": {
    "type": "object", "properties": {"capital": {"type": "string"}, "tower": {"type": "string"}},
    "required": ["capital", "tower"], "additionalProperties": False}}}
FORMATS: dict[str, dict[str, Any]] = {"json_object": {"type": "json_object"}, "json_schema": SCHEMA}
Guard = Callable[[], tuple[LiveServer, Upstream]]


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    """A scripted upstream answering :data:`JSON_ANSWER` and the guard in front of it; both stop with the test."""
    started: list[LiveServer] = []

    def start() -> tuple[LiveServer, Upstream]:
        upstream = Upstream(answer=JSON_ANSWER)
        model = LiveServer(upstream_app(upstream)).__enter__()
        started.append(model)
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        server = LiveServer(scripted_checker_app(tmp_path, [KEY])).__enter__()
        started.append(server)
        return server, upstream

    yield start
    for server in reversed(started):
        server.__exit__()


class Facts(BaseModel):
    capital: str
    tower: str


def post(server: LiveServer, response_format: dict[str, Any] | None, **options: Any) -> httpx.Response:
    body: dict[str, Any] = {"model": "m", "messages": HI, "factdebate": {**FAST, **options}}
    if response_format is not None:
        body["response_format"] = response_format
    return httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, json=body, timeout=60)


def streamed(server: LiveServer, response_format: dict[str, Any], **options: Any) -> tuple[str, list[Any]]:
    """(the content the deltas make, concatenated; every chunk as it came) of a streamed answer."""
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60, json={
            "model": "m", "stream": True, "messages": HI, "response_format": response_format,
            "factdebate": {**FAST, **options}}) as reply:
        assert reply.status_code == 200, reply.read()
        chunks = [json.loads(line[6:]) for line in reply.iter_lines()
                  if line.startswith("data: ") and line != "data: [DONE]"]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices"))
    return text, chunks


def test_the_default_policy_footnotes_a_refuted_claim_in_the_content_of_a_text_answer(guard: Guard) -> None:
    server, _ = guard()
    reply = post(server, None)
    assert reply.status_code == 200, reply.text
    content = reply.json()["choices"][0]["message"]["content"]
    assert content.startswith(JSON_ANSWER + "\n\n---\nFact check:\n- \"The Eiffel Tower is in Rome.\" is contradicted")
    assert reply.headers["X-Factdebate-Action"] == "flagged" and reply.headers["X-Factdebate-Refuted"] == "1"
    found = reply.json()["factdebate"]
    assert found["policy"] == "flag" and found["action_taken"] == "flagged" and found["answer_format"] == "text"


@pytest.mark.parametrize("kind", FORMATS)
def test_a_json_answer_is_passed_as_it_came_and_marked_flagged(guard: Guard, kind: str) -> None:
    server, upstream = guard()
    reply = post(server, FORMATS[kind])
    assert reply.status_code == 200, reply.text
    content = reply.json()["choices"][0]["message"]["content"]
    assert content == JSON_ANSWER and json.loads(content) == json.loads(JSON_ANSWER)
    assert reply.headers["X-Factdebate-Action"] == "flagged" and reply.headers["X-Factdebate-Refuted"] == "1"
    found = reply.json()["factdebate"]
    assert found["action_taken"] == "flagged" and found["answer_format"] == "json" and found["label"] == "REFUTES"
    assert {c["claim"]: c["label"] for c in found["claims"]}["The Eiffel Tower is in Rome."] == "REFUTES"
    assert upstream.requests[0]["response_format"] == FORMATS[kind]  # passed on as the caller sent it


@pytest.mark.parametrize("kind", FORMATS)
def test_a_streamed_json_answer_is_its_deltas_and_the_last_chunk_marks_it(guard: Guard, kind: str) -> None:
    server, _ = guard()
    text, chunks = streamed(server, FORMATS[kind])
    assert text == JSON_ANSWER and json.loads(text) == json.loads(JSON_ANSWER)
    found = chunks[-1]["factdebate"]  # a stream's headers go before its check: the mark is in its last chunk
    assert found["action_taken"] == "flagged" and found["answer_format"] == "json"
    ends = [c["choices"][0]["finish_reason"] for c in chunks if c.get("choices")]
    assert ends[-1] == "stop"


def test_hold_refuses_a_json_answer_that_states_a_refuted_claim_plain_and_streamed(guard: Guard) -> None:
    server, _ = guard()
    reply = post(server, {"type": "json_object"}, policy="hold")
    choice = reply.json()["choices"][0]
    error = json.loads(choice["message"]["content"])["error"]
    assert error["type"] == "answer_withheld" and error["message"].startswith("This answer was withheld: a fact check")
    assert choice["message"]["refusal"] == error["message"] and choice["finish_reason"] == "content_filter"
    assert reply.headers["X-Factdebate-Action"] == "blocked" and reply.headers["X-Factdebate-Refuted"] == "1"
    assert "hold refuses a JSON answer" in reply.json()["factdebate"]["action_reason"]
    text, chunks = streamed(server, {"type": "json_object"}, policy="hold")
    assert json.loads(text)["error"]["message"].startswith("This answer was withheld: a fact check found")
    assert JSON_ANSWER not in text
    assert chunks[-1]["factdebate"]["action_taken"] == "blocked"
    assert [c["choices"][0]["finish_reason"] for c in chunks if c.get("choices")][-1] == "content_filter"


def test_the_openai_sdks_parse_reads_a_flagged_json_answer_and_raises_on_a_refused_one(guard: Guard) -> None:
    server, upstream = guard()
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0, timeout=60)
    raw = client.chat.completions.with_raw_response.parse(
        model="m", messages=HI, response_format=Facts, extra_body={"factdebate": FAST})  # type: ignore[arg-type]
    parsed = raw.parse().choices[0].message.parsed
    assert parsed == Facts(capital="Paris is the capital of France.", tower="The Eiffel Tower is in Rome.")
    assert raw.headers["X-Factdebate-Action"] == "flagged" and raw.headers["X-Factdebate-Refuted"] == "1"
    assert upstream.requests[0]["response_format"]["type"] == "json_schema"  # what the SDK sent, passed on
    with pytest.raises(openai.ContentFilterFinishReasonError):  # hold: refused whole, a clear error, no bad parse
        client.chat.completions.parse(model="m", messages=HI, response_format=Facts,  # type: ignore[arg-type]
                                      extra_body={"factdebate": {**FAST, "policy": "hold"}})
