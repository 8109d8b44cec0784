"""The page at a phone's width, in Debian's Chromium against one live service with a scripted
model, 390 px wide: two results files paired, and MERMAID's view opened in Compare, are no wider than the
screen (the pairing made the page 470 px wide; the decomposition broke words, "evidenc/e", and was clipped):
their tables become blocks of "column: value" lines, by a container query, so a narrow column of Compare
draws them so too. The method pickers show a method's readable name and
what it is, not its code name with the description on hover only (a phone has no hover)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdebate.core.types import Label, Round, Step, Turn, Verdict
from factdebate.server.app import create_app
from tests.server.axe import audit, failing, need_axe
from tests.server.conftest import KEY, PLAIN, LiveServer, offline_build
from tests.server.page.test_browser import pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_compare_confusion import always_supports
from tests.server.results_file import write_results

CLAIM = "The Eiffel Tower is in Paris."
PHONE = {"width": 390, "height": 844}
WIDTH = "() => document.documentElement.scrollWidth"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    app = create_app(api_keys=[KEY], defaults={**PLAIN, "llm": "scripted:agree"}, build=offline_build,
                     db_path=tmp_path_factory.mktemp("db") / "service.sqlite")
    with LiveServer(app) as live:
        yield live


def mermaid_verdict() -> dict[str, Any]:
    """A MERMAID verdict as a results file holds it: the decomposer's turn (its response the decomposition's
    JSON, with a long attribute that broke words in a column one word wide) and the executor's steps."""
    decomposition = {"triplets": [{"subject": "The Eiffel Tower", "relation": "is located in", "object": "Paris",
                                   "attributes": "evidence needed about its location and the city's districts"}],
                     "topic": "Landmarks", "entities": ["The Eiffel Tower", "Paris"]}
    decomposer = Turn(agent="decomposer", role="decomposer", response=json.dumps(decomposition))
    executor = Turn(agent="executor", role="executor", label=Label.SUPPORTS, response="It is in Paris.\nSUPPORTS",
                    steps=[Step(thought="Look for evidence first.", tool="search_local",
                                arguments={"query": CLAIM}, observation="[1] Eiffel Tower: in Paris.")])
    verdict = Verdict(claim=CLAIM, method="mermaid", label=Label.SUPPORTS, decided_by="executor",
                      rounds=[Round(round=1, turns=[decomposer, executor])])
    return {**verdict.model_dump(mode="json"), "gold": "SUPPORTS"}


