"""A finished run shows its result first, in Debian's Chromium against a live service with a
scripted model: once a claim's verdict, a response's verdict or a comparison is in, the form folds to one line
that says what was checked, the result is scrolled to the top of the window and its heading has the focus, and
"Edit the check" opens the form again with the text as it was. At a desktop's width and a phone's. (A run that
failed or was stopped keeps the form open: test_page_explains' retry test.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from factdebate.llm.base import Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted_library import protocol_responder
from tests.server.axe import audit
from tests.server.conftest import LiveServer, offline_build, page_service
from tests.server.held_model import HeldModel
from tests.server.page.test_browser import browser, pytestmark, reopen_form, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_explains import SHOTS, verify

DEFAULTS = {"llm": "scripted:agree", "agents": ["none", "none"], "dpd_min_rounds": 0, "dpd_max_rounds": 0,
            "dpd_gatherers": False, "cache": False}
CLAIM = "The Eiffel Tower is in Paris."
ANSWER = "Paris is the capital of France. The Louvre is a museum in Paris."
SIZES = ({"width": 1280, "height": 900}, {"width": 390, "height": 844})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with page_service(tmp_path_factory.mktemp("fold"), defaults=DEFAULTS) as live:
        yield live


def folded_on(page: Any, result: str, summary: str, heading: str, height: int) -> None:
    """The form is one line reading ``summary``, the ``result`` box starts inside the window and the focus is on
    the heading named ``heading``."""
    page.wait_for_selector("#claim-form.folded #form-folded:not([hidden])")
    assert page.inner_text("#fold-summary") == summary
    assert not page.is_visible("#submit") and not page.is_visible("#method")
    assert page.get_attribute("#unfold", "aria-expanded") == "false"
    top = page.evaluate("s => document.querySelector(s).getBoundingClientRect().top", result)
    assert 0 <= top < height - 100, top
    assert page.evaluate("() => document.activeElement.tagName + ' ' + document.activeElement.textContent") == \
        "H2 " + heading


@pytest.mark.parametrize("size", SIZES, ids=["1280", "390"])
def test_a_finished_claim_folds_the_form_and_one_click_opens_it(browser: Any, server: LiveServer,  # noqa: F811
                                                                size: dict[str, int]) -> None:
    page, errors = watched_page(browser, viewport=size)
    sign_in(page, server.url)
    verify(page, "tool-mad", CLAIM)
    folded_on(page, "#live .verdict-box", "Check a claim: " + CLAIM, "Verdict and debate", size["height"])
    assert page.inner_text("#live .verdict-label") == "SUPPORTS"
    assert audit(page, f"run folded at {size['width']}") == []  # the folded form and the verdict: none of any impact
    page.screenshot(path=str(SHOTS / f"page-run-folded-{size['width']}.png"))

    page.click("#unfold")  # one action opens it, the focus in its text, nothing of it lost
    assert page.is_visible("#submit") and page.get_attribute("#unfold", "aria-expanded") == "true"
    assert not page.is_visible("#form-folded")
    assert page.evaluate("() => document.activeElement.id") == "claim"
    assert page.input_value("#claim") == CLAIM and page.input_value("#method") == "tool-mad"
    assert page.inner_text("#live .verdict-label") == "SUPPORTS"  # the result stays under it

    # The next run folds it again, over its own claim.
    other = "The Louvre is a museum in Paris."
    page.fill("#claim", other)
    page.click("#submit")
    folded_on(page, "#live .verdict-box", "Check a claim: " + other, "Verdict and debate", size["height"])
    assert page.inner_text("#live .claim-text") == other
    assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    assert errors == []


def test_a_finished_response_and_comparison_fold_the_form(browser: Any, server: LiveServer) -> None:  # noqa: F811
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    page.click("button.tab[data-mode=response]")
    page.select_option("#method", "tool-mad")
    page.fill("#response-text", ANSWER)
    page.click("#submit")
    folded_on(page, "#response-live .response-verdict", "Check a response: " + ANSWER, "The response's verdict", 900)
    assert page.inner_text("#response-live .verdict-label") == "SUPPORTS"
    page.click("#unfold")
    assert page.evaluate("() => document.activeElement.id") == "response-text"
    assert page.input_value("#response-text") == ANSWER

    # Another tab opens the form there; a comparison folds it too, its agreement line first.
    page.click("button.tab[data-mode=compare]")
    assert page.is_visible("#claim") and not page.is_visible("#form-folded")
    for box in page.locator("#compare-methods input").all():
        box.set_checked(box.get_attribute("value") in ("tool-mad", "dpd"))
    page.fill("#claim", CLAIM)
    page.click("#submit")
    folded_on(page, "#compare-live", "Compare methods: " + CLAIM, "The methods' verdicts", 900)
    assert page.inner_text(".compare-agreement") == "All 2 methods say SUPPORTS."
    reopen_form(page)
    assert page.is_visible("#compare-methods") and page.input_value("#claim") == CLAIM

    # A check opened from Recent checks over a folded form is shown as a link's check is: the line names that
    # check, not the one shown before, and the form under it holds its text.
    page.click("#submit")
    page.wait_for_selector("#claim-form.folded")
    page.click("#history .history-item[data-kind=response]")
    folded_on(page, "#response-live .response-verdict", "Check a response: " + ANSWER, "The response's verdict", 900)
    page.click("#unfold")
    assert page.input_value("#response-text") == ANSWER
    assert errors == []


@pytest.mark.parametrize("size", SIZES, ids=["1280", "390"])
def test_a_check_opened_from_recent_checks_folds_the_form(browser: Any, server: LiveServer,  # noqa: F811
                                                          size: dict[str, int]) -> None:
    # As a check opened by its link: the result in view with the focus on its heading, the form one line above
    # it naming that check, even when the form was open (Edit the check) with another claim typed in it.
    page, errors = watched_page(browser, viewport=size)
    sign_in(page, server.url)
    verify(page, "tool-mad", CLAIM)
    other = "The Louvre is a museum in Paris."
    reopen_form(page)
    page.fill("#claim", other)
    page.click("#submit")
    folded_on(page, "#live .verdict-box", "Check a claim: " + other, "Verdict and debate", size["height"])
    reopen_form(page)
    page.fill("#claim", "Something not checked yet.")

    page.locator("#history .history-item", has_text=CLAIM).click()
    folded_on(page, "#live .verdict-box", "Check a claim: " + CLAIM, "Verdict and debate", size["height"])
    assert page.inner_text("#live .claim-text") == CLAIM and page.inner_text("#live .verdict-label") == "SUPPORTS"
    assert not page.is_visible("#claim") and not page.is_visible("#submit")
    page.click("#unfold")
    assert page.input_value("#claim") == CLAIM and page.input_value("#method") == "tool-mad"
    assert errors == []



def test_a_recent_check_waits_for_the_check_running_in_its_tab(browser: Any,  # noqa: F811
                                                                live_server: Callable[..., LiveServer]) -> None:
    # Opened over a running check, a past one would be drawn over it (the stream still feeding the view) and the
    # form, Stop and all, would fold away: the page says why it waits instead, and opens it once the run ends.
    running = "The Louvre is a museum in Paris."

    def holds(call: CallInfo, messages: list[Message]) -> bool:
        return running in messages[0]["content"]

    model = HeldModel(protocol_responder(False), holds)
    with live_server(defaults=DEFAULTS, build=partial(offline_build, backend=model)) as live:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
        sign_in(page, live.url)
        verify(page, "single", CLAIM)
        reopen_form(page)
        page.fill("#claim", running)
        page.click("#submit")
        page.wait_for_selector("#cancel:not([hidden])")

        page.locator("#history .history-item", has_text=CLAIM).click()
        assert page.is_visible("#form-error")
        assert page.inner_text("#form-error") == "A claim is being checked: stop it or let it end to open a past one."
        assert page.is_visible("#cancel") and not page.is_visible("#form-folded")
        assert page.inner_text("#live .claim-text") == running

        model.gate.set()
        folded_on(page, "#live .verdict-box", "Check a claim: " + running, "Verdict and debate", 900)
        page.locator("#history .history-item", has_text=CLAIM).click()
        folded_on(page, "#live .verdict-box", "Check a claim: " + CLAIM, "Verdict and debate", 900)
        assert page.inner_text("#live .claim-text") == CLAIM
        assert errors == []
