"""Many voices, compact, on a phone, in Debian's Chromium against one live service with a
scripted model: a vote's 29 voters are a tally table first and their cards folded (they were 29 open cards,
a 10,199 px page); DPD's referees of a round are one table (referee, vote, confidence, a one-line reason),
their scores and whole reasoning folded in the row; the judge that decides after a debate's rounds is named
as the judge, not as one more round; ReAct's model calls sit under the steps they chose, named as steps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from factdebate.server.app import create_app
from tests.server.axe import audit, failing, need_axe
from tests.server.conftest import KEY, PLAIN, LiveServer, offline_build
from tests.server.page.test_browser import pytestmark, sign_in, verify_claim_with, watched_page  # noqa: F401

CLAIM = "The Eiffel Tower is in Paris."
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # scripted:disagree: Tool-MAD's agents never agree (the judge decides after its 3 rounds), DPD's logical
    # referee votes negative and the others affirmative.
    defaults = {**PLAIN, "vote_samples": 29, "rounds": 3, "dpd_min_rounds": 0, "dpd_max_rounds": 1}
    app = create_app(api_keys=[KEY], defaults=defaults, db_path=tmp_path_factory.mktemp("db") / "service.sqlite",
                     build=offline_build)
    with LiveServer(app) as live:
        yield live


def verify(page: Any, method: str) -> None:
    verify_claim_with(page, CLAIM, method, 60_000)


def test_many_voices_are_tallied_tabled_and_named_on_a_phone(chromium: Any, server: LiveServer) -> None:
    need_axe()
    page, errors = watched_page(chromium, viewport=PHONE)
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=vote]", state="attached")
    found: list[str] = []  # axe-core's findings on each screen

    # The vote: a tally first (label, count, who), the 29 cards folded under it.
    verify(page, "vote")
    tally = page.locator("#live .tally")
    assert tally.is_visible()
    assert tally.locator("caption").inner_text() == "29 answers in round 1"
    rows = tally.locator("tr[data-label]")
    assert sum(int(rows.nth(i).locator("td.num").inner_text()) for i in range(rows.count())) == 29
    assert "voter-1, voter-2, voter-3" in rows.first.locator(".who").inner_text()  # in voter order
    fold = page.locator("#live details.many-answers")
    assert fold.get_attribute("open") is None
    assert fold.locator(":scope > summary").inner_text() == "Each answer (29 cards)"
    assert page.locator("#live .agent-col").count() == 29 and not page.locator("#live .agent-col").first.is_visible()
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height < 3500, height  # was 10,199 px with every card open
    found += audit(page, "vote, tallied")
    fold.locator(":scope > summary").click()  # one tap opens them
    assert page.locator("#live .agent-col").nth(28).is_visible()

    # DPD: a round's referees are one table, a row each; the rest of a ballot is folded in its row.
    verify(page, "dpd")
    panel = page.locator("#live .referees .panel").first
    assert panel.locator("table.ballots").count() == 1
    assert panel.locator("table.ballots thead th").all_inner_texts() == ["Referee", "Vote", "Confidence", "Reason"]
    ballots = panel.locator("tr.ballot")
    assert ballots.count() == 3
    logical = panel.locator("tr.ballot[data-referee=logical]")
    assert logical.locator(".ballot-vote").inner_text() == "negative (REFUTES)"
    assert logical.locator(".ballot-confidence").inner_text() == "0.60"
    line = logical.locator(".ballot-line").inner_text()
    assert line and "\n" not in line and len(line) <= 140, line
    why = logical.locator("details.ballot-why")
    assert why.get_attribute("open") is None
    why.locator(":scope > summary").click()
    assert [r.split()[0] for r in why.locator(".ballot-scores tr").all_inner_texts()[1:]] == ["E", "C", "N", "P"]
    assert "weight -0.60" in why.locator(".ballot-facts").inner_text()  # signed: a vote for the negative side
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    found += audit(page, "DPD referees")

    # Tool-MAD: the judge after 3 rounds is "Judge, after 3 rounds", not "Round 4".
    verify(page, "tool-mad")
    tags = page.locator("#live .turn .round-tag").all_inner_texts()
    assert "Round 4" not in tags and tags.count("Round 3") == 2, tags
    assert page.inner_text("#live .turn.judgement .round-tag") == "Judge, after 3 rounds"
    found += audit(page, "Tool-MAD judge")

    # ReAct: each step's model calls under that step; nothing is called "round 2…6".
    verify(page, "react")
    steps = page.locator("#live .step")
    assert steps.count() >= 2
    assert all(steps.nth(i).locator(".model-calls").count() == 1 for i in range(steps.count()))
    assert page.locator("#live .other-calls").is_hidden()
    text = page.inner_text("#live .layout-body")
    assert "round 2" not in text.lower() and "Round 1" not in text, text
    found += audit(page, "ReAct steps")
    assert failing(found) == []
    assert errors == []
