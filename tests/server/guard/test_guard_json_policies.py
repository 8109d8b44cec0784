"""What a JSON-mode chat client receives from the guard proxy under every policy, plain and streamed, for
``response_format`` ``json_object`` and ``json_schema``: a scripted upstream answers JSON that states a false date
(the Eiffel Tower opened in 1899), the guard as ``serve`` runs it checks it, both on loopback. In every cell the
content the client receives (the deltas joined, for a stream) parses as JSON, and the verdicts are in the
``factdebate`` object. ``annotate`` and ``flag`` leave the content as it came; ``rewrite`` sends the upstream's
revision, asked for in the caller's ``response_format``, only when it keeps the answer's shape; ``hold`` and
``block`` refuse it with a JSON error object as the content and OpenAI's ``refusal`` field beside it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from pydantic import BaseModel

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import stance_of
from factdebate.server.app import create_app
from tests.guard.support import quoted_sentence, script, window_answer
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build
from tests.server.guard_support import Upstream, upstream_app

FALSE = "The Eiffel Tower opened in 1899."  # the evidence (tests/server/conftest.py's EVIDENCE): 1889
TRUE = "Paris is the capital of France."
ANSWER = json.dumps({"tower": FALSE, "capital": TRUE})
CORRECTED = "The Eiffel Tower opened in 1889."
REVISED = json.dumps({"tower": CORRECTED, "capital": TRUE})
FAST = {"tier": "fast", "method": "single"}
HI = [{"role": "user", "content": "Two facts about Paris, as JSON."}]
SCHEMA = {"type": "json_schema", "json_schema": {"name": "facts", "strict": True, "schema": {
    "type": "object", "properties": {"tower": {"type": "string"}, "capital": {"type": "string"}},
    "required": ["tower", "capital"], "additionalProperties": False}}}
FORMATS: dict[str, dict[str, Any]] = {"json_object": {"type": "json_object"}, "json_schema": SCHEMA}
POLICIES = ("annotate", "flag", "hold", "block", "rewrite")


class Facts(BaseModel):
    """The schema's model: what a json_schema client validates the content with."""

    tower: str
    capital: str


def checker() -> ScriptedBackend:
    """The checker models: extraction gives the claims of :data:`ANSWER` and :data:`REVISED`; the fast tier
    refutes a claim that writes 1899, quoting the passage's dated sentence, and supports the rest; the stance
    step and the standard tier agree with it."""
    rest = script(correction=CORRECTED)

    def extracted(prompt: str) -> str:  # the claims the text states, so a revision's are its own
        return json.dumps({"claims": [claim for claim in (FALSE, CORRECTED, TRUE) if claim in prompt]})

    def label(claim: str) -> str:
        return "REFUTES" if "1899" in claim else "SUPPORTS"

    def fast(prompt: str) -> str:
        claim = next(iter(re.findall(r"^(?:Statement|Claim): (.*)$", prompt, re.M)), "")
        return json.dumps({"label": label(claim), "passage": 1, "quote": quoted_sentence(prompt, claim)})

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        name, text = call.prompt.split(":")[0], messages[0]["content"]
        if name == "claims_extract":
            return extracted(text)
        if name == "guard_fast":
            return fast(text)
        if name == "guard_window":
            return window_answer(text, extracted, fast, lambda claim, quote: CORRECTED)
        if name == "guard_stance":
            return stance_of(text, label)
        if name == "single":  # the standard tier, which confirms a refutation
            return label(next(iter(re.findall(r"^Claim: (.*)$", text, re.M)), ""))
        return str(rest(call, messages, params))

    return ScriptedBackend(respond)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Upstream]]:
    """The scripted upstream (answering :data:`ANSWER`, revising to :data:`REVISED`) and the guard in front of
    it, shared by the module's tests: each asks with its own policy and format."""
    upstream = Upstream(answer=ANSWER, revise=lambda messages: REVISED)
    backend = checker()
    with pytest.MonkeyPatch.context() as patch, LiveServer(upstream_app(upstream)) as model:
        patch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path_factory.mktemp("json") / "s.sqlite",
                         build=lambda settings: offline_build(settings, backend), rate_limit_per_minute=0)
        with LiveServer(app) as server:
            yield server, upstream


def body(policy: str, kind: str, stream: bool) -> dict[str, Any]:
    return {"model": "m", "messages": HI, "response_format": FORMATS[kind], "stream": stream,
            "factdebate": {**FAST, "policy": policy}}


