"""FacTool's claim cards are titled with the claim each checked: the words, cut to one line
with the whole in the title and the heading's text, not "claim-1"; a verdict written before turns kept their
claim still shows "Claim #1". In Debian's Chromium against a live server with a scripted model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.server.conftest import LiveServer
from tests.server.page.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_explains import verify

RESPONSE = "The Eiffel Tower was completed in 1889 in Paris. It is a wrought-iron lattice tower on the Champ de Mars."


def heads(page: Any, scope: str) -> list[dict[str, Any]]:
    """Each column's heading: its text, its hover title, and whether CSS cuts it to one line."""
    return page.eval_on_selector_all(f"{scope} .agent-col .agent-head", """heads => heads.map(h => {
      const t = h.querySelector("h3"); const s = getComputedStyle(t);
      return {text: t.textContent, title: t.title, number: h.querySelector(".muted")?.textContent || "",
              oneLine: s.whiteSpace === "nowrap" && s.textOverflow === "ellipsis",
              fits: t.getBoundingClientRect().right <= h.getBoundingClientRect().right + 1};
    })""")


def test_factools_cards_are_titled_with_their_claims(browser: Any,  # noqa: F811
                                                     live_server: Callable[..., LiveServer]) -> None:
    with live_server(defaults={"llm": "scripted:agree", "cache": False}) as server:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
        sign_in(page, server.url)
        verify(page, "factool", RESPONSE)
        found = heads(page, "#live")
        assert found and all(h["text"] != "Claim" and "claim-" not in h["text"] for h in found), found
        for n, head in enumerate(found, 1):
            assert head["title"] == head["text"] and head["number"] == f"#{n}", head
            assert head["oneLine"] and head["fits"], head
            # The scripted extractor's claims are taken from the checked text.
            assert set(head["text"].lower().split()) & set(RESPONSE.lower().split()), head
        assert errors == []


def test_a_factool_result_written_before_claims_were_kept_shows_claim_1(
        browser: Any, live_server: Callable[..., LiveServer], tmp_path: Path) -> None:  # noqa: F811
    turns = [{"agent": f"claim-{n}", "role": "verifier", "tool": "search", "query": "Eiffel Tower", "evidence": [],
              "response": "The tower was finished in 1889.", "label": "SUPPORTS"} for n in (1, 2)]
    row = {"schema_version": 2, "claim": "The Eiffel Tower was completed in 1889.", "gold": "SUPPORTS",
           "label": "SUPPORTS", "decided_by": "all-true", "method": "factool",
           "rounds": [{"round": 1, "turns": turns}]}
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with live_server() as server:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
        sign_in(page, server.url)
        page.click("button.tab[data-view=results]")
        page.set_input_files("#results-file", str(results))
        page.wait_for_selector("#results-body tr")
        page.click("#results-body tr")
        page.wait_for_selector("#results-debate .verdict-label")
        found = heads(page, "#results-debate")
        assert [(h["text"], h["number"]) for h in found] == [("Claim", "#1"), ("Claim", "#2")], found
        assert not any(h["title"] for h in found), found  # no hover title: nothing is cut
        assert errors == []