def test_paired_files_compare_and_the_pickers_fit_a_phone(chromium: Any, server: LiveServer, tmp_path: Path) -> None:
    need_axe()
    page, errors = watched_page(chromium, viewport=PHONE)
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")

    # The select names each method in words; the whole description is shown under it.
    assert page.inner_text("#method option[value=tool-mad]").startswith("Tool-MAD — two (or three) debaters")
    page.select_option("#method", "tool-mad")
    assert page.locator("#method-help").is_visible() and "retrieval tools" in page.inner_text("#method-help")

    # Compare's picker: a readable name and what the method is, both on screen.
    page.click("button.tab[data-mode=compare]")
    pick = page.locator("#compare-methods .compare-pick", has=page.locator("input[value=tool-mad]"))
    assert pick.locator(".compare-pick-name").inner_text() == "Tool-MAD tool-mad"
    about = pick.locator(".compare-pick-about")
    assert about.is_visible() and about.inner_text().startswith("two (or three) debaters with different retrieval")
    vote = page.locator("#compare-methods .compare-pick", has=page.locator("input[value=vote]"))
    assert vote.locator(".compare-pick-about").inner_text().startswith("Majority vote of independent")
    assert page.evaluate(WIDTH) <= 390
    found = audit(page, "compare's picker")

    # Compare at a phone's width: the cards and the opened view stay within the screen.
    for box in page.locator("#compare-methods input").all():
        box.set_checked(box.get_attribute("value") in ("dpd", "cot"))
    page.fill("#claim", CLAIM)
    page.click("#submit")
    page.wait_for_selector("#submit:not([disabled])", state="attached", timeout=60_000)
    page.click("#compare-grid .compare-card[data-method=dpd]")
    assert page.locator("#compare-view .compare-column.shown .ballot").count() >= 3
    assert page.evaluate(WIDTH) <= 390
    found += audit(page, "compare, DPD opened")

    # MERMAID's verdict (as Compare's column or the results viewer draws it): its decomposition and recalled
    # memory fit, each row a block of "column: value" lines.
    saved = tmp_path / "mermaid.jsonl"
    saved.write_text(json.dumps(mermaid_verdict()) + "\n", encoding="utf-8")
    page.click("button.tab[data-view=results]")
    page.set_input_files("#results-file", str(saved))
    page.click("#results-body tr >> nth=0")
    part = page.locator("#results-debate .part[data-part=decomposition]")
    part.wait_for()
    assert page.evaluate(WIDTH) <= 390
    fits = part.evaluate("""p => [...p.querySelectorAll('td')].map(td => [td.dataset.label,
      td.scrollWidth <= td.clientWidth, td.getBoundingClientRect().right <= p.getBoundingClientRect().right + 0.5])""")
    assert fits and all(inside and right for _, inside, right in fits), fits
    assert [label for label, _, _ in fits] == ["subject", "relation", "object", "attributes"]
    assert part.locator("tr.head-row").is_hidden()  # each value says its column itself
    label = part.locator("td").first.evaluate("td => getComputedStyle(td, '::before').content")
    assert label == '"subject"', label
    attributes = part.locator("td[data-label=attributes]")
    assert attributes.evaluate("td => td.getBoundingClientRect().width") > 150  # not a column one word wide
    found += audit(page, "MERMAID's parts")

    # Two results files paired: every table stays within the screen.
    first = write_results(tmp_path / "first")
    second = write_results(tmp_path / "second", always_supports)
    page.click("button.tab[data-view=results]")
    page.set_input_files("#results-file", [str(first), str(second)])
    page.wait_for_selector("#results-paired h2:has-text('Paired comparison')")
    assert page.evaluate(WIDTH) <= 390  # was 470 (594 with the answers that differ)
    cells = page.locator("#results-paired table.stacked td")
    assert cells.count() > 10 and cells.first.get_attribute("data-label") == "file"
    answer = page.locator("#results-paired table.stacked td button").first
    assert answer.is_visible() and answer.bounding_box()["x"] + answer.bounding_box()["width"] <= 390
    found += audit(page, "two files paired")
    assert failing(found) == []
    assert errors == []


def test_a_claim_holding_a_url_and_the_api_reference_fit_a_phone(chromium: Any, server: LiveServer) -> None:
    """A claim with a long URL made the page 448 px wide (.claim-text did not wrap), the
    API reference 487 px, and the reference printed Markdown backticks."""
    need_axe()
    page, errors = watched_page(chromium, viewport=PHONE)
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=single]", state="attached")
    page.select_option("#method", "single")
    page.fill("#claim", "The page https://example.org/a/very/long/path/without/any/break/in/it/at/all/index.html "
                        "says the Eiffel Tower is in Paris.")
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=30_000)
    assert page.evaluate(WIDTH) <= 390
    found = audit(page, "a claim holding a URL at phone width")
    page.goto(server.url + "/docs")
    page.wait_for_load_state("networkidle")
    page.wait_for_selector("#schemas details")
    assert page.evaluate(WIDTH) <= 390
    # The schema's Markdown `code` is drawn as code, not printed with its backticks.
    assert "`" in page.evaluate("async () => await (await fetch('/openapi.json')).text()")
    assert "`" not in page.evaluate("document.querySelector('main').textContent")
    assert page.locator("#endpoints p code, #endpoints li code, #schemas code").count() > 0
    found += audit(page, "the API reference at phone width")
    assert failing(found) == []
    assert errors == []
