"""DPD on the web page, in a real browser: two team columns fill with role statements while the debate
runs, and the referees' panel shows a row per referee (its vote, confidence and reason), with its scores of
both sides on the four dimensions (evidence, consistency, neutrality, persuasiveness) and its weight folded
in the row, then each round's weighted totals and the consensus; the finished verdict is redrawn the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.server.conftest import LiveServer
from tests.server.page.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401


def test_dpd_teams_and_referees_ballots_are_drawn(browser: Any,  # noqa: F811
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
        page.evaluate("""() => { window.said = []; new MutationObserver(() => {
            const line = document.querySelector('#live .status-line');
            if (line) window.said.push(line.textContent); }).observe(document.querySelector('#live'),
            {subtree: true, childList: true, characterData: true}); }""")
        page.click("#submit")

        # Live: role statements appear in the team columns before the verdict exists.
        page.wait_for_selector("#live .team[data-side=affirmative] .role-card.rebutter:not(.pending)")
        assert page.locator("#live .verdict-box").is_hidden()
        assert page.locator("#live .team").count() == 2

        page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=30_000)
        assert page.inner_text("#live .verdict-label") == "SUPPORTS"
        # The rounds in the form's terms (its "Most rebuttal rounds" is 1 here): the opening, then rebuttals,
        # not "Round 2 of 2".
        said = set(page.evaluate("window.said"))
        assert any(s.startswith("Round 1 (opening): ") for s in said), said
        assert any(s.startswith("Rebuttal 1 of at most 1: ") for s in said), said
        assert not any(" of 2" in s for s in said), said
        assert [s for s in said if s[:1] != s[:1].upper()] == []  # "Referee_1 referee voted…"
        assert "confidence-weighted vote · consensus 0.75" in page.inner_text("#live .verdict-how")
        assert page.locator("#live .verdict-box .judge").count() == 0  # ballots are tables, not raw JSON
        for side in ("affirmative", "negative"):
            team = f"#live .team[data-side={side}]"
            assert page.locator(f"{team} .role-card.rebutter").count() == 2  # opening + one rebuttal round
            assert page.locator(f"{team} .role-card.summarizer .gauge").count() == 2  # its confidence
            assert page.locator(f"{team} .role-card.gatherer .docs li").count() >= 1  # selected snippets
        assert page.locator("#live .team-shared .role-card.analyst").count() == 1
        ballots = page.locator("#live .ballot")
        assert ballots.count() == 6  # three referees, two judged rounds
        first = ballots.first
        assert first.get_attribute("data-referee") == "factual"
        # The side voted for with the label it stands for, the verdict's word.
        assert first.locator(".ballot-vote").inner_text() == "affirmative (SUPPORTS)"
        assert first.locator(".ballot-confidence").inner_text() == "0.90"
        first.locator(".ballot-why > summary").click()  # the rest of the ballot, folded in its row
        assert "confidence 0.90 · weight 0.90" in first.locator(".ballot-facts").inner_text()
        rows = first.locator(".ballot-scores tr").all_inner_texts()
        assert [r.split()[0] for r in rows[1:]] == ["E", "C", "N", "P"]
        assert "Evidence credibility" in rows[1] and "0.80" in rows[1] and "Language neutrality" in rows[3]
        totals = page.inner_text("#live .panel:last-child .panel-totals")
        assert "W affirmative 1.80" in totals and "W negative 0.60" in totals and "consensus 0.75" in totals
        assert page.locator("#live .team-state").count() == 4  # S1/S2 per team and judged round
        heads = page.locator("#live .team[data-side=negative] .team-round-head").all_inner_texts()
        assert [h.splitlines()[0] for h in heads] == ["Setup", "Round 1 (opening)", "Round 2"]
        assert "skeptic" in heads[2]  # true-skeptic: round 1 found the claim true
        assert errors == []
