"""End to end in a real browser: Debian's headless Chromium, driven by Playwright, against a live server."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from factdebate.llm.scripted_library import protocol_responder
from tests.server.chromium import CHROMIUM
from tests.server.conftest import KEY, LiveServer, offline_build
from tests.server.held_model import HeldModel, judge_calls

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (scripts/ci-system-deps.sh installs it)")


def watched_page(browser: Any, **options: Any) -> tuple[Any, list[str]]:
    """A new page (``options``: Playwright's, e.g. ``viewport``) and the script errors it raises (every page
    test asserts there were none)."""
    page = browser.new_page(**options)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


def sign_in(page: Any, url: str, path: str = "/") -> None:
    """Open the page at ``path`` and enter the test key, as a user does first."""
    page.goto(url + path)
    page.fill("#api-key", KEY)
    page.press("#api-key", "Enter")


def reopen_form(page: Any) -> None:
    """Open the check form again, as a person does once a result is on the page: the form is then one
    line above it, and its "Edit the check" button opens it. The visible tab's run is let end first (its form
    folds as it ends), so a fill made at once does not land in a form about to fold."""
    page.wait_for_selector("#cancel", state="hidden")
    if page.is_visible("#unfold"):
        page.click("#unfold")
    page.wait_for_selector("#claim-form:not(.folded)")


def signed_in_page(browser: Any, url: str) -> tuple[Any, list[str]]:
    """A desktop-sized page, signed in, with the catalogue of methods loaded, and its script errors."""
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
    sign_in(page, url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    return page, errors


def check_response_with(page: Any, url: str, text: str, method: str = "single") -> None:
    """Sign in, check ``text`` as a response with ``method``, and wait for the response's verdict box."""
    sign_in(page, url)
    page.wait_for_selector(f"#method option[value={method}]", state="attached")
    page.click("button.tab[data-mode=response]")
    page.select_option("#method", method)
    page.fill("#response-text", text)
    page.click("#submit")
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)


def verify_claim_with(page: Any, claim: str, method: str, timeout_ms: int = 60_000) -> None:
    """Check ``claim`` with ``method`` on the signed-in page and wait for a verdict that is not a failure."""
    reopen_form(page)
    page.select_option("#method", method)
    page.fill("#claim", claim)
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label, #live .verdict-box.failed",
                           timeout=timeout_ms)
    assert page.locator("#live .verdict-box.failed").count() == 0, page.inner_text("#live .verdict-box")


def replay_trace(page: Any, events: list[dict[str, Any]], trace: Path) -> None:
    """Write ``events`` as a trace file, open it in the results viewer and its run's replay, as a user does."""
    trace.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    page.click("button.tab[data-view=results]")
    page.set_input_files("#results-file", str(trace))
    page.click("#results-body tr >> nth=0")
    page.wait_for_selector("#results-debate .verdict-box:not([hidden]) .verdict-label", timeout=60_000)


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The worker's Chromium for one test, over the module's connection (tests/server/conftest.py ``chromium``):
    each page it opens is a new context, and the contexts the test opened are closed when it ends. Connecting
    once per test started Playwright's driver each time (about 0.4 CPU-s and 2-5 s at load 15-25)."""
    before = set(chromium.contexts)
    try:
        yield chromium
    finally:
        for context in chromium.contexts:
            if context not in before:
                context.close()


