"""A reply from the upstream that holds no text to check: ``content: 12345``,
``choices: ["hello"]``, only image parts, no content and no tool call. Each passed under ``on_unchecked:
block`` with nothing said; each is now a degraded check, said, and blocked under ``on_unchecked: block``. A
tool call alone still passes: it carries nothing to check."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from fastapi.testclient import TestClient

from factdebate.guard_engine.policy import NO_TEXT
from factdebate.server.app import create_app
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build

HEAD = {"id": "chatcmpl-x", "object": "chat.completion", "created": 1, "model": "m"}
CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
ASK = {"model": "m", "messages": [{"role": "user", "content": "Where is the tower?"}]}


class Raw:
    """An upstream answering with whatever body (or stream chunks) a test sets."""

    def __init__(self) -> None:
        self.body: dict[str, Any] = {}
        self.chunks: list[dict[str, Any]] = []

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions", response_model=None)
        async def complete(request: Request) -> Response:
            if (await request.json()).get("stream"):
                events = "".join(f"data: {json.dumps(c)}\n\n" for c in self.chunks) + "data: [DONE]\n\n"
                return Response(events, media_type="text/event-stream")
            return JSONResponse(self.body)

        return app


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, Raw]]:
    raw = Raw()
    with LiveServer(raw.app()) as upstream:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite", build=offline_build,
                         rate_limit_per_minute=0)
        with TestClient(app) as client:
            yield client, raw


def message(content: Any, **extra: Any) -> dict[str, Any]:
    return {**HEAD, "choices": [{"index": 0, "message": {"role": "assistant", "content": content, **extra},
                                 "finish_reason": "stop"}]}


NOT_TEXT = {
    "a number": message(12345),
    "an object": message({"text": "Paris is in Rome."}),
    "a choice that is a string": {**HEAD, "choices": ["hello"]},
    "no choice at all": {**HEAD, "choices": []},
    "null content and no call": message(None),
    "only an image part": message([{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]),
    "empty text": message(""),
}


@pytest.mark.parametrize("case", NOT_TEXT)
def test_a_reply_without_text_is_blocked_under_on_unchecked_block(guarded: tuple[TestClient, Raw], case: str) -> None:
    client, raw = guarded
    raw.body = NOT_TEXT[case]
    answer = client.post("/v1/chat/completions", headers=AUTH,
                         json={**ASK, "factdebate": {"on_unchecked": "block", "tier": "fast"}})
    assert answer.status_code == 200, answer.text
    found = answer.json()["factdebate"]
    assert found["degraded"] is True and found["degraded_reason"] == NO_TEXT, found
    assert found["action_taken"] == "blocked", found
    choices = answer.json()["choices"]
    if choices and isinstance(choices[0], dict):
        assert choices[0]["message"]["content"].startswith("This answer was withheld: it could not be checked")
        assert choices[0]["finish_reason"] == "content_filter"


def test_a_reply_without_text_is_said_when_it_passes(guarded: tuple[TestClient, Raw]) -> None:
    client, raw = guarded
    raw.body = message([{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}])
    answer = client.post("/v1/chat/completions", headers=AUTH, json={**ASK, "factdebate": {"tier": "fast"}})
    found = answer.json()["factdebate"]
    assert found["degraded"] is True and found["degraded_reason"] == NO_TEXT
    assert found["action_taken"] == "flagged" and found["on_unchecked"] == "pass"  # flag: the default policy
    assert any("image_url" in item for item in found["passed_through"]), found
    image, footnote = answer.json()["choices"][0]["message"]["content"]
    assert image == {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}  # passed on as it came
    assert footnote == {"type": "text", "text": f"\n\n---\nFact check:\n- The answer could not be checked: {NO_TEXT}"}


def test_a_tool_call_alone_still_passes_under_on_unchecked_block(guarded: tuple[TestClient, Raw]) -> None:
    client, raw = guarded
    raw.body = message(None, tool_calls=[CALL])
    answer = client.post("/v1/chat/completions", headers=AUTH,
                         json={**ASK, "factdebate": {"on_unchecked": "block", "tier": "fast"}})
    found = answer.json()["factdebate"]
    assert found["degraded"] is False and found["action_taken"] == "none", found
    assert answer.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "lookup"


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {**HEAD, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta,
                                                                     "finish_reason": finish}]}


@pytest.mark.parametrize("deltas", [
    [{"role": "assistant", "content": 12345}],
    [{"role": "assistant"}, {"content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}],
    [{"role": "assistant", "content": None}],
], ids=["a number", "image parts", "null content"])
def test_a_streamed_reply_without_text_is_blocked_under_on_unchecked_block(
        guarded: tuple[TestClient, Raw], deltas: list[dict[str, Any]]) -> None:
    client, raw = guarded
    raw.chunks = [*(chunk(d) for d in deltas), chunk({}, "stop")]
    answer = client.post("/v1/chat/completions", headers=AUTH,
                         json={**ASK, "stream": True, "factdebate": {"on_unchecked": "block", "tier": "fast"}})
    assert answer.status_code == 200, answer.text
    events = [json.loads(line[6:]) for line in answer.text.splitlines()
              if line.startswith("data: ") and line != "data: [DONE]"]
    texts = [c["choices"][0]["delta"].get("content") for c in events if c.get("choices")]
    assert texts[0].startswith("This answer was withheld: it could not be checked"), texts
    assert 12345 not in texts
    found = events[-1]["factdebate"]
    assert found["degraded"] is True and found["action_taken"] == "blocked", found
