"""A claim drawn from several lines is marked on each in the check's page (Debian's Chromium against a live
service with scripted checker models): a transposed table's refuted claim, drawn from the header row that names
the Eiffel Tower and the row below that says Rome, gets a refuted mark on both rows, each linking to its claim."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from factdebate.llm.scripted import ScriptedBackend
from tests.server.conftest import AUTH, PLAIN, LiveServer, offline_build, page_service
from tests.server.guard.test_guard_drawn_lines import PASSAGES, ROME, TABLE, _checker
from tests.server.page.test_browser import pytestmark, sign_in, watched_page  # noqa: F401


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    backend = ScriptedBackend(_checker(TABLE))
    with page_service(tmp_path_factory.mktemp("guard-lines"), defaults=PLAIN,
                      build=lambda settings: offline_build(settings, backend)) as live:
        yield live


def test_a_claim_drawn_from_a_header_and_a_row_is_marked_on_both(chromium: Any, server: LiveServer) -> None:
    options = {"tier": "fast", "max_tier": "fast", "method": "single", "policy": "flag", "evidence_mode": "given",
               "evidence": [PASSAGES[TABLE]]}
    reply = httpx.post(f"{server.url}/v1/guard/check", headers=AUTH, timeout=60,
                       json={"text": TABLE, "factdebate": options})
    assert reply.status_code == 200, reply.text
    (refuted,) = [c for c in reply.json()["claims"] if c["claim"] == ROME]
    number = refuted["index"] + 1
    page, errors = watched_page(chromium, viewport={"width": 1280, "height": 1000})
    sign_in(page, server.url, f"/?check={reply.headers['X-Factdebate-Check-Id']}")
    page.wait_for_selector("#response-live .guard-card .guard-text")
    marks = page.locator("#response-live .guard-text mark.claim-span").all()
    on_claim = [m for m in marks if str(number) in (m.get_attribute("data-claim") or "").split()]
    assert [m.inner_text() for m in on_claim] == ["| | Eiffel Tower |", "| City | Rome |"]
    assert all("refutes" in (m.get_attribute("class") or "") for m in on_claim)
    assert not errors
