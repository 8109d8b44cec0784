"""The results viewer analyses a run, in Debian's Chromium against a live server: a results file of real
evaluation records (tests/server/results_file.py) gets the confusion matrix and the per-label precision,
recall and F1 that eval/report/metrics.py computes for the same records, method and cost columns, headers that sort
by click or keyboard, a message when the filters leave no row, and rows that Tab reaches and Enter opens,
clear of the sticky top bar. One service, one browser and one results file for the whole module."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.report.metrics import compute, outcome_from_record
from factdebate.server.app import create_app
from tests.server.conftest import KEY, PLAIN, LiveServer, offline_build
from tests.server.page.test_browser import pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.results_file import write_results

LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
WORD = {"UNPARSED": "unparsed", "ERROR": "error"}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_results(tmp_path_factory.mktemp("eval"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path_factory.mktemp("db") / "service.sqlite",
                     build=offline_build)
    with LiveServer(app) as live:
        yield live


@pytest.fixture
def opened(chromium: Any, server: LiveServer, results: Path) -> Iterator[tuple[Any, list[str]]]:
    """A desktop-sized page showing the results file; the test's script errors are checked at its end."""
    page, errors = watched_page(chromium, viewport={"width": 1280, "height": 720})
    sign_in(page, server.url)
    page.click("button.tab[data-view=results]")
    page.set_input_files("#results-file", str(results))
    page.wait_for_selector("#results-body tr")
    yield page, errors
    page.close()
    assert errors == []


def records(results: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]


def column(page: Any, key: str) -> list[str]:
    index = page.eval_on_selector_all("#results-head th", f"ths => ths.findIndex(t => t.dataset.key === '{key}')")
    return page.eval_on_selector_all("#results-body tr", f"rows => rows.map(r => r.cells[{index}].textContent)")


