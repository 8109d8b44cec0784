"""The page's address follows its result, in Debian's Chromium against one live service with a scripted model: a
finished check is at its link (/?check=<id>), so Back and Forward walk the results shown, a reload draws the
same one, and Back from another page returns to it; a response and a comparison likewise. A link opened without
the key its check was made with says that a check is waiting for it, and opens once the key is given. The model
of every verdict and its caution are on Compare's cards and in Recent checks, and a phone shows the caution on
its first screen."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.axe import audit, failing
from tests.server.conftest import KEY, LiveServer, page_service
from tests.server.page.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_explains import verify

DEFAULTS = {"llm": "scripted:agree", "agents": ["none", "none"], "dpd_min_rounds": 0, "dpd_max_rounds": 0,
            "dpd_gatherers": False, "cache": False}
FIRST = "The Eiffel Tower is in Paris."
SECOND = "The Louvre is in Paris."
AT_LINK = re.compile(r"/\?check=([0-9a-f]{32}(?:,[0-9a-f]{32})*)$")
PHONE = {"width": 390, "height": 844}
SCRIPT_NOTE = "note: scripted:agree is a script, not a model"
MODEL_LINE = "model scripted:agree · a script, not a model: no finding about the claim"
IN_VIEW = """(node) => { const box = node.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight; }"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with page_service(tmp_path_factory.mktemp("address"), defaults=DEFAULTS) as live:
        yield live


def link_of(page: Any, box: str) -> str:
    """The address the result's own "Link to this check" gives, from its path on."""
    href = page.get_attribute(f"{box} .check-link a", "href") or ""
    assert AT_LINK.search(href), href
    return href[href.index("/?"):]


def path_of(page: Any) -> str:
    return str(page.evaluate("() => location.pathname + location.search + location.hash"))


def shows_claim(page: Any, claim: str, first: bool = True) -> None:
    """The claim's finished verdict is on the page; ``first``: as a link's check is, the form folded over it and
    the focus on its heading (a check opened from Recent checks opens the form with it instead)."""
    page.wait_for_selector(f"#live .claim-text:text-is('{claim}')")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label")
    if not first:
        assert page.input_value("#claim") == claim
        return
    assert page.inner_text("#fold-summary") == "Check a claim: " + claim
    assert page.evaluate("() => document.activeElement.textContent") == "Verdict and debate"


def test_a_result_is_at_its_link_through_back_forward_and_reload(browser: Any, server: LiveServer) -> None:  # noqa: F811
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
    sign_in(page, server.url)
    verify(page, "tool-mad", FIRST)
    first = link_of(page, "#live .verdict-box")
    page.wait_for_url(lambda url: url.endswith(first))
    verify(page, "tool-mad", SECOND)
    second = link_of(page, "#live .verdict-box")
    page.wait_for_url(lambda url: url.endswith(second))
    assert first != second

    # Back: the first check, drawn again; Forward: the second.
    page.go_back()
    assert path_of(page) == first
    shows_claim(page, FIRST)
    assert link_of(page, "#live .verdict-box") == first
    page.go_forward()
    assert path_of(page) == second
    shows_claim(page, SECOND)

    # A reload draws the check at the address, from the service.
    page.reload()
    shows_claim(page, SECOND)
    assert path_of(page) == second and page.inner_text("#live .verdict-label") == "SUPPORTS"

    # Another page, then Back: the check again.
    page.click("footer a[href='/docs']")
    page.wait_for_url("**/docs")
    page.go_back()
    shows_claim(page, SECOND)
    assert path_of(page) == second

    # A check reopened from Recent checks is at its link too, and Back returns to the one shown before.
    page.click(f"#history .history-item:has-text('{FIRST}')")
    shows_claim(page, FIRST, first=False)
    assert path_of(page) == first
    page.go_back()
    shows_claim(page, SECOND)
    assert path_of(page) == second
    assert errors == []


