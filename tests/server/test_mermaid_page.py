"""MERMAID on the web page, in a real browser against a live server whose method starts a real MCP search
server: the decomposition table, the executor's steps, and what the memory recalled and wrote, drawn live
and kept when the verdict arrives; a second claim about the same entity shows the recalled record."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import LiveServer
from tests.server.test_browser import browser, sign_in, watched_page  # noqa: F401  (the fixture)

pytest.importorskip("mcp")
pytest.importorskip("tantivy")


def check(page: Any, claim: str) -> None:
    page.fill("#claim", claim)
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=120_000)


@pytest.mark.slow
def test_mermaid_is_drawn_live(browser: Any, live_server: Callable[..., LiveServer], tmp_path: Path,  # noqa: F811
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_RETRIEVAL__BUILTIN_DOCS", "40")
    defaults = {"llm": "scripted:agree@0.1", "method": "mermaid", "mermaid_servers": ["search"],
                "memory_path": str(tmp_path / "memory.sqlite"), "mermaid_memory_semantic": False, "cache": False}
    with live_server(defaults=defaults) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        check(page, "Angkor Wat is a temple complex in Cambodia.")
        assert page.inner_text("#live .verdict-label") == "SUPPORTS"
        triplets = page.inner_text("#live .mermaid-panel table.triplets")
        assert "Angkor Wat" in triplets and "subject" in triplets
        assert "nothing remembered" in page.inner_text("#live [data-part=recall]")
        written = page.inner_text("#live [data-part=write]")
        assert "new record" in written and "search_local" in written
        steps = page.inner_text("#live .agent-col")
        assert "search_local" in steps and "Look for evidence first" in steps

        check(page, "Angkor Wat was built in the 12th century.")
        recalled = page.inner_text("#live [data-part=recall]")
        assert "Angkor Wat" in recalled and "search_local" in recalled
        assert errors == []
