"""Every choice is checked: ``n > 1`` got around ``block`` and ``on_unchecked: block``
(choices 2..n went out unchecked). Each choice now has its own check, verdicts and policy; ``n`` above the
operator's ``guard.max_choices`` is refused with a 422 in OpenAI's shape, as is ``n > 1`` on a stream; and
choices the upstream sends beyond those asked for are left out, plain and streamed. Item 2 through the
proxy too: a ``rewrite`` revision that repeats the refuted claim goes out flagged, plain and streamed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.app import create_app
from tests.guard.support import script
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build
from tests.server.guard.test_guard_non_text import HEAD, Raw
from tests.server.guard_support import ANSWER, REVISE_MARK, Upstream, upstream_app

PARIS = "Paris is the capital of France."
ROME = "The Eiffel Tower is in Rome."
ASK = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}]}
FAST = {"tier": "fast", "method": "single"}


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, Raw]]:
    """The guard in front of an upstream answering what the test sets; the checker refutes "Rome"."""
    raw = Raw()
    backend = ScriptedBackend(script(claims=[PARIS, ROME]))
    with LiveServer(raw.app()) as upstream:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                         build=lambda settings: offline_build(settings, backend), rate_limit_per_minute=0)
        with TestClient(app) as client:
            yield client, raw


def answers(*texts: str) -> dict[str, Any]:
    return {**HEAD, "choices": [{"index": i, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"} for i, text in enumerate(texts)]}


def test_n_3_under_block_blocks_the_choice_that_states_a_false_statement(guarded: tuple[TestClient, Raw]) -> None:
    client, raw = guarded
    raw.body = answers(PARIS, PARIS, ROME)
    reply = client.post("/v1/chat/completions", headers=AUTH,
                        json={**ASK, "n": 3, "factdebate": {**FAST, "policy": "block"}})
    assert reply.status_code == 200, reply.text
    choices = reply.json()["choices"]
    assert len(choices) == 3
    assert [c["message"]["content"] for c in choices[:2]] == [PARIS, PARIS]
    third = choices[2]
    assert third["message"]["content"].startswith("This answer was withheld: a fact check found")
    assert third["finish_reason"] == "content_filter"
    assert third["factdebate"]["action_taken"] == "blocked" and third["factdebate"]["label"] == "REFUTES"
    assert [c["factdebate"]["action_taken"] for c in choices[:2]] == ["annotated", "annotated"]
    assert reply.json()["factdebate"] == choices[0]["factdebate"]  # beside choices: the first's, as with n = 1


def test_on_unchecked_block_holds_for_every_choice(guarded: tuple[TestClient, Raw]) -> None:
    client, raw = guarded
    raw.body = answers(PARIS, "")  # the second answer holds nothing to check
    reply = client.post("/v1/chat/completions", headers=AUTH,
                        json={**ASK, "n": 2, "factdebate": {**FAST, "on_unchecked": "block"}})
    first, second = reply.json()["choices"]
    assert first["message"]["content"] == PARIS and first["factdebate"]["action_taken"] == "annotated"
    assert second["factdebate"]["action_taken"] == "blocked" and second["finish_reason"] == "content_filter"


def test_choices_beyond_those_asked_for_are_left_out(guarded: tuple[TestClient, Raw]) -> None:
    client, raw = guarded
    raw.body = answers(PARIS, ROME)  # n not sent: one answer asked for, two written
    reply = client.post("/v1/chat/completions", headers=AUTH, json={**ASK, "factdebate": {**FAST, "policy": "block"}})
    body = reply.json()
    assert [c["message"]["content"] for c in body["choices"]] == [PARIS]
    assert any("choices 2 to 2" in item and "left out" in item for item in body["factdebate"]["passed_through"])


@pytest.mark.parametrize(("asked", "why"), [({"n": 5}, "guard.max_choices"),
                                            ({"n": 2, "stream": True}, "cannot be streamed")])
def test_n_above_the_cap_or_on_a_stream_is_a_422_in_openais_shape(guarded: tuple[TestClient, Raw],
                                                                    asked: dict[str, Any], why: str) -> None:
    client, raw = guarded
    raw.body = answers(PARIS)
    reply = client.post("/v1/chat/completions", headers=AUTH, json={**ASK, **asked, "factdebate": FAST})
    assert reply.status_code == 422, reply.text
    error = reply.json()["error"]
    assert error["type"] == "invalid_request_error" and why in error["message"] and f"n = {asked['n']}" in \
        error["message"]


def test_the_operator_sets_max_choices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_GUARD__MAX_CHOICES", "2")
    raw = Raw()
    raw.body = answers(PARIS, PARIS, PARIS)
    with LiveServer(raw.app()) as upstream:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite", build=offline_build,
                         rate_limit_per_minute=0)
        with TestClient(app) as client:
            refused = client.post("/v1/chat/completions", headers=AUTH, json={**ASK, "n": 3, "factdebate": FAST})
            taken = client.post("/v1/chat/completions", headers=AUTH, json={**ASK, "n": 2, "factdebate": FAST})
    assert refused.status_code == 422 and "the limit is 2 (guard.max_choices)" in refused.json()["error"]["message"]
    assert taken.status_code == 200 and len(taken.json()["choices"]) == 2


def test_a_streamed_choice_the_upstream_adds_is_left_out(guarded: tuple[TestClient, Raw]) -> None:
    client, raw = guarded
    raw.chunks = [{**HEAD, "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": {"role": "assistant", "content": PARIS}, "finish_reason": None},
        {"index": 1, "delta": {"role": "assistant", "content": ROME}, "finish_reason": None}]},
        {**HEAD, "object": "chat.completion.chunk", "choices": [{"index": 1, "delta": {}, "finish_reason": "stop"}]},
        {**HEAD, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    for policy in ("annotate", "block"):
        reply = client.post("/v1/chat/completions", headers=AUTH,
                            json={**ASK, "stream": True, "factdebate": {**FAST, "policy": policy}})
        events = [json.loads(line[6:]) for line in reply.text.splitlines()
                  if line.startswith("data: ") and line != "data: [DONE]"]
        assert ROME not in reply.text.split('"factdebate"')[0], policy
        assert all(c.get("index", 0) == 0 for e in events for c in e.get("choices") or []), policy
        found = events[-1]["factdebate"]
        assert found["label"] == "SUPPORTS" and any("left out" in p for p in found["passed_through"]), found


@pytest.fixture
def revising(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, Upstream]]:
    """The guard in front of the scripted upstream whose revision repeats the refuted claim."""
    upstream = Upstream(revise=lambda messages: ANSWER)
    backend = ScriptedBackend(script(claims=[PARIS, ROME]))
    with LiveServer(upstream_app(upstream)) as model:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                         build=lambda settings: offline_build(settings, backend), rate_limit_per_minute=0)
        with TestClient(app) as client:
            yield client, upstream


@pytest.mark.parametrize("stream", [False, True])
def test_a_revision_that_repeats_the_refuted_claim_goes_out_flagged(revising: tuple[TestClient, Upstream],
                                                                    stream: bool) -> None:
    """Item 2 through the proxy: the upstream's revision says "Rome" again, so the client gets the original
    answer with the footnote, never the revision as ``rewritten``."""
    client, upstream = revising
    reply = client.post("/v1/chat/completions", headers=AUTH,
                        json={**ASK, "stream": stream, "factdebate": {**FAST, "policy": "rewrite"}})
    if stream:
        events = [json.loads(line[6:]) for line in reply.text.splitlines()
                  if line.startswith("data: ") and line != "data: [DONE]"]
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in events if c.get("choices"))
        found = events[-1]["factdebate"]
    else:
        text, found = reply.json()["choices"][0]["message"]["content"], reply.json()["factdebate"]
    assert found["action_taken"] == "flagged" and "still states" in found["action_reason"]
    assert text.startswith(ANSWER) and "Fact check:" in text and "could not be revised" in text
    assert any(REVISE_MARK in str(r["messages"][-1].get("content")) for r in upstream.requests)  # it was asked
