"""Honesty on a kept guard check's page, in Debian's Chromium against a live service: a
passage is titled cited only when the verdict rests on it (the others are "retrieved, not cited"), and under
``block`` the page says that the marks point into the model's answer, which the client never received; the
refusal it shows ends with one full stop."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.server.conftest import AUTH, PLAIN, LiveServer, offline_build, page_service
from tests.server.page.test_browser import pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_guard import FAST, PARIS, REPLY, scripted

TOWER = {"title": "Eiffel Tower", "text": "The Eiffel Tower is a wrought-iron tower in Paris, completed in 1889."}
BURJ = {"title": "Burj Khalifa", "text": "The Burj Khalifa is the tallest tower in Dubai, completed in 2010."}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    backend = scripted()
    with page_service(tmp_path_factory.mktemp("guard-honest-page"), defaults=PLAIN,
                      build=lambda settings: offline_build(settings, backend)) as live:
        yield live


def test_cited_passages_and_the_text_the_spans_point_into_are_said(chromium: Any, server: LiveServer) -> None:
    reply = httpx.post(f"{server.url}/v1/guard/check", headers=AUTH, timeout=60, json={
        "text": REPLY, "factdebate": {**FAST, "policy": "block", "evidence_mode": "given", "deadline_s": 1.5,
                                      "evidence": [TOWER, BURJ]}})
    assert reply.status_code == 200, reply.text
    result = reply.json()
    paris = next(c for c in result["claims"] if c["claim"] == PARIS)
    assert result["action_taken"] == "blocked" and not result["text"].endswith('.".'), result["text"]
    # The fast checker named the first passage; the other was read beside it.
    assert [(e["title"], e["cited"]) for e in paris["evidence"]] == [("Eiffel Tower", True), ("Burj Khalifa", False)]

    page, errors = watched_page(chromium, viewport={"width": 1280, "height": 1100})
    sign_in(page, server.url, f"/?check={reply.headers['X-Factdebate-Check-Id']}")
    page.wait_for_selector("#response-live .guard-card .guard-spans-note")
    card = page.locator("#response-live .guard-card")
    assert card.locator(".guard-spans-note").inner_text() == ("The marks point into the model's answer as it was "
                                                               "checked, which the client never received: the "
                                                               "client got the refusal below instead.")
    row = card.locator(".guard-claims > li").nth(0)
    assert row.locator(".evidence-cited summary").inner_text() == "Evidence cited (1)"
    assert row.locator(".evidence-read summary").inner_text() == "Also retrieved, not cited (1)"
    assert row.locator(".evidence-read .passage-source").text_content() == "— Burj Khalifa"  # folded
    assert row.locator(".evidence-cited .passage-source").inner_text() == "— Eiffel Tower"
    assert card.locator(".guard-sent-text").inner_text() == result["text"]
    assert errors == []
