"""A reopened check shows its model calls, in Debian's Chromium against a live server with a scripted model:
a check opened again from Recent checks, or from its link in a fresh browser, draws each call under its turn
exactly as the live run drew it (the same markup, calls.js); a check whose calls passed the operator's bound
says how many of them are shown; a response's claim opened from its link shows its debate's calls. One service
for the module, keeping at most 8,000 bytes of calls per check: a short claim's two calls (about 1 KB each) and a
two-claim response's five fit, a 1,900-character claim's second call (about 4.7 KB each) does not."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.conftest import LiveServer, page_service
from tests.server.page.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_explains import SHOTS, verify

DEFAULTS = {"llm": "scripted:agree", "agents": ["none", "none"], "scoring": False, "cache": False}
CLAIM = "The Eiffel Tower was completed in 1889."
LONG = " ".join(f"The Eiffel Tower was completed in 1889, fact {i}." for i in range(40))[:1900]
RESPONSE = "Paris is the capital of France. The Louvre is a museum in Paris."
LINK = re.compile(r"/\?check=[0-9a-f]{32}$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with page_service(tmp_path_factory.mktemp("kept-calls"), defaults=DEFAULTS, kept_check_calls_bytes=8000) as live:
        yield live


def calls_markup(page: Any, host: str, count: int) -> list[str]:
    """Each turn's folded model calls under ``host`` once ``count`` turns hold them (a reopened check's arrive
    after its verdict): their markup, in the order of the turns."""
    folds = f"{host} .turn > .model-calls"
    page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length === n", arg=[folds, count])
    return [fold.evaluate("node => node.outerHTML") for fold in page.locator(folds).all()]


def link_of(page: Any, box: str) -> str:
    href = page.get_attribute(f"{box} .check-link a", "href") or ""
    assert LINK.search(href), href
    return href[href.index("/?"):]


def test_a_reopened_check_draws_its_calls_as_they_were_live(browser: Any, server: LiveServer) -> None:  # noqa: F811
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 1000})
    sign_in(page, server.url)
    verify(page, "tool-mad")
    cards = page.locator("#live .agent-col .turn").count()
    assert cards == 2
    live = calls_markup(page, "#live", cards)
    assert all("Model calls (1)" in fold and "call-reply" in fold for fold in live)

    verify(page, "tool-mad", LONG)  # a later check: the live view now shows another one
    long_link = link_of(page, "#live .verdict-box")

    # From Recent checks (newest first): the same calls, drawn with the same markup as live.
    page.locator("#history .history-item").nth(1).click()
    page.wait_for_function("c => document.querySelector('#live .claim-text').textContent === c", arg=CLAIM)
    assert calls_markup(page, "#live", cards) == live
    assert page.locator("#live .kept-calls-cut").count() == 0

    # From its link, in a fresh browser: the long claim's second call passed the bound, and the page says so.
    fresh, fresh_errors = watched_page(browser, viewport={"width": 1280, "height": 1000})
    sign_in(fresh, server.url, long_link)
    fresh.wait_for_selector("#live .kept-calls-cut")
    assert fresh.inner_text("#live .kept-calls-cut") == ("Model calls: the first 1 of 2 are shown. The service keeps "
                                                       "a bounded amount of a check's calls, so the last one was "
                                                       "not kept.")
    (kept,) = fresh.locator("#live .turn > .model-calls").all()
    assert kept.locator(":scope > summary").inner_text() == "Model calls (1)"
    kept.locator(":scope > summary").click()
    kept.locator(".call-prompt > summary").click()
    assert any(LONG in text for text in kept.locator(".call-message .call-text").all_inner_texts())
    fresh.locator("#live .debate").screenshot(path=str(SHOTS / "page-kept-calls.png"))

    # A response's link: each claim's debate shows the calls it showed live.
    page.click("button.tab[data-mode=response]")
    page.select_option("#method", "tool-mad")
    page.fill("#response-text", RESPONSE)
    page.click("#submit")
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)
    page.click("#response-live .claim-item:nth-child(2) .claim-button")
    live_claim = calls_markup(page, "#response-debate", 2)
    fresh.goto(server.url + link_of(page, "#response-live .response-verdict"))
    fresh.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label")
    fresh.click("#response-live .claim-item:nth-child(2) .claim-button")
    assert calls_markup(fresh, "#response-debate", 2) == live_claim
    assert errors == [] and fresh_errors == []
