"""The page for keyboard and screen-reader users, in Debian's Chromium against a live server with a scripted
model: axe-core finds nothing serious or critical on any screen (the form, a finished
Tool-MAD verdict, a response check, the results viewer, Compare, the API reference), and a keyboard gets
past a verdict in a few Tab stops: skip links go to the verdict and past the debate, and a list of evidence
links is one stop, walked with the arrow keys. One service and one browser for the module."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.axe import audit, failing, focus_top, need_axe, tab_stops_past
from tests.server.conftest import page_service
from tests.server.page.test_browser import pytestmark, reopen_form, signed_in_page  # noqa: F401
from tests.server.results_file import write_results

CLAIM = "The Eiffel Tower was completed in 1889."
# Both agents read evidence (tests/server/conftest.py EVIDENCE) and are scored for three rounds: the case.
TOOLMAD = {"llm": "scripted:agree", "agents": ["rag", "search"], "scoring": True, "cache": False, "rounds": 3}
FOCUSED = "() => { const a = document.activeElement; return a ? a.className + '|' + a.textContent : null; }"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with page_service(tmp_path_factory.mktemp("keyboard"), defaults=TOOLMAD) as live:
        yield live


def verify(page: Any) -> None:
    reopen_form(page)  # a verdict folds the form to a line above it
    page.select_option("#method", "tool-mad")
    page.fill("#claim", CLAIM)
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=60_000)


def from_top(page: Any, tabs: int) -> str:
    """Focus on <body> (so the next Tab is the page's first stop), ``tabs`` Tab presses, what has focus."""
    focus_top(page)
    for _ in range(tabs):
        page.keyboard.press("Tab")
    return str(page.evaluate(FOCUSED))


def test_axe_finds_nothing_serious_on_any_screen(chromium: Any, server: Any, tmp_path: Path) -> None:
    need_axe()
    page, errors = signed_in_page(chromium, server.url)
    found = audit(page, "form")
    verify(page)
    found += audit(page, "Tool-MAD verdict")

    page.click("button.tab[data-mode=compare]")
    for box in page.locator("#compare-methods input").all():
        box.set_checked(box.get_attribute("value") in ("tool-mad", "cot"))
    page.click("#submit")
    page.wait_for_selector("#submit:not([disabled])", state="attached", timeout=60_000)  # every method has answered
    page.click("#compare-grid .compare-card[data-method=tool-mad]")
    page.wait_for_selector("#compare-view .compare-column.shown .verdict-label")
    found += audit(page, "compare")

    page.click("button.tab[data-mode=response]")
    page.fill("#response-text", "The Eiffel Tower is in Paris. It was completed in 1889.")
    page.click("#submit")
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=60_000)
    page.click("#response-live .claim-item:nth-child(1) .claim-button")
    page.wait_for_selector("#response-debate .verdict-box:not([hidden]) .verdict-label")
    found += audit(page, "response check")

    page.click("button.tab[data-view=results]")
    found += audit(page, "results viewer, empty")
    assert from_top(page, 1) == "skip-link|Skip to the form"  # the results viewer's, here
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement === document.querySelector('#view-results .form-card')")
    page.set_input_files("#results-file", str(write_results(tmp_path / "run")))
    page.click("#results-body tr >> nth=0")
    page.wait_for_selector("#results-debate .verdict-box:not([hidden]) .verdict-label")
    found += audit(page, "results viewer, a row opened")

    page.goto(server.url + "/docs")
    page.wait_for_selector("#endpoints .endpoint", timeout=20_000)
    found += audit(page, "API reference")
    print("\n".join(found))  # the moderate and minor findings, for the record
    assert failing(found) == []
    assert errors == []


def luminance(css: str) -> float:
    """WCAG's relative luminance of a computed colour, "rgb(r, g, b)"."""
    channels = [int(c) / 255 for c in re.findall(r"\d+", css)[:3]]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str, second: str) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_a_keyboard_gets_past_a_verdict_in_a_few_stops(chromium: Any, server: Any) -> None:
    page, errors = signed_in_page(chromium, server.url)
    # A text field's focus ring stands out from the card it is on (WCAG 1.4.11: 3:1; it had 1.6:1).
    for field in ("#claim", "#api-key"):
        page.focus(field)
        ring = page.eval_on_selector(field, "f => getComputedStyle(f).outlineColor")
        card = page.eval_on_selector(field, "f => getComputedStyle(f.closest('.card, .topbar')).backgroundColor")
        assert contrast(ring, card) >= 3, (field, ring, card)
    # No debate on screen: the top's verdict and debate links are not offered.
    assert from_top(page, 1) == "skip-link|Skip to the form"
    assert from_top(page, 2) == "tab active|Check a claim"
    verify(page)
    everything = tab_stops_past(page, "#live .debate")  # the whole way without a skip link

    # "Skip to the verdict", the second stop, focuses the verdict box; its own stops follow.
    assert from_top(page, 2) == "skip-link|Skip to the verdict"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement === document.querySelector('#live .verdict-box')")
    inside = 0
    while page.evaluate("() => document.querySelector('#live .verdict-box').contains(document.activeElement)"):
        page.keyboard.press("Tab")
        inside += 1
    # Then the debate's own "Skip past the debate": two stops to the verdict, a few through it, one more past.
    assert page.evaluate(FOCUSED) == "skip-past|Skip past the debate"
    print(f"Tab stops past the verdict: {2 + inside} with the skip link, {everything} past the debate without")
    assert 2 + inside <= 12 < everything, (inside, everything)  # 10 now: two evidence lists, six controls
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement === document.querySelector('#live .debate-end')")
    assert page.locator("#live .debate-end").is_visible()  # drawn while it has focus
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.querySelector('#live .debate').contains(document.activeElement)")

    # The top's "Skip past the debate", the third stop, goes there too: four presses past the whole debate.
    assert from_top(page, 3) == "skip-link|Skip past the debate"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement === document.querySelector('#live .debate-end')")

    # The verdict's evidence list is one stop; the arrow keys walk its links, and Tab leaves it.
    links = page.locator("#live .verdict-box .passages a[href]")
    assert links.count() >= 2
    assert [link.get_attribute("tabindex") for link in links.all()].count("0") == 1
    assert "arrow keys" in (page.get_attribute("#live .verdict-box .passages", "aria-label") or "")
    links.first.focus()
    page.keyboard.press("ArrowDown")
    assert links.nth(1).evaluate("a => a === document.activeElement")
    page.keyboard.press("End")
    assert links.last.evaluate("a => a === document.activeElement")
    page.keyboard.press("Tab")  # on past the list, not to its next link
    assert page.evaluate("() => !document.activeElement.closest('.passages')")
    page.keyboard.press("Shift+Tab")  # back into the list at the link last focused
    assert links.last.evaluate("a => a === document.activeElement")
    assert errors == []
