"""The web page explains what it shows and never waits in silence, in Debian's Chromium against a live
server with a scripted model: many voters wrap as a grid, a phone-width window reaches every tab, a run shows
its clock, its round out of the most it may take, its model calls and their retries, and offers Retry after a
failure; a verdict says why in a sentence and quotes the passages it rests on; a claim the extractor
reworded is still marked in the answer. Screenshots go to $FACTDEBATE_PAGE_SHOTS (default /tmp)."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from factdebate.llm.base import GenParams, Message, TransientLLMError
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from tests.server.conftest import PLAIN, LiveServer, offline_build
from tests.server.held_model import HeldModel
from tests.server.page.test_browser import (  # noqa: F401
    browser,
    pytestmark,
    reopen_form,
    replay_trace,
    sign_in,
    watched_page,
)

SHOTS = Path(os.environ.get("FACTDEBATE_PAGE_SHOTS", "/tmp"))
CLAIM = "The Eiffel Tower was completed in 1889."
_CLAIM = re.compile(r"^Claim: (.*)$", re.M)
# The rag and search agents read these (tests/server/conftest.py EVIDENCE).
WIKIPEDIA = "https://en.wikipedia.org/wiki/Eiffel_Tower"


def verify(page: Any, method: str, claim: str = CLAIM, timeout: float = 30_000) -> None:
    page.wait_for_selector(f"#method option[value={method}]", state="attached")
    reopen_form(page)
    page.select_option("#method", method)
    page.fill("#claim", claim)
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label, #live .verdict-box.failed",
                           timeout=timeout)
    failed = page.locator("#live .verdict-box.failed")
    assert failed.count() == 0, failed.inner_text()


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("() => document.documentElement.clientWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width


def test_many_voters_wrap_as_a_grid_of_readable_cards(browser: Any,  # noqa: F811
                                                      live_server: Callable[..., LiveServer]) -> None:
    # Tool-MAD's three scored rounds make 29 voters: the case.
    defaults = {"llm": "scripted:agree", "agents": ["rag", "search"], "scoring": True, "cache": False, "rounds": 3}
    with live_server(defaults=defaults) as server:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
        sign_in(page, server.url)
        verify(page, "vote")
        page.click("#live details.many-answers > summary")  # the cards are folded under the tally (item 7)
        voters = page.locator("#live .agent-col").count()  # 29 when Tool-MAD's call bound is as it was
        assert voters >= 10, voters
        # One order whoever answers first: voter-2 before voter-10.
        heads = page.locator("#live .agent-col .agent-head h3").all_inner_texts()
        assert heads == [f"voter-{n}" for n in range(1, voters + 1)], heads
        assert "many" in (page.get_attribute("#live .columns", "class") or "")
        widths = page.eval_on_selector_all("#live .agent-col", "cols => cols.map(c => c.getBoundingClientRect().width)")
        assert min(widths) >= 180, widths  # was 29 columns of ~30 px, breaking words letter by letter
        no_sideways_scroll(page)
        assert page.inner_text("#live .verdict-why").startswith(f"{voters} of {voters} voters said SUPPORTS")
        page.locator("#live").screenshot(path=str(SHOTS / "page-vote-grid.png"))
        assert errors == []


def test_every_tab_fits_a_phone(browser: Any, live_server: Callable[..., LiveServer]) -> None:  # noqa: F811
    with live_server(defaults={**PLAIN, "llm": "scripted:agree"}) as server:
        page, errors = watched_page(browser, viewport={"width": 390, "height": 844})
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=tool-mad]", state="attached")
        no_sideways_scroll(page)
        tabs = page.locator(".tabs .tab")
        assert tabs.count() == 5
        for i in range(tabs.count()):
            box = tabs.nth(i).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (i, box)
        page.click("button.tab[data-view=results]")
        assert page.locator("#view-results").is_visible()
        page.click("button.tab[data-view=check]:not([data-mode])")
        verify(page, "tool-mad")
        no_sideways_scroll(page)
        page.screenshot(path=str(SHOTS / "page-phone.png"), full_page=True)
        assert errors == []


def test_a_run_shows_its_clock_rounds_and_model_calls(browser: Any,  # noqa: F811
                                                      live_server: Callable[..., LiveServer]) -> None:
    model = HeldModel(protocol_responder(disagree=True))  # its calls wait until the clock has been seen ticking
    with live_server(defaults={**PLAIN, "rounds": 2}, build=partial(offline_build, backend=model)) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=tool-mad]", state="attached")
        page.fill("#claim", CLAIM)
        page.click("#submit")
        # A model call is named while it is waited for, the round with the most there may be.
        page.wait_for_selector("#live .calls-line:has-text('waiting for')")
        page.wait_for_selector("#live .status-line:has-text('Round 1 of 2')")
        first = page.inner_text("#live .elapsed")
        # The clock ticks (polled from here: the page's CSP forbids the eval a string predicate needs).
        deadline = time.monotonic() + 30
        while page.inner_text("#live .elapsed") == first and time.monotonic() < deadline:
            time.sleep(0.2)
        assert page.inner_text("#live .elapsed") != first
        assert "Round 1 of 2" in page.inner_text("#live .status-line")
        model.gate.set()
        page.wait_for_selector("#live .calls-line:has-text('model calls done')")
        page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=30_000)
        calls = page.inner_text("#live .calls-line")
        assert re.fullmatch(r"\d+ model calls done", calls), calls  # nothing left waiting
        assert page.inner_text("#live .status-line") == "Done."
        assert "Round 2 of 2" in page.inner_text("#live .round-strip")
        assert errors == []


class FlakyModel:
    """The scripted protocol behind a switch: while ``down`` every call fails as a dead server's would
    (the wrapper retries them, then gives up); once up again, it answers."""

    def __init__(self) -> None:
        self.down = threading.Event()
        self.answer = protocol_responder(disagree=False)

    def __call__(self, call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if self.down.is_set():
            raise TransientLLMError("503 Service Unavailable", retry_after=0.2)
        return self.answer(call, messages, params)


def test_retries_are_shown_and_a_failure_offers_retry(browser: Any,  # noqa: F811
                                                      live_server: Callable[..., LiveServer]) -> None:
    model = FlakyModel()
    backend = ScriptedBackend(model, name="scripted:flaky", record=False)
    model.down.set()
    with live_server(defaults=PLAIN, build=partial(offline_build, backend=backend)) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=tool-mad]", state="attached")
        page.fill("#claim", CLAIM)
        page.click("#submit")
        page.wait_for_selector("#live .retry-line:not([hidden])")
        retry = page.inner_text("#live .retry-line")
        # The latest retry of either agent: under load a few may have passed before this reads it.
        assert "did not answer" in retry and "503 Service Unavailable" in retry, retry
        # In words (no prompt's code name, one full stop), the next try counted down in whole seconds.
        assert re.search(r"did not answer [\w -]+: 503 Service Unavailable\. Try \d+ (in 1 s|now)…$",
                         retry), retry
        page.wait_for_selector("#live .verdict-box.failed", timeout=30_000)
        assert page.inner_text("#live .status-line") == "Failed."  # the user stopped nothing
        assert page.is_visible("#claim") and not page.is_visible("#form-folded")  # no result: the form stays open
        assert page.locator("#live .thinking").count() == 0  # no card goes on "thinking…"
        assert re.search(r"\d+ retries", page.inner_text("#live .calls-line"))
        page.locator("#live").screenshot(path=str(SHOTS / "page-failed-retry.png"))
        model.down.clear()
        page.click("#live button.retry")
        page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=30_000)
        assert page.inner_text("#live .verdict-label") == "SUPPORTS"
        # Stopped by the user: then, and only then, it says so.
        model.down.set()
        reopen_form(page)  # the verdict folded it
        page.click("#submit")
        page.wait_for_selector("#live .retry-line:not([hidden])")
        page.click("#cancel")
        page.wait_for_selector("#live .verdict-box.failed")
        assert page.inner_text("#live .status-line") == "Stopped by you."
        # Said once, and no card goes on "thinking…" under it.
        assert page.inner_text("#live .verdict-box.failed strong") == "Stopped by you."
        assert "stopped by you" not in page.inner_text("#live .verdict-box.failed")
        assert page.locator("#live .thinking").count() == 0
        page.wait_for_selector("#cancel", state="hidden")
        assert page.is_visible("#claim") and not page.is_visible("#form-folded")  # stopped: the form stays open
        assert errors == []


def test_the_verdict_says_why_and_quotes_its_evidence(browser: Any,  # noqa: F811
                                                      live_server: Callable[..., LiveServer]) -> None:
    # The agents agree, but an answer-relevance threshold no answer reaches keeps them from consensus.
    defaults = {"llm": "scripted:agree", "agents": ["rag", "search"], "scoring": True, "cache": False, "rounds": 2,
                "relevance_threshold": 0.999, "dpd_min_rounds": 0, "dpd_max_rounds": 0}
    with live_server(defaults=defaults) as server:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 1000})
        sign_in(page, server.url)
        verify(page, "tool-mad")
        why = page.inner_text("#live .verdict-why")
        assert why.startswith("Both said SUPPORTS in the last round, but "), why
        assert "answer relevance" in why and "was under 0.999" in why, why
        assert why.endswith("so the judge decided: SUPPORTS."), why
        strip = page.locator("#live .round-strip li").all_inner_texts()
        assert strip[-1].startswith("Round 2 of 2: both said SUPPORTS, but "), strip
        assert strip[-1].endswith("so no consensus"), strip
        # The passages it rests on, quoted with their sources, in the verdict box itself.
        evidence = page.locator("#live .verdict-box .deciding-evidence")
        assert "cited by rag and search" in (evidence.locator(".kicker").first.text_content() or "")
        assert evidence.locator("a[href]").first.get_attribute("href") == WIKIPEDIA
        assert "completed in 1889" in evidence.locator(".passage-text").first.inner_text()
        page.locator("#live .verdict-box").screenshot(path=str(SHOTS / "page-verdict-why.png"))

        # DPD: the panel's vote in words, its weighted formula folded.
        reopen_form(page)
        page.select_option("#method", "dpd")
        page.click("#submit")
        page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label, #live .verdict-box.failed",
                               timeout=60_000)
        assert page.locator("#live .verdict-box.failed").count() == 0, page.inner_text("#live .verdict-box")
        why = page.inner_text("#live .verdict-why")
        assert why.startswith("The 3 referees of round 1 voted 3 SUPPORTS"), why
        assert page.locator("#live .ballot details.ballot-why").count() == 3  # each referee's reasoning, folded
        formula = page.locator("#live .verdict-box details.explanation")
        assert formula.get_attribute("open") is None and "W_A" in (formula.locator("pre").text_content() or "")
        assert errors == []


def rewording_backend() -> ScriptedBackend:
    """The scripted protocol with an extractor that rewrites "It stands in Berlin." to stand alone, and
    debaters who refute the claim about Berlin."""
    agree = protocol_responder(disagree=False)

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("claims_extract"):
            return json.dumps({"claims": ["The Eiffel Tower is a landmark in Paris.",
                                          "The Eiffel Tower stands in Berlin."]})
        found = _CLAIM.search(messages[0]["content"]) if call.prompt.split(":")[0] == "debate_answer" else None
        if found and "Berlin" in found.group(1):
            return f"Document [1] puts the tower in Paris, not as claimed: {found.group(1)}\nREFUTES"
        return agree(call, messages, params)

    return ScriptedBackend(respond, name="scripted:rewording", record=False)


def test_a_reworded_claim_is_marked_and_each_claim_shows_its_evidence(
        browser: Any, live_server: Callable[..., LiveServer]) -> None:  # noqa: F811
    answer = "The Eiffel Tower is a landmark in Paris. It stands in Berlin."
    defaults = {**PLAIN, "agents": ["rag", "search"]}
    with live_server(defaults=defaults, build=partial(offline_build, backend=rewording_backend())) as server:
        page, errors = watched_page(browser, viewport={"width": 1360, "height": 1000})
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=tool-mad]", state="attached")
        page.click("button.tab[data-mode=response]")
        page.fill("#response-text", answer)
        page.click("#submit")
        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)
        assert page.inner_text("#response-live .response-counts") == "1 of 2 claims supported · 1 refuted"
        # The refuted claim was reworded by the extractor: it is marked at the sentence it came from.
        refuted = page.locator("#response-live mark.claim-span.refutes")
        assert refuted.inner_text() == "It stands in Berlin."
        assert "reworded" in (refuted.get_attribute("class") or "")
        assert "The Eiffel Tower stands in Berlin." in (refuted.get_attribute("title") or "")
        assert "Dashed: 1 claim the extractor reworded" in page.inner_text("#response-live .response-answer")
        # Every claim row quotes the passages its verdict rests on, with their sources.
        for row in page.locator("#response-live .claim-item").all():
            assert row.locator(".claim-evidence .passage").count() >= 1
            assert row.locator(".claim-evidence a[href]").first.get_attribute("href") == WIKIPEDIA
        page.locator("#response-live .response-card").screenshot(path=str(SHOTS / "page-response-evidence.png"))
        assert errors == []


def test_methods_agree_in_a_sentence_and_a_verdict_downloads(browser: Any,  # noqa: F811
                                                             live_server: Callable[..., LiveServer]) -> None:
    defaults = {"llm": "scripted:agree", "agents": ["none", "none"], "dpd_min_rounds": 0, "dpd_max_rounds": 0,
                "dpd_gatherers": False, "cache": False}
    with live_server(defaults=defaults) as server:
        page, errors = watched_page(browser, accept_downloads=True)
        sign_in(page, server.url)
        page.wait_for_selector("#compare-methods input[value=dpd]", state="attached")
        page.click("button.tab[data-mode=compare]")
        for box in page.locator("#compare-methods input").all():
            box.set_checked(box.get_attribute("value") in ("tool-mad", "dpd", "cot"))
        page.fill("#claim", "The Eiffel Tower is in Paris.")
        page.click("#submit")
        page.wait_for_selector("#submit:not([disabled])", state="attached", timeout=60_000)
        assert page.inner_text(".compare-agreement") == "All 3 methods say SUPPORTS."
        page.click("#compare-grid .compare-card[data-method=dpd]")
        assert page.locator("#compare-grid .compare-open:visible").count() == 1  # the open card says so
        assert page.locator("#compare-grid .compare-card[data-method=dpd] .compare-open").is_visible()
        # The open verdict downloads as the JSON the results viewer reads.
        with page.expect_download() as download:
            page.click("#compare-view .compare-column.shown .verdict-box button.download")
        saved = json.loads(Path(download.value.path()).read_text())
        assert (saved["method"], saved["label"], saved["claim"]) == ("dpd", "SUPPORTS", "The Eiffel Tower is in Paris.")
        assert download.value.suggested_filename == "factdebate-verdict-the-eiffel-tower-is-in-paris.json"
        assert errors == []


def test_the_form_names_methods_in_words_and_keyboard_users_get_a_skip_link(
        browser: Any, live_server: Callable[..., LiveServer]) -> None:  # noqa: F811
    with live_server(defaults={**PLAIN, "llm": "scripted:agree"}) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=dpd]", state="attached")
        page.select_option("#method", "dpd")
        assert page.inner_text("#method option[value=dpd]").startswith("DPD (dual-position debate) — affirmative")
        assert len(page.inner_text("#method-help")) > 40  # the description, shown rather than on hover only
        icon = page.get_attribute("link[rel=icon]", "href")
        assert page.request.get(server.url + icon).ok  # no favicon 404
        page.goto(server.url + "/")
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.className") == "skip-link"
        page.keyboard.press("Enter")
        assert page.evaluate("() => location.hash") == "#claim-form"
        assert errors == []


def test_a_server_without_keys_shows_no_key_box(browser: Any,  # noqa: F811
                                                live_server: Callable[..., LiveServer]) -> None:
    with live_server(api_keys=[], allow_anonymous=True, defaults={**PLAIN, "llm": "scripted:agree"}) as server:
        page, errors = watched_page(browser)
        page.goto(server.url + "/")
        page.wait_for_selector("#method option[value=tool-mad]", state="attached")
        page.wait_for_selector("#key-form", state="hidden")
        verify(page, "tool-mad")  # and a check runs without one
        assert page.inner_text("#live .verdict-label") == "SUPPORTS"
        assert errors == []
    with live_server(defaults={**PLAIN, "llm": "scripted:agree"}) as server:  # with keys: the box is there
        page, errors = watched_page(browser)
        page.goto(server.url + "/")
        page.wait_for_selector("#form-error:has-text('API key')")
        assert page.locator("#api-key").is_visible()
        assert errors == []


def test_a_replayed_trace_counts_the_steps_it_drew(browser: Any, live_server: Callable[..., LiveServer],  # noqa: F811
                                                    tmp_path: Path) -> None:
    where = {"run": "r1", "agent": "executor", "round": 1}
    observation = "[1] Eiffel Tower: The tower was completed in 1889."
    events = [{"event": "run_started", "run": "r1", "claim": CLAIM, "method": "mermaid", "t": 1.0},
              {"event": "turn_started", **where, "t": 1.1},
              *({"event": "step", **where, "thought": "Look it up.", "tool": "search", "arguments": {"query": q},
                 "observation": observation, "t": 1.2} for q in ("Eiffel Tower", "Eiffel Tower 1889")),
              {"event": "answer", **where, "label": "SUPPORTS",
               "response": '{"thought": "Both searches say 1889.", "answer": "SUPPORTS"}', "t": 1.3},
              {"event": "run_finished", "run": "r1", "label": "SUPPORTS", "decided_by": "executor", "t": 1.4}]
    trace = tmp_path / "trace.jsonl"
    with live_server() as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        replay_trace(page, events, trace)
        assert "the executor's answer after 2 steps" in page.inner_text("#results-debate .verdict-how")
        # The answer in words, not its JSON; observations folded, the repeated one named.
        assert page.inner_text("#results-debate .timeline-answer p") == "SUPPORTS\nBoth searches say 1889."
        summaries = page.locator("#results-debate .step-observation summary").all_inner_texts()
        assert summaries == ["observation: " + observation, "observation: the same as step 1"], summaries
        assert page.locator("#results-debate .step-observation[open]").count() == 0
        assert errors == []


def test_tavily_is_offered_only_with_its_key(browser: Any, live_server: Callable[..., LiveServer],  # noqa: F811
                                             monkeypatch: Any) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with live_server(defaults={**PLAIN, "llm": "scripted:agree"}) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        page.wait_for_selector("#search option[value=local]", state="attached")
        assert page.locator("#search option").all_inner_texts() == ["local", "wikipedia"]
        monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")  # the catalogue is read per request
        page.reload()
        page.wait_for_selector("#search option[value=tavily]", state="attached")
        assert errors == []
