"""A correct 20-item list past the claim cap (``response.max_claims`` 8) through the proxy under ``flag``: the
footnote the client reads names the 12 sentences past the cap in one line (their count, the cap, their numbers
and a few openings), never 12 lines longer than the answer, while the ``factdebate`` object keeps each of them
as an unchecked claim, plain and streamed. Under ``on_unchecked: block`` the refusal names them as briefly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import script
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build
from tests.server.guard.test_guard_non_text import HEAD, Raw

PLANETS = ["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune", "Ceres", "Pluto",
           "Eris", "Haumea", "Makemake", "Gonggong", "Quaoar", "Sedna", "Orcus", "Salacia", "Varda", "Ixion"]
ITEMS = [f"{name} is a body that orbits the Sun." for name in PLANETS]
LIST = "\n".join(f"{n}. {item}" for n, item in enumerate(ITEMS, 1))
ASK = {"model": "m", "messages": [{"role": "user", "content": "Name twenty bodies that orbit the Sun."}]}
FAST = {"tier": "fast", "method": "single"}


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The guard (claim cap 8) in front of an upstream answering the list, whole or streamed line by line; the
    extractor writes a claim of each of the first eight items, which the fast tier supports."""
    from factdebate.server.app import create_app

    raw = Raw()
    raw.body = {**HEAD, "choices": [{"index": 0, "message": {"role": "assistant", "content": LIST},
                                     "finish_reason": "stop"}]}
    lines = [line + "\n" for line in LIST.split("\n")]
    raw.chunks = [{**HEAD, "object": "chat.completion.chunk",
                   "choices": [{"index": 0, "delta": {"role": "assistant", "content": line}, "finish_reason": None}]}
                  for line in lines] + [{**HEAD, "object": "chat.completion.chunk",
                                         "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    backend = ScriptedBackend(script(claims=ITEMS[:8]))
    with LiveServer(raw.app()) as upstream:
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{upstream.url}/v1")
        monkeypatch.setenv("FACTDEBATE_RESPONSE__MAX_CLAIMS", "8")
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                         build=lambda settings: offline_build(settings, backend), rate_limit_per_minute=0)
        with TestClient(app) as client:
            yield client


def _ask(client: TestClient, stream: bool, **options: Any) -> tuple[str, dict[str, Any]]:
    """(the text the client reads, the ``factdebate`` object)."""
    reply = client.post("/v1/chat/completions", headers=AUTH,
                        json={**ASK, "stream": stream, "factdebate": {**FAST, **options}})
    assert reply.status_code == 200, reply.text
    if not stream:
        return reply.json()["choices"][0]["message"]["content"], reply.json()["factdebate"]
    events = [json.loads(line[6:]) for line in reply.text.splitlines()
              if line.startswith("data: ") and line != "data: [DONE]"]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in events if c.get("choices"))
    return text, events[-1]["factdebate"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_20_item_list_past_the_claim_cap_gets_one_footnote_line(guarded: TestClient, stream: bool) -> None:
    text, found = _ask(guarded, stream, policy="flag")
    assert text.startswith(LIST) and found["action_taken"] == "flagged"
    footnote = text[len(LIST):].strip()
    assert footnote.splitlines() == [
        "---", "Fact check:",
        "- 12 sentences past the claim cap were not checked (at most 8 claims are taken from one reply): "
        "sentences 9\u201320 (\"9. Ceres is a body\u2026\", \"10. Pluto is a body\u2026\", \u2026, "
        "\"20. Ixion is a body\u2026\")"]
    # The caller reading JSON loses nothing: each sentence past the cap is an unchecked claim of its own.
    cut = [c for c in found["claims"] if c["status"] == "unchecked"]
    assert [c["claim"] for c in cut] == [f"{n}. {ITEMS[n - 1]}" for n in range(9, 21)]
    assert all(c["reason"].startswith("beyond the claim cap: at most 8 claims") for c in cut)
    assert [c["status"] for c in found["claims"]].count("checked") == 8
    assert found["label"] != "SUPPORTS"  # the cut sentences were never checked


def test_on_unchecked_block_names_the_sentences_past_the_cap_by_count_and_number(guarded: TestClient) -> None:
    text, found = _ask(guarded, False, on_unchecked="block")
    assert found["action_taken"] == "blocked"
    assert text == ("This answer was withheld: parts of it could not be checked: 12 sentences past the claim cap "
                    "(sentences 9\u201320).")