def test_a_response_and_a_comparison_are_at_their_links(browser: Any, server: LiveServer) -> None:  # noqa: F811
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    page.click("button.tab[data-mode=response]")
    assert path_of(page) == "/#response"  # the tab, kept by a reload before any result
    page.select_option("#method", "tool-mad")
    page.fill("#response-text", "Paris is the capital of France. The Louvre is a museum in Paris.")
    page.click("#submit")
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)
    page.wait_for_selector("#cancel", state="hidden")
    response = link_of(page, "#response-live .response-verdict")
    assert path_of(page) == response
    counts = page.inner_text("#response-live .response-counts")
    page.reload()
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label")
    assert page.get_attribute("button.tab[data-mode=response]", "aria-selected") == "true"
    assert page.inner_text("#response-live .response-counts") == counts and path_of(page) == response

    page.click("button.tab[data-mode=compare]")
    assert path_of(page) == "/#compare"  # this tab shows no result yet
    for box in page.locator("#compare-methods input").all():
        box.set_checked(box.get_attribute("value") in ("tool-mad", "dpd"))
    page.fill("#claim", FIRST)
    page.click("#submit")
    page.wait_for_selector("#compare-grid .compare-actions .check-link a", timeout=60_000)
    comparison = link_of(page, "#compare-grid .compare-actions")
    assert path_of(page) == comparison and comparison.count(",") == 1
    page.click("button.tab[data-mode=response]")  # each tab's result has its own address
    assert path_of(page) == response
    page.click("button.tab[data-mode=compare]")
    assert path_of(page) == comparison
    page.reload()
    page.wait_for_selector("#compare-grid .compare-card[data-method=dpd]:not(.pending)")
    assert page.inner_text(".compare-agreement") == "All 2 methods say SUPPORTS."
    page.go_back()  # the response, before the comparison
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label")
    assert path_of(page) == response
    assert page.get_attribute("button.tab[data-mode=response]", "aria-selected") == "true"
    assert errors == []


def test_a_link_opened_without_its_key_says_a_check_waits_for_it(browser: Any, server: LiveServer) -> None:  # noqa: F811
    page, errors = watched_page(browser)
    sign_in(page, server.url)
    verify(page, "tool-mad", FIRST)
    link = link_of(page, "#live .verdict-box")

    for key in ("", "not-the-key"):
        fresh, fresh_errors = watched_page(browser, viewport=PHONE)
        if key:
            fresh.add_init_script(f"localStorage.setItem('factdebate.apiKey', '{key}')")
        fresh.goto(server.url + link)
        fresh.wait_for_selector("#form-error:not([hidden])")
        said = fresh.inner_text("#form-error")
        assert said.startswith("This link opens a check kept by the service for an API key."), said
        assert ("was not accepted" in said) == bool(key), said
        # Not a form of empty choices: a line that says what waits, and the key box to type in.
        assert fresh.inner_text("#fold-summary").startswith("A linked check is waiting for the API key")
        assert not fresh.is_visible("#method") and not fresh.is_visible("#claim")
        assert fresh.evaluate("() => document.activeElement.id") == "api-key"
        assert failing(audit(fresh, "a link waiting for its key")) == []
        fresh.fill("#api-key", KEY)
        fresh.press("#api-key", "Enter")
        shows_claim(fresh, FIRST)
        assert fresh.locator("#form-error").is_hidden() and path_of(fresh) == link
        assert fresh_errors == []
        fresh.close()
    assert errors == []


def test_compare_and_recent_checks_name_the_model_and_its_caution(browser: Any, server: LiveServer) -> None:  # noqa: F811
    page, errors = watched_page(browser, viewport=PHONE)
    sign_in(page, server.url)
    page.wait_for_selector("#compare-methods input[value=dpd]", state="attached")
    page.click("button.tab[data-mode=compare]")
    for box in page.locator("#compare-methods input").all():
        box.set_checked(box.get_attribute("value") in ("tool-mad", "dpd"))
    page.fill("#claim", FIRST)
    page.click("#submit")
    page.wait_for_selector("#compare-grid .compare-actions .check-link a", timeout=60_000)
    page.wait_for_selector("#cancel", state="hidden")

    # The script's caution once for both methods, right under the agreement, on the phone's first screen.
    cautions = page.locator("#compare-grid .compare-cautions .near-chance")
    assert cautions.count() == 1 and cautions.inner_text().startswith(SCRIPT_NOTE), cautions.all_inner_texts()
    assert cautions.evaluate(IN_VIEW), cautions.bounding_box()
    for method in ("dpd", "tool-mad"):  # each card names its model
        facts = page.inner_text(f"#compare-grid .compare-card[data-method={method}] .compare-facts")
        assert "model\nscripted:agree" in facts, facts
    assert failing(audit(page, "a comparison with its caution at phone width")) == []

    # Recent checks: the model and why its labels are no finding, beside each label.
    assert page.inner_text("#history .history-item >> nth=0 >> .history-model") == MODEL_LINE

    # A claim's check on a phone: its caution on the first screen too.
    page.click("button.tab[data-view=check]:not([data-mode])")
    verify(page, "tool-mad", SECOND)
    page.wait_for_selector("#cancel", state="hidden")
    note = page.locator("#live .verdict-box .near-chance")
    assert note.inner_text().startswith(SCRIPT_NOTE) and note.evaluate(IN_VIEW), note.bounding_box()
    assert page.inner_text("#history .history-item >> nth=0 >> .history-model") == MODEL_LINE
    assert errors == []