def test_a_claim_is_debated_live_and_the_verdict_shown(browser: Any,
                                                       live_server: Callable[..., LiveServer]) -> None:
    # The judge answers once the test has seen turns drawn before the verdict exists.
    defaults = {"llm": "scripted:disagree", "agents": ["rag", "search"], "scoring": True, "cache": False,
                "rounds": 2}
    judge = HeldModel(protocol_responder(disagree=True), judge_calls, latency=0.05)
    with live_server(defaults=defaults, build=partial(offline_build, backend=judge)) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        # The method's options are drawn from the catalogue: Tool-MAD's agents are two selects of tools.
        # A selector wait, not wait_for_function: the page's CSP forbids the eval that a string predicate needs.
        page.wait_for_selector("#opt-agents-1 option:nth-child(3)", state="attached")
        assert page.locator("#opt-agents-1 option").count() == 3
        page.fill("#claim", "The Eiffel Tower was completed in 1889.")
        page.click("#submit")

        # Live: a column per agent fills in while the verdict is still pending.
        page.wait_for_selector("#live .agent-col .turn .label")
        assert page.locator("#live .verdict-box").is_hidden()
        assert page.locator("#live .agent-col").count() == 2

        judge.gate.set()
        page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=20_000)
        assert page.inner_text("#live .verdict-label") == "SUPPORTS"
        assert "judge" in page.inner_text("#live .verdict-how")
        assert page.locator("#live .turn:not(.judgement)").count() == 4  # two agents, two rounds
        assert page.locator("#live .turn.judgement").count() == 1  # and the judge's card
        link = page.locator("#live .doc-title[href]").first
        assert link.get_attribute("href") == "https://en.wikipedia.org/wiki/Eiffel_Tower"
        assert page.locator("#live .gauge-tick").count() >= 4  # scores drawn against the thresholds
        assert "Round 2" in page.inner_text("#live .round-strip")
        # Where this run departs from the paper: closed, counted, one item per deviation the verdict carries.
        notes = page.locator("#live .paper-notes")
        assert notes.get_attribute("open") is None
        keys = [item.get_attribute("data-key") for item in notes.locator("li").all()]
        assert page.inner_text("#live .paper-notes summary") == f"Differs from the paper ({len(keys)})"
        assert {"backbone", "tools_homogeneous", "rounds"} <= set(keys)  # the service's default is 2 rounds
        assert notes.locator(".same-evidence").count() == 1  # both agents searched the local corpus

        # The check is remembered, and the key survives a reload.
        page.reload()
        page.wait_for_selector("#history .history-item")
        assert "Eiffel" in page.inner_text("#history")
        assert page.input_value("#api-key") == KEY
        assert errors == []


def test_results_file_viewer_filters_and_opens_a_debate(browser: Any, live_server: Callable[..., LiveServer],
                                                        tmp_path: Path) -> None:
    def row(claim: str, label: str, gold: str) -> dict[str, Any]:
        turn = {"agent": "rag", "tool": "rag", "query": claim, "evidence": [], "response": "Because.\n" + label,
                "label": label, "faithfulness": 0.9, "answer_relevance": 0.85, "consistency": None,
                "score_errors": []}
        return {"claim": claim, "gold": gold, "label": label, "decided_by": "consensus", "method": "tool-mad",
                "rounds": [{"round": 1, "turns": [turn, {**turn, "agent": "search", "tool": "local"}]}],
                "config": {"toolmad": {"faithfulness_threshold": 0.7, "relevance_threshold": 0.8}}}

    results = tmp_path / "results.jsonl"
    rows = [row("Right one.", "SUPPORTS", "SUPPORTS"), row("Wrong one.", "REFUTES", "SUPPORTS"),
            {"claim": "Broken one.", "error": "model unreachable"}]
    results.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with live_server() as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)  # the rows are of schema 1: the server upgrades them for the page
        page.click("button.tab[data-view=results]")
        page.set_input_files("#results-file", str(results))
        page.wait_for_selector("#results-body tr")
        assert page.locator("#results-body tr").count() == 3
        assert "accuracy 50.0%" in page.inner_text("#results-summary")
        page.click(".chip-btn[data-filter=wrong]")
        assert page.locator("#results-body tr").count() == 1
        page.click("#results-body tr")
        page.wait_for_selector("#results-debate .verdict-label")
        assert page.inner_text("#results-debate .claim-text") == "Wrong one."
        assert page.inner_text("#results-debate .verdict-label") == "REFUTES"
        assert "consensus of the agents in round 1" in page.inner_text("#results-debate .verdict-how")
        assert page.locator("#results-debate .gauge").count() == 4  # the old score fields, upgraded
        assert errors == []