def test_the_matrix_and_per_label_figures_are_the_harness_figures(opened: tuple[Any, list[str]],
                                                                   results: Path) -> None:
    page, _ = opened
    rows = records(results)
    python = compute([outcome_from_record(r) for r in rows], LABELS, resamples=10)
    confusion = python["confusion"]
    # Every cell the harness counts, unparsed and errored runs in columns of their own.
    for g, line in zip(confusion["gold"], confusion["matrix"], strict=True):
        for p, count in zip(confusion["predicted"], line, strict=True):
            cell = page.locator(f'#results-confusion td[data-gold="{g}"][data-verdict="{WORD.get(p, p)}"]')
            assert cell.inner_text() == str(count), (g, p)
    assert sum(map(sum, confusion["matrix"])) == len(rows) == 14
    assert confusion["matrix"][confusion["gold"].index("SUPPORTS")][confusion["predicted"].index("UNPARSED")] == 1
    assert confusion["matrix"][confusion["gold"].index("REFUTES")][confusion["predicted"].index("ERROR")] == 1
    for label in LABELS:
        cells = page.locator(f'#results-per-label tbody tr[data-label="{label}"] td').all_inner_texts()
        figures = python["per_class"][label]
        assert cells == [f"{figures['precision']:.3f}", f"{figures['recall']:.3f}", f"{figures['f1']:.3f}",
                         str(figures["support"]), str(figures["predicted"])], label
    assert page.inner_text("#results-per-label .macro-f1") == f"{python['macro_f1']:.3f}"
    summary = page.inner_text("#results-summary")
    low, high = python["ci"]["accuracy"]  # Wilson's, as the summary's
    assert (f"accuracy {100 * python['accuracy']:.1f}% [{100 * low:.1f}, {100 * high:.1f}] ({python['correct']}/14, "
            "95% Wilson interval)") in summary, summary
    # Opened alone, the file names no dataset labels: macro-F1 is over those seen, and the page says so.
    assert page.is_visible("#results-summary .labels-note")
    assert "3 labels seen as gold or verdict" in page.inner_text("#results-per-label tfoot")
    assert "2 unparsed" in summary and "1 error" in summary
    # Method and cost per row, from each record's usage; the failed run's is what it spent before failing.
    assert set(column(page, "method")) == {"cot", ""}
    assert column(page, "calls") == [str(r["usage"]["llm_calls"]) if r.get("usage") else "—" for r in rows]
    assert column(page, "tokens") == [str(r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"])
                                      if r.get("usage") else "—" for r in rows]
    # A cell's count opens its rows: the two REFUTES answers to SUPPORTS claims.
    page.click('#results-confusion td[data-gold="SUPPORTS"][data-verdict="REFUTES"] button')
    wrong = [r["claim"] for r in rows if r["gold"] == "SUPPORTS" and r.get("predicted") == "REFUTES"]
    assert column(page, "claim") == wrong and len(wrong) == 2


def test_with_its_run_json_macro_f1_averages_over_the_dataset_labels(chromium: Any, server: LiveServer,
                                                                    results: Path) -> None:
    page, errors = watched_page(chromium, viewport={"width": 1280, "height": 720})
    sign_in(page, server.url)
    page.click("button.tab[data-view=results]")
    page.set_input_files("#results-file", [str(results), str(results.parent / "run.json")])
    page.wait_for_selector("#results-body tr")
    rows = records(results)
    python = compute([outcome_from_record(r) for r in rows], LABELS, resamples=10)
    assert page.locator("#results-summary .labels-note").count() == 0 and page.is_hidden("#results-paired")
    assert page.inner_text("#results-per-label .macro-f1") == f"{python['macro_f1']:.3f}"
    assert "the dataset's 3 labels" in page.inner_text("#results-per-label tfoot")
    # Every row's cost, the failed one's spend included; none recorded none.
    assert "rows with recorded usage, the spend of 1 errored row before it failed included" in page.inner_text(
        "#results-metrics .cost-line")
    page.set_input_files("#results-file", str(results.parent / "run.json"))  # alone: it holds no rows
    page.wait_for_selector("#results-error:has-text('run.json or summary.json')")
    page.close()
    assert errors == []


def test_headers_sort_by_click_and_keyboard(opened: tuple[Any, list[str]]) -> None:
    page, _ = opened
    tokens = 'th[data-key="tokens"]'
    assert page.locator("#results-head th[aria-sort]").count() == 0  # the file's order until asked
    page.click(f"{tokens} button")
    assert page.get_attribute(tokens, "aria-sort") == "ascending"
    values = column(page, "tokens")
    counted = [int(v) for v in values]  # every row has a cost: the failed one's first call failed, 0 tokens
    assert counted == sorted(counted) and counted[0] == 0
    page.focus(f"{tokens} button")
    page.keyboard.press("Enter")  # again, by keyboard: reversed
    assert page.get_attribute(tokens, "aria-sort") == "descending"
    values = column(page, "tokens")
    assert [int(v) for v in values] == sorted(counted, reverse=True)
    page.keyboard.press("Tab")  # focus stayed on the header: the next one is Seconds'
    page.keyboard.press("Space")
    assert page.get_attribute('th[data-key="seconds"]', "aria-sort") == "ascending"
    assert page.get_attribute(tokens, "aria-sort") is None
    page.click('th[data-key="claim"] button')
    claims = column(page, "claim")
    assert claims == sorted(claims, key=str.lower)


def test_a_filter_that_leaves_nothing_says_so(opened: tuple[Any, list[str]]) -> None:
    page, _ = opened
    page.click(".chip-btn[data-filter=error]")
    assert page.locator("#results-body tr").count() == 1 and page.locator("#results-empty").is_hidden()
    page.fill("#results-search", "Eiffel")
    page.wait_for_selector("#results-empty:not([hidden])")
    assert page.locator("#results-body tr").count() == 0
    assert page.inner_text("#results-empty").startswith(
        "No rows match the filter “Errors” and claims containing “eiffel” (of 14 rows).")
    page.click("#results-empty button")
    assert page.locator("#results-body tr").count() == 14 and page.locator("#results-empty").is_hidden()


def top_bar_bottom(page: Any) -> float:
    box = page.locator(".topbar").bounding_box()
    assert box is not None and page.eval_on_selector(".topbar", "b => getComputedStyle(b).position") == "sticky"
    return float(box["y"] + box["height"])


def settled_top(page: Any, selector: str) -> float:
    """The element's top once a smooth scroll has stopped moving it (polled: the page's CSP forbids the eval
    a string predicate needs)."""
    last, deadline = None, time.monotonic() + 10
    while time.monotonic() < deadline:
        box = page.locator(selector).bounding_box()
        assert box is not None
        if box["y"] == last:
            return float(box["y"])
        last = box["y"]
        time.sleep(0.15)
    raise AssertionError(f"{selector} kept moving")


def test_rows_open_by_keyboard_clear_of_the_sticky_header(opened: tuple[Any, list[str]]) -> None:
    page, _ = opened
    page.focus('th[data-key="result"] button')  # the last header; Tab goes on to the first row
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.index") == "3"
    page.keyboard.press("Enter")
    page.wait_for_selector("#results-debate .verdict-label")
    assert page.inner_text("#results-debate .claim-text") == "Notre-Dame stands in Paris."
    assert page.get_attribute('#results-body tr[data-index="3"]', "aria-current") == "true"
    # The opened debate scrolled into view below the sticky bar, not under it.
    bottom = top_bar_bottom(page)
    assert settled_top(page, "#results-opened") >= bottom
    # Focus went to "Back to row 3"; it brings the row back to the top of the view, still below the bar.
    assert page.evaluate("() => document.activeElement.textContent") == "Back to row 3"
    page.keyboard.press("Enter")
    row = '#results-body tr[data-index="3"]'
    top = settled_top(page, row)
    assert bottom <= top <= bottom + 40, (top, bottom)
    assert page.evaluate("() => document.activeElement.dataset.index") == "3"
    # Space opens a row too (and does not scroll the page instead).
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    page.wait_for_selector('#results-body tr[data-index="4"][aria-current]')
    assert page.inner_text("#results-debate .claim-text") == "The Brandenburg Gate is in Berlin."
    # The opened row stays marked through a sort; filtered away, "Back to row 4" shows every row again.
    page.click('th[data-key="tokens"] button')
    assert page.get_attribute("#results-body tr[aria-current]", "data-index") == "4"
    page.click(".chip-btn[data-filter=error]")
    page.click("#results-opened button")
    assert page.locator("#results-body tr").count() == 14
    assert page.evaluate("() => document.activeElement.dataset.index") == "4"
