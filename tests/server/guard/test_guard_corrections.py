"""A correction reaches the client only where it corrects: through ``POST /v1/chat/completions`` (plain and
streamed, the guard as ``factdebate serve`` runs it, a scripted upstream and checker), a checker that "corrects"
the refuted claim with the claim itself, word for word or in other words of the same value, leaves the footnote
with the refutation and its quote and no "Correction:"; one that changes the claim's value is shown."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.app import create_app
from tests.guard.support import script
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build
from tests.server.guard_support import Upstream, upstream_app

AZTEC = "The Aztec Empire was established in the 14th century."
QUOTE = "The Aztec Empire was a confederation of three city-states established in 1427."
PASSAGE = {"title": "Aztec Empire", "text": f"{QUOTE} Its capital was Tenochtitlan."}
FOOTNOTE = ("\n\n---\nFact check:\n"
            f'- "{AZTEC}" is contradicted by the evidence (Aztec Empire: "{QUOTE}")')


Guard = Callable[[str], LiveServer]


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    """Starts the guard before a loopback upstream answering :data:`AZTEC`, its checker correcting it with the
    sentence given; both stop with the test."""
    started: list[LiveServer] = []

    def start(correction: str) -> LiveServer:
        model = LiveServer(upstream_app(Upstream(answer=AZTEC, token_delay=0.005))).__enter__()
        started.append(model)
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        backend = ScriptedBackend(script(claims=[AZTEC], fast=_fast, correction=correction))
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                         rate_limit_per_minute=0, build=lambda settings: offline_build(settings, backend))
        started.append(LiveServer(app).__enter__())
        return started[-1]

    yield start
    for server in reversed(started):
        server.__exit__()


def _fast(claim: str) -> str:
    """The checker refutes the 14th century and supports 1427, quoting the passage's first sentence."""
    label = "SUPPORTS" if "1427" in claim else "REFUTES"
    return json.dumps({"label": label, "passage": 1, "quote": QUOTE})


def _ask(server: LiveServer, stream: bool) -> tuple[str, dict[str, Any]]:
    """The text the client receives and the ``factdebate`` object, plain or streamed."""
    options = {"tier": "fast", "max_tier": "fast", "method": "single", "policy": "flag", "evidence_mode": "given",
               "evidence": [PASSAGE]}
    body = {"model": "m", "stream": stream, "factdebate": options,
            "messages": [{"role": "user", "content": "When was the Aztec Empire founded?"}]}
    if not stream:
        reply = httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30, json=body)
        assert reply.status_code == 200, reply.text
        return reply.json()["choices"][0]["message"]["content"], reply.json()["factdebate"]
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30, json=body) as reply:
        assert reply.status_code == 200
        chunks = [json.loads(line[6:]) for line in reply.iter_lines() if line.startswith("data: {")]
    text = "".join((c["choices"][0]["delta"].get("content") or "") for c in chunks if c.get("choices"))
    return text, chunks[-1]["factdebate"]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("repeated", [AZTEC, "The Aztec empire was established during the fourteenth century."],
                         ids=["word-for-word", "in-value"])
def test_a_correction_that_repeats_the_refuted_claim_leaves_the_footnote_without_one(
        guard: Guard, stream: bool, repeated: str) -> None:
    text, found = _ask(guard(repeated), stream)
    assert text == AZTEC + FOOTNOTE  # the refutation and its quote, nothing after them
    (claim,) = found["claims"]
    assert claim["label"] == "REFUTES" and claim["correction"] is None
    assert claim["correction_note"] == f'the correction "{repeated}" was not shown: it repeats the refuted claim'


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_correction_its_quote_states_is_shown_after_the_quote(guard: Guard, stream: bool) -> None:
    fixed = "The Aztec Empire was established in 1427."
    text, found = _ask(guard(fixed), stream)
    assert text == f"{AZTEC}{FOOTNOTE}. Correction: {fixed}"
    assert found["claims"][0]["correction"] == {"text": fixed, "quote_source": QUOTE}