def plain(server: LiveServer, policy: str, kind: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(the first choice, the ``factdebate`` object, the headers) of a whole answer."""
    reply = httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, json=body(policy, kind, False), timeout=60)
    assert reply.status_code == 200, reply.text
    return reply.json()["choices"][0], reply.json()["factdebate"], dict(reply.headers)


def streamed(server: LiveServer, policy: str, kind: str) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
    """(the first choice as the deltas make it: content and refusal joined, the last finish_reason; the last
    chunk's ``factdebate`` object; every chunk) of a streamed answer."""
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=60,
                      json=body(policy, kind, True)) as reply:
        assert reply.status_code == 200, reply.read()
        chunks = [json.loads(line[6:]) for line in reply.iter_lines()
                  if line.startswith("data: ") and line != "data: [DONE]"]
    deltas = [c["choices"][0] for c in chunks if c.get("choices")]
    choice = {"message": {"content": "".join(d["delta"].get("content") or "" for d in deltas),
                          "refusal": "".join(d["delta"].get("refusal") or "" for d in deltas) or None},
              "finish_reason": [d["finish_reason"] for d in deltas if d["finish_reason"]][-1]}
    return choice, chunks[-1]["factdebate"], chunks


def received(server: LiveServer, policy: str, kind: str, stream: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    if stream:
        choice, found, _ = streamed(server, policy, kind)
    else:
        choice, found, _ = plain(server, policy, kind)
    return choice, found


def verdicts(found: dict[str, Any]) -> dict[str, str]:
    return {claim["claim"]: claim["label"] for claim in found["claims"]}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("kind", FORMATS)
@pytest.mark.parametrize("policy", POLICIES)
def test_the_content_a_json_client_receives_parses_and_the_verdicts_are_beside_it(
        servers: tuple[LiveServer, Upstream], policy: str, kind: str, stream: bool) -> None:
    server, _ = servers
    choice, found = received(server, policy, kind, stream)
    content = choice["message"]["content"]
    parsed = json.loads(content)  # every cell: the client's parse succeeds
    assert found["answer_format"] == "json" and found["policy"] == policy
    assert verdicts(found) == {FALSE: "REFUTES", TRUE: "SUPPORTS"}
    if policy in ("annotate", "flag"):
        assert content == ANSWER and choice["finish_reason"] == "stop" and not choice["message"].get("refusal")
        assert found["action_taken"] == ("annotated" if policy == "annotate" else "flagged")
    elif policy == "rewrite":
        assert content == REVISED and found["action_taken"] == "rewritten"
        assert choice["finish_reason"] == "stop" and not choice["message"].get("refusal")
    else:  # hold and block: refused, the refusal a JSON error object and OpenAI's refusal field
        assert found["action_taken"] == "blocked" and choice["finish_reason"] == "content_filter"
        assert parsed["error"]["type"] == "answer_withheld"
        assert parsed["error"]["message"].startswith("This answer was withheld: a fact check found")
        assert FALSE in parsed["error"]["message"] and choice["message"]["refusal"] == parsed["error"]["message"]
    if kind == "json_schema" and policy not in ("hold", "block"):
        assert Facts.model_validate_json(content)  # valid against the schema the client sent


def test_a_streamed_json_refusal_sends_no_answer_text_before_it(servers: tuple[LiveServer, Upstream]) -> None:
    """hold and block wait for the check: the only content of the stream is the refusal, in one chunk."""
    server, _ = servers
    for policy in ("hold", "block"):
        _, _, chunks = streamed(server, policy, "json_object")
        texts = [c["choices"][0]["delta"]["content"] for c in chunks
                 if c.get("choices") and c["choices"][0]["delta"].get("content")]
        assert len(texts) == 1 and json.loads(texts[0])["error"]["type"] == "answer_withheld"


def test_the_revision_is_asked_for_in_the_callers_response_format(servers: tuple[LiveServer, Upstream]) -> None:
    server, upstream = servers
    for kind in FORMATS:
        plain(server, "rewrite", kind)
        asked = upstream.requests[-1]
        assert "A fact check of your last answer" in asked["messages"][-1]["content"]
        assert asked["response_format"] == FORMATS[kind]


def test_a_revision_that_changes_the_answers_shape_is_not_sent(servers: tuple[LiveServer, Upstream]) -> None:
    """A revision that parses but has other keys would fail a client's schema: the answer as it came, flagged."""
    server, upstream = servers
    upstream.revise = lambda messages: json.dumps({"tower": "The Eiffel Tower opened in 1889."})
    try:
        for stream in (False, True):
            choice, found = received(server, "rewrite", "json_schema", stream)
            assert choice["message"]["content"] == ANSWER and found["action_taken"] == "flagged"
            assert "the revision does not keep the answer's shape" in found["action_reason"]
    finally:
        upstream.revise = lambda messages: REVISED


def test_the_openai_sdk_reads_a_refused_json_answer_as_a_refusal_when_it_ends_as_stop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``guard.block_finish_reason: stop`` the SDK's ``parse`` does not raise: it gives no parsed value and
    the refusal's words in ``message.refusal``, as for a model's own refusal under structured outputs."""
    upstream = Upstream(answer=ANSWER)
    backend = checker()
    with LiveServer(upstream_app(upstream)) as model:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        monkeypatch.setenv("FACTDEBATE_GUARD__BLOCK_FINISH_REASON", "stop")
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "s.sqlite",
                         build=lambda settings: offline_build(settings, backend), rate_limit_per_minute=0)
        with LiveServer(app) as server:
            client = openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0, timeout=60)
            done = client.chat.completions.parse(model="m", messages=HI, response_format=Facts,  # type: ignore[arg-type]
                                                 extra_body={"factdebate": {**FAST, "policy": "block"}})
    message = done.choices[0].message
    assert message.parsed is None and done.choices[0].finish_reason == "stop"
    assert message.refusal is not None and message.refusal.startswith("This answer was withheld")
    assert json.loads(message.content or "")["error"]["message"] == message.refusal
