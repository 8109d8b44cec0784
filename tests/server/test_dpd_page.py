"""DPD on the web page, in a real browser: two team columns fill with role statements while the debate
runs, and the judges' panel shows each judge's scores, vote, confidence and weight, the weighted totals
and the consensus; a finished verdict is redrawn the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.server.conftest import LiveServer
from tests.server.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401


def test_dpd_teams_and_judges_panel_are_drawn_live(browser: Any,  # noqa: F811
                                                   live_server: Callable[..., LiveServer]) -> None:
    # scripted:disagree: the logical judge votes negative (0.6), the others affirmative (0.9 each), so the
    # consensus stays at 0.75 and the debate runs to its last round. Latency lets the page draw turns first.
    defaults = {"llm": "scripted:disagree@0.2", "method": "dpd", "dpd_min_rounds": 0, "dpd_max_rounds": 1,
                "dpd_tools": ["search"], "cache": False}
    with live_server(defaults=defaults) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=dpd]", state="attached")
        page.fill("#claim", "The Eiffel Tower was completed in 1889.")
        page.click("#submit")

        # Live: role statements appear in the team columns before the verdict exists.
        page.wait_for_selector("#live .dpd-team.affirmative .dpd-role.rebutter:not(.pending)")
        assert page.locator("#live .verdict-box").is_hidden()
        assert page.locator("#live .dpd-team").count() == 2

        page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=30_000)
        assert page.inner_text("#live .verdict-label") == "SUPPORTS"
        assert "consensus 0.75" in page.inner_text("#live .verdict-how")
        for side in ("affirmative", "negative"):
            team = f"#live .dpd-team.{side}"
            assert page.locator(f"{team} .dpd-role.rebutter").count() == 2  # opening + one rebuttal round
            assert page.locator(f"{team} .dpd-role.summarizer .gauge").count() == 2  # its confidence
            assert page.locator(f"{team} .dpd-role.gatherer .docs li").count() >= 1  # selected snippets
        assert page.locator("#live .dpd-shared .dpd-role.analyst").count() == 1
        rows = page.locator("#live .dpd-ballots tbody tr")
        assert rows.count() == 6  # three judges, two judged rounds
        first = rows.first.inner_text()
        assert "factual" in first and "0.80" in first and "affirmative" in first and "0.90" in first
        totals = page.inner_text("#live .dpd-panel:last-child .dpd-totals")
        assert "W_A 1.80" in totals and "|W_N| 0.60" in totals and "consensus 0.75" in totals
        assert "affirmative" in page.inner_text("#live .dpd-panel:last-child .dpd-outcome")
        assert page.locator("#live .dpd-state").count() == 4  # S1/S2 per team and judged round
        heads = page.locator("#live .dpd-team.negative .dpd-round-head").all_inner_texts()
        assert [h.splitlines()[0] for h in heads] == ["Setup", "Round 1 (opening)", "Round 2"]
        assert "S2 skeptic" in heads[2]  # true-skeptic: round 1 found the claim true
        assert errors == []