def test_the_form_labels_each_option_and_keeps_the_rest_under_more_options(
        browser: Any, live_server: Callable[..., LiveServer]) -> None:
    with live_server() as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=dpd]", state="attached")
        page.select_option("#method", "dpd")
        main = page.locator("#method-options .option-label").all_inner_texts()
        assert main == ["Fewest rebuttal rounds", "Most rebuttal rounds", "Consensus to stop", "Team states",
                        "Referees"]
        help_id = page.get_attribute("#opt-dpd_min_rounds", "aria-describedby")
        assert "before the judges' consensus may stop" in page.inner_text(f"#{help_id}")
        assert page.locator("#more-options").is_hidden()  # folded until asked for
        page.click("#more summary")
        legends = page.locator("#more-options legend").all_inner_texts()
        assert [g.lower() for g in legends[:3]] == ["agents and roles", "referees", "evidence"]
        assert "Snippet length" in page.inner_text("#more-options fieldset[data-group=length]")
        # Every control once: no setting is offered under two names (MERMAID's memory was).
        for method in ("dpd", "mermaid", "tool-mad"):
            page.select_option("#method", method)
            # (the compare tab's per-method sections, hidden here, are forms of their own)
            drawn = "#method-options .option, #more-options .option"
            names = page.eval_on_selector_all(drawn, "nodes => nodes.map(n => n.dataset.option)")
            labels = page.locator("#method-options .option-label, #more-options .option-label").all_inner_texts()
            assert len(names) == len(set(names)) and len(labels) == len(set(labels)), (method, labels)
            assert not any("_" in label for label in labels), labels  # titles, not field names
        assert errors == []


def test_one_claim_is_compared_across_methods(browser: Any, live_server: Callable[..., LiveServer]) -> None:
    defaults = {"llm": "scripted:agree", "agents": ["none", "none"], "dpd_min_rounds": 0, "dpd_max_rounds": 0,
                "dpd_gatherers": False, "cache": False}
    with live_server(defaults=defaults) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        page.wait_for_selector("#compare-methods input[value=dpd]", state="attached")
        page.click("button.tab[data-mode=compare]")
        assert page.locator("#method").is_hidden() and page.inner_text("#submit") == "Compare methods"
        for box in page.locator("#compare-methods input").all():
            box.set_checked(box.get_attribute("value") in ("tool-mad", "dpd", "cot"))
        page.fill("#claim", "The Eiffel Tower is in Paris.")
        page.click("#submit")
        page.wait_for_selector("#compare-grid .compare-card:not(.pending)")
        page.wait_for_selector("#submit:not([disabled])", state="attached", timeout=60_000)  # every method has answered
        cards = page.locator("#compare-grid .compare-card")
        assert [c.get_attribute("data-method") for c in cards.all()] == ["cot", "dpd", "tool-mad"]
        # Named as the picker names them, not by code name.
        names = [c.locator(".compare-head strong").inner_text() for c in cards.all()]
        picked = [page.inner_text(f"#compare-methods .compare-pick:has(input[value={m}]) .compare-pick-name")
                  for m in ("cot", "dpd", "tool-mad")]
        assert [p.startswith(n) for n, p in zip(names, picked, strict=True)] == [True] * 3 and "tool-mad" not in names
        for card in cards.all():
            text = card.inner_text()
            assert "SUPPORTS" in text and "model calls" in text and "tokens" in text and "seconds" in text, text
        page.click("#compare-grid .compare-card[data-method=dpd]")
        assert page.locator("#compare-view .compare-column.shown .ballot").count() == 3  # DPD opens its own view
        page.click("#compare-grid .compare-card[data-method=tool-mad]")
        assert page.locator("#compare-view .compare-column.shown .agent-col").count() >= 2
        page.reload()  # kept with the recent checks, and opened again from there
        page.click("#history .history-item[data-kind=compare]")
        page.wait_for_selector("#compare-grid .compare-card[data-method=dpd]")
        assert page.locator("#compare-grid .compare-card").count() == 3 and page.locator("#claim").input_value()
        assert errors == []
