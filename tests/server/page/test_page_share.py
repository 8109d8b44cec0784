"""Sharing and comparing on the page, in Debian's Chromium against a live server with a scripted model: a
check's link opens it again in a fresh browser (no Recent checks there) from the service's kept checks;
compared methods stand side by side on a wide screen and one at a time on a phone; each compared method
takes its own settings to the server; a comparison downloads as one file and reopens from one link; the
Recent-checks chips name their methods. One service for the whole module (it keeps the checks)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import LiveServer, page_service
from tests.server.page.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_explains import SHOTS, verify

DEFAULTS = {"llm": "scripted:agree", "agents": ["none", "none"], "dpd_min_rounds": 0, "dpd_max_rounds": 0,
            "dpd_gatherers": False, "cache": False}
CLAIM = "The Eiffel Tower is in Paris."
LINK = re.compile(r"/\?check=([0-9a-f]{32}(?:,[0-9a-f]{32})*)$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with page_service(tmp_path_factory.mktemp("share"), defaults=DEFAULTS) as live:
        yield live


def test_a_checks_link_opens_it_in_a_fresh_browser(browser: Any, server: LiveServer) -> None:  # noqa: F811
    page, errors = watched_page(browser)
    sign_in(page, server.url)
    verify(page, "tool-mad", CLAIM)
    href = page.get_attribute("#live .verdict-box .check-link a", "href") or ""
    assert LINK.search(href), href
    drawn = page.get_attribute("#live .debate", "data-layout")

    # A new page is a new browser context: no Recent checks, no key until it is typed.
    fresh, fresh_errors = watched_page(browser)
    sign_in(fresh, server.url, href[href.index("/?"):])
    fresh.wait_for_selector("#live .verdict-box .verdict-label")
    assert fresh.locator("#history .history-item").count() == 0  # drawn from the service, not the browser
    assert fresh.inner_text("#live .claim-text") == CLAIM
    assert fresh.inner_text("#live .verdict-label") == page.inner_text("#live .verdict-label") == "SUPPORTS"
    assert fresh.get_attribute("#live .debate", "data-layout") == drawn  # the method's own view
    assert fresh.locator("#live .agent-col").count() == page.locator("#live .agent-col").count() >= 2
    assert fresh.get_attribute("#live .verdict-box .check-link a", "href") == href  # and it links on
    fresh.locator("#live .verdict-box").screenshot(path=str(SHOTS / "page-check-link.png"))

    # A link the page never gave says so, and nothing is fetched.
    fresh.goto(server.url + "/?check=not-an-id")
    fresh.wait_for_selector("#form-error:not([hidden])")
    assert "32 lower-case hex digits" in fresh.inner_text("#form-error")
    fresh.goto(server.url + "/?check=" + "0" * 32)
    fresh.wait_for_selector("#form-error:not([hidden])")
    assert "not kept by the service" in fresh.inner_text("#form-error")
    assert errors == [] and fresh_errors == []


def test_a_link_shows_its_check_first_and_folds_the_form(browser: Any, server: LiveServer) -> None:  # noqa: F811
    # The chatbot team's whole path is the link; the check is in view with the focus on its heading,
    # the form a line above it that one click opens again.
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
    sign_in(page, server.url)
    verify(page, "tool-mad", CLAIM)
    href = page.get_attribute("#live .verdict-box .check-link a", "href") or ""
    for viewport in ({"width": 1280, "height": 900}, {"width": 390, "height": 844}):
        fresh, fresh_errors = watched_page(browser, viewport=viewport)
        sign_in(fresh, server.url, href[href.index("/?"):])
        fresh.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label")
        assert fresh.inner_text("#fold-summary") == "Check a claim: " + CLAIM
        assert not fresh.is_visible("#claim") and not fresh.is_visible("#submit")
        top = fresh.evaluate("() => document.querySelector('#live .verdict-box').getBoundingClientRect().top")
        assert 0 <= top < viewport["height"] - 100, top
        assert fresh.evaluate("() => document.activeElement.textContent") == "Verdict and debate"
        fresh.click("#unfold")
        assert fresh.is_visible("#claim") and fresh.is_visible("#submit")
        assert fresh.evaluate("() => document.activeElement.id") == "claim"
        assert fresh.input_value("#claim") == CLAIM
        assert fresh_errors == []
        fresh.close()
    # A page loaded with its key asks nothing without it: no 401 in the console.
    statuses: list[int] = []
    page.on("response", lambda response: statuses.append(response.status))
    page.reload()
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    assert 401 not in statuses and page.is_visible("#api-key"), statuses
    assert errors == []


def test_a_response_checks_link_opens_it_in_the_response_view(browser: Any,  # noqa: F811
                                                              server: LiveServer) -> None:
    page, errors = watched_page(browser)
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    page.click("button.tab[data-mode=response]")
    page.select_option("#method", "tool-mad")
    page.fill("#response-text", "Paris is the capital of France. The Louvre is a museum in Paris.")
    page.click("#submit")
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)
    href = page.get_attribute("#response-live .response-verdict .check-link a", "href") or ""
    assert LINK.search(href), href

    fresh, fresh_errors = watched_page(browser)
    sign_in(fresh, server.url, href[href.index("/?"):])
    fresh.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label")
    assert fresh.get_attribute("button.tab[data-mode=response]", "aria-selected") == "true"
    assert fresh.input_value("#response-text") == page.input_value("#response-text")
    assert fresh.inner_text("#response-live .response-counts") == page.inner_text("#response-live .response-counts")
    claims = fresh.locator("#response-live .claim-item").count()
    assert claims == page.locator("#response-live .claim-item").count() >= 2
    fresh.click("#response-live .claim-item:nth-child(1) .claim-button")  # each claim opens its debate
    fresh.wait_for_selector("#response-debate .verdict-box:not([hidden]) .verdict-label")
    assert errors == [] and fresh_errors == []


def _boxes(page: Any) -> dict[str, Any]:
    return {m: page.locator(f"#compare-view .compare-column[data-method={m}]").bounding_box()
            for m in ("dpd", "tool-mad")}


def test_compared_methods_stand_side_by_side_each_with_its_own_settings(browser: Any,  # noqa: F811
                                                                        server: LiveServer) -> None:
    page, errors = watched_page(browser, viewport={"width": 1600, "height": 1000}, accept_downloads=True)
    sign_in(page, server.url)
    page.wait_for_selector("#compare-methods input[value=dpd]", state="attached")
    page.click("button.tab[data-mode=compare]")
    for box in page.locator("#compare-methods input").all():
        box.set_checked(box.get_attribute("value") in ("tool-mad", "dpd"))
    # Each ticked method has its own settings: Tool-MAD's rounds, DPD's most rounds.
    page.click(".compare-settings[data-method=tool-mad] summary")
    page.fill("#cmp-tool-mad-rounds", "1")
    page.click(".compare-settings[data-method=dpd] summary")
    page.fill("#cmp-dpd-dpd_max_rounds", "1")
    page.fill("#claim", CLAIM)
    page.click("#submit")
    page.wait_for_selector("#submit:not([disabled])", state="attached", timeout=60_000)
    assert page.inner_text(".compare-agreement") == "All 2 methods say SUPPORTS."

    # Side by side: both views shown, one beside the other at the same height.
    page.wait_for_selector("#compare-view .compare-column[data-method=dpd] .verdict-label")
    boxes = _boxes(page)
    left, right = sorted(boxes.values(), key=lambda b: b["x"])
    assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 2, boxes
    assert min(b["width"] for b in boxes.values()) >= 400, boxes
    assert page.locator("#compare-view .compare-column[data-method=dpd] .ballot").first.is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    page.locator("#compare-live").screenshot(path=str(SHOTS / "page-compare-wide.png"))

    # The comparison as one file; each verdict's settings are its own method's.
    with page.expect_download() as download:
        page.click("#compare-grid .compare-actions button.download")
    saved = json.loads(Path(download.value.path()).read_text())
    assert download.value.suggested_filename == "factdebate-comparison-the-eiffel-tower-is-in-paris.json"
    assert saved["kind"] == "comparison" and saved["claim"] == CLAIM
    by_method = {v["method"]: v for v in saved["verdicts"]}
    assert sorted(by_method) == ["dpd", "tool-mad"]
    assert by_method["tool-mad"]["config"]["methods"]["tool-mad"]["rounds"] == 1
    assert len(by_method["tool-mad"]["rounds"]) == 1
    assert by_method["dpd"]["config"]["methods"]["dpd"]["max_rounds"] == 1  # the server's default is 0

    # Recent checks name each method beside its label.
    chips = page.locator("#history .history-item[data-kind=compare] .history-method").all_inner_texts()
    assert sorted(c.replace("\n", " ") for c in chips) == ["dpd SUPPORTS", "tool-mad SUPPORTS"], chips

    # The whole comparison reopens from one link, here on a phone: one method's view at a time.
    href = page.get_attribute("#compare-grid .compare-actions .check-link a", "href") or ""
    assert LINK.search(href) and href.count(",") == 1, href
    phone, phone_errors = watched_page(browser, viewport={"width": 390, "height": 844})
    sign_in(phone, server.url, href[href.index("/?"):])
    phone.wait_for_selector("#compare-grid .compare-card[data-method=dpd]:not(.pending)")
    assert phone.inner_text(".compare-agreement") == "All 2 methods say SUPPORTS."
    shown = [m for m, b in _boxes(phone).items() if b is not None]
    assert len(shown) == 1, shown  # the other column is not drawn at this width
    phone.click(f"#compare-grid .compare-card[data-method={'dpd' if shown == ['tool-mad'] else 'tool-mad'}]")
    assert [m for m, b in _boxes(phone).items() if b is not None] != shown
    assert phone.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    phone.screenshot(path=str(SHOTS / "page-compare-link-phone.png"), full_page=True)
    assert errors == [] and phone_errors == []
