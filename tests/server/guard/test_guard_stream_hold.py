"""``policy: hold`` through ``POST /v1/chat/completions``, streamed: the text goes out part by part once its
claims are decided, a refuted sentence never (a notice stands in its place and the footnotes say what it
stated), the check id header before the body and the ``factdebate`` chunk at the end as under every policy;
plain, the same text at once. A false Markdown heading, list item, table cell or code comment is never
streamed either, and the notice replaces it, not the true line after it (tests/guard/hold_formats.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.guard_engine.policy import WITHHELD
from tests.guard.hold_formats import SLOW, TRUE_LINE, Format, cases, checker
from tests.guard.support import SlowBackend, script
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build
from tests.server.guard_support import ANSWER, Upstream, upstream_app

ROME = "The Eiffel Tower is in Rome."
PARIS = "Paris is the capital of France."
FOOTNOTES = "\n\n---\nFact check:"


def _sentence_claims(call: Any, messages: Any, params: Any) -> str:
    """Each sentence of the part given that states a fact is a claim (so a part's claims are its own)."""
    if call.prompt.startswith("claims_extract"):
        text = messages[0]["content"].split("Text:\n", 1)[1].split("\n\nReply with", 1)[0]
        return json.dumps({"claims": [s for s in re.split(r"(?<=\.) ", text.strip()) if s and " is " in s]})
    return script()(call, messages, params)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    from factdebate.server.app import create_app

    model = LiveServer(upstream_app(Upstream(token_delay=0.01))).__enter__()
    monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
    backend = SlowBackend(_sentence_claims, {f"Statement: {ROME}": 0.3})  # Rome's verdict after the answer
    app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite", rate_limit_per_minute=0,
                     build=lambda settings: offline_build(settings, backend))
    guard = LiveServer(app).__enter__()
    yield guard
    guard.__exit__()
    model.__exit__()


def _body(stream: bool) -> dict[str, Any]:
    return {"model": "m", "stream": stream, "messages": [{"role": "user", "content": "Tell me about Paris."}],
            "factdebate": {"tier": "fast", "method": "single", "policy": "hold"}}


def test_a_streamed_hold_never_shows_the_refuted_sentence_and_ends_as_every_stream(server: LiveServer) -> None:
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30,
                      json=_body(True)) as reply:
        assert reply.status_code == 200 and re.fullmatch(r"[0-9a-f]{32}", reply.headers["X-Factdebate-Check-Id"])
        chunks = [json.loads(line[6:]) for line in reply.iter_lines() if line.startswith("data: {")]
    texts = [(c["choices"][0]["delta"].get("content") or "") for c in chunks if c.get("choices")]
    text = "".join(texts)
    answer = text.split(FOOTNOTES)[0]
    assert ROME not in answer and WITHHELD in answer and PARIS in answer
    assert answer == ANSWER.replace(ROME, WITHHELD)
    assert ROME in text[len(answer):]  # the footnote says what the withheld sentence stated
    first = next(c for c in chunks if c.get("choices"))
    assert first["choices"][0]["delta"]["role"] == "assistant"
    # Paris went out in a chunk of its own, before the one that carries the notice (Rome's verdict came later).
    assert texts.index(next(t for t in texts if PARIS in t)) < texts.index(next(t for t in texts if WITHHELD in t))
    ends = [i for i, c in enumerate(chunks) if c.get("choices") and c["choices"][0].get("finish_reason")]
    last_text = max(i for i, c in enumerate(chunks) if c.get("choices") and c["choices"][0]["delta"].get("content"))
    assert ends and ends[-1] > last_text
    found = chunks[-1]["factdebate"]
    assert found["action_taken"] == "held"
    assert {c["claim"]: c["label"] for c in found["claims"]} == {PARIS: "SUPPORTS", ROME: "REFUTES"}


def test_a_plain_reply_under_hold_is_the_same_text(server: LiveServer) -> None:
    reply = httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30, json=_body(False))
    assert reply.status_code == 200, reply.text
    content = reply.json()["choices"][0]["message"]["content"]
    assert content.split(FOOTNOTES)[0] == ANSWER.replace(ROME, WITHHELD)
    assert reply.json()["factdebate"]["action_taken"] == "held"


def _formatted_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str,
                      numbered: bool) -> tuple[LiveServer, LiveServer]:
    """The guard before a loopback upstream streaming ``reply`` three characters a chunk, checked by the
    formatted replies' checker (tests/guard/hold_formats.py)."""
    from factdebate.server.app import create_app

    model = LiveServer(upstream_app(Upstream(answer=reply, token_delay=0.005, chars=3))).__enter__()
    monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
    backend = SlowBackend(checker(numbered=numbered), SLOW)
    app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite", rate_limit_per_minute=0,
                     build=lambda settings: offline_build(settings, backend))
    return LiveServer(app).__enter__(), model


@pytest.mark.parametrize(("form", "numbered"), cases())
def test_a_false_heading_list_item_table_cell_or_code_comment_is_never_streamed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: Format, numbered: bool) -> None:
    guard, model = _formatted_server(tmp_path, monkeypatch, form.reply, numbered)
    try:
        body = {**_body(True), "messages": [{"role": "user", "content": "Tell me about Apollo 11."}]}
        with httpx.stream("POST", f"{guard.url}/v1/chat/completions", headers=AUTH, timeout=30, json=body) as reply:
            assert reply.status_code == 200
            chunks = [json.loads(line[6:]) for line in reply.iter_lines() if line.startswith("data: {")]
    finally:
        guard.__exit__()
        model.__exit__()
    text = "".join((c["choices"][0]["delta"].get("content") or "") for c in chunks if c.get("choices"))
    answer = text.split(FOOTNOTES)[0]
    assert form.false not in answer and "1972" not in answer, text
    assert TRUE_LINE in answer
    assert answer == form.held  # the notice stands for the false line only
    assert chunks[-1]["factdebate"]["action_taken"] == "held"
