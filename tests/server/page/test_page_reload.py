"""A reload in the middle of a check, in Debian's Chromium against a live service
whose scripted judge waits for the test: while a check runs the page warns before it is left
(beforeunload); a reload puts the claim, the method and its options back in the form and offers to show what
had arrived (drawn as it was live, marked as stopped) or to run it again; a check reopened from Recent checks
shows, in the form, the method it was made with. The same for a response check (its claims that had arrived,
the rest not finished) and a comparison (its ticked methods and their own settings, a card per method); and a
draft too large for the tab's storage keeps the form alone, and says so. Back while a check runs stays on it
and says why; once it is stopped, Back returns to the check shown before it."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from tests.server.conftest import PLAIN, LiveServer, offline_build, page_service
from tests.server.page.test_browser import pytestmark, reopen_form, signed_in_page  # noqa: F401

CLAIM = "The Eiffel Tower is in Paris."
STALLED = "The Louvre is in Paris."  # its judge never answers: the page is reloaded while it waits
RESPONSE = "Paris is the capital of France. " + STALLED
LEAVING = """() => { const e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e);
  return e.defaultPrevented; }"""
ANSWERED = "#live article.turn .label-slot .label"  # an agent's answer drawn in its turn


# Set by the test once the page has been reloaded: until then the judge does not answer over the Eiffel Tower,
# however long the reload takes on a loaded machine.
EIFFEL_JUDGED = threading.Event()


class SlowJudge(ScriptedBackend):
    """The debaters answer at once and disagree; the judge answers over the Eiffel Tower once
    :data:`EIFFEL_JUDGED` is set (a reload first, then a re-run that ends), does not answer over the Louvre (the
    service cancels it when the page goes) and answers any other claim at once."""

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        text = messages[0]["content"]
        if "you judge a fact-checking debate" in text:
            if "Louvre" in text:
                await asyncio.sleep(60.0)
            while "Eiffel" in text and not EIFFEL_JUDGED.is_set():  # (set from the test's thread: polled)
                await asyncio.sleep(0.01)
        return await super().complete(messages, params)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    slow = SlowJudge(protocol_responder(disagree=True), name="scripted:slow-judge", record=False)
    with page_service(tmp_path_factory.mktemp("reload-page"), defaults={**PLAIN, "method": "single"},
                      build=lambda settings: offline_build(settings, slow)) as live:
        yield live


def reloaded(page: Any) -> None:
    """Reload the page mid-check (accepting the leave-page question) and wait for the note it offers."""
    page.once("dialog", lambda dialog: dialog.accept())
    page.reload()
    page.wait_for_selector("#restored-note:not([hidden])")


def test_a_reload_mid_check_warns_keeps_the_form_and_offers_what_had_arrived(chromium: Any,
                                                                            server: LiveServer) -> None:
    EIFFEL_JUDGED.clear()
    page, errors = signed_in_page(chromium, server.url)
    assert page.evaluate(LEAVING) is False  # nothing running: leave freely
    page.select_option("#method", "tool-mad")
    page.fill("#opt-rounds", "2")
    page.click("#more summary")
    page.fill("#opt-k", "3")
    page.fill("#claim", CLAIM)
    page.click("#submit")
    page.wait_for_selector(ANSWERED + " >> nth=3", timeout=30_000)  # both rounds' answers, not the judge's
    assert page.evaluate(LEAVING) is True  # a check is running: the browser asks first
    answers = page.locator(ANSWERED).count()

    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.accept()))
    page.reload()
    page.wait_for_selector("#restored-note:not([hidden])")
    assert asked == ["beforeunload"]
    assert page.input_value("#claim") == CLAIM and page.input_value("#method") == "tool-mad"
    assert page.input_value("#opt-rounds") == "2" and page.input_value("#opt-k") == "3"
    assert "stopped" in page.inner_text("#restored-note")
    assert page.locator("#live .debate").count() == 0  # nothing drawn until asked

    # What had arrived, drawn by the method's view, and said to be stopped: not a verdict.
    page.click("#restored-note .restored-show")
    assert page.locator(ANSWERED).count() >= answers
    assert page.inner_text("#live blockquote.claim-text") == CLAIM
    assert "reloaded before the verdict arrived" in page.inner_text("#live .verdict-box.failed")
    status = page.inner_text("#live .status-line")  # The reload stopped it, not the user
    assert "Stopped." in status and "by you" not in status, status
    assert page.locator("#restored-note .restored-show").count() == 0
    # Brought into view, the focus on its heading: it was drawn below the form, off the screen.
    assert page.evaluate(STARTS_IN_VIEW, "#live .debate"), page.evaluate(TOP, "#live .debate")
    assert page.evaluate("() => document.activeElement.textContent") == "Verdict and debate"

    # Run it again to its end, with the options kept (two rounds, not the default three); then, with another
    # method picked, reopen it: the form shows tool-mad.
    EIFFEL_JUDGED.set()
    page.click("#restored-note .restored-again")
    page.wait_for_selector("#live .verdict-box:not([hidden]):not(.failed) .verdict-label", timeout=30_000)
    page.wait_for_selector("#cancel", state="hidden")
    assert page.evaluate(LEAVING) is False
    assert page.locator("#restored-note").is_hidden()
    tags = page.locator("#live .round-tag").all_inner_texts()
    assert "Judge, after 2 rounds" in tags and "Round 3" not in tags, tags
    reopen_form(page)  # the verdict folded it
    page.select_option("#method", "single")
    page.click("#history .history-item >> nth=0")
    assert page.input_value("#method") == "tool-mad"
    page.reload()  # nothing running: no question, and no draft to restore
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    assert asked == ["beforeunload"] and page.locator("#restored-note").is_hidden()
    assert errors == []
    page.close()


def test_a_response_reloaded_mid_check_shows_its_claims_so_far_or_runs_again(chromium: Any,
                                                                             server: LiveServer) -> None:
    page, errors = signed_in_page(chromium, server.url)
    page.click("button.tab[data-mode=response]")
    page.select_option("#method", "tool-mad")
    page.fill("#opt-rounds", "1")
    page.fill("#response-text", RESPONSE)
    page.fill("#response-question", "Where is the Louvre?")
    page.click("#submit")
    # The first claim judged, the second waiting on its judge.
    page.wait_for_selector("#response-live .claim-item.state-done", timeout=30_000)
    assert page.locator("#response-live .claim-item.state-running").count() == 1
    reloaded(page)
    assert "while a response was being checked" in page.inner_text("#restored-note")
    assert page.locator("#response-text").is_visible() and page.input_value("#response-text") == RESPONSE
    assert page.input_value("#response-question") == "Where is the Louvre?"
    assert page.input_value("#method") == "tool-mad" and page.input_value("#opt-rounds") == "1"
    assert page.locator("#response-live .claim-item").count() == 0  # nothing drawn until asked

    page.click("#restored-note .restored-show")
    items = page.locator("#response-live .claim-item")
    assert items.count() == 2
    assert page.evaluate(STARTS_IN_VIEW, "#response-live .response-card"), page.evaluate(
        TOP, "#response-live .response-card")
    assert page.evaluate("() => document.activeElement.textContent") == "The response's verdict"
    first, second = (str(items.nth(i).get_attribute("class")).split() for i in (0, 1))
    assert "state-done" in first and "Paris is the capital" in items.nth(0).inner_text()
    assert "state-stopped" in second and "not finished" in items.nth(1).inner_text()
    assert "reloaded before the response's verdict arrived" in page.inner_text("#response-live .response-problem")
    assert page.inner_text("#response-live .response-status") == "Stopped."

    # Run it again: the request is the form as it was put back (text, question, method, one round).
    with page.expect_request("**/v1/check-response/stream") as sent:
        page.click("#restored-note .restored-again")
    body = json.loads(sent.value.post_data or "{}")
    assert (body["response"], body["question"], body["method"], body["rounds"]) == \
        (RESPONSE, "Where is the Louvre?", "tool-mad", 1), body
    page.wait_for_selector("#response-live .claim-item.state-done", timeout=30_000)
    page.click("#cancel")  # its second claim would wait a minute
    page.wait_for_selector("#cancel", state="hidden")
    assert page.evaluate(LEAVING) is False and errors == []
    page.close()


def test_a_comparison_reloaded_mid_run_keeps_its_methods_and_shows_its_cards(chromium: Any,
                                                                          server: LiveServer) -> None:
    page, errors = signed_in_page(chromium, server.url)
    page.click("button.tab[data-mode=compare]")
    for box in page.locator("#compare-methods input").all():
        box.set_checked(box.get_attribute("value") in ("single", "tool-mad"))
    page.click(".compare-settings[data-method=tool-mad] > summary")
    page.fill("#cmp-tool-mad-rounds", "2")
    page.fill("#claim", STALLED)
    page.click("#submit")
    # Single has its verdict; Tool-MAD's two rounds are in, its judge waits.
    page.wait_for_selector("#compare-grid .compare-card[data-method=single]:not(.pending)", timeout=30_000)
    page.wait_for_selector("#compare-view .compare-column[data-method=tool-mad] article.turn .label-slot .label"
                           " >> nth=3", state="attached", timeout=30_000)  # shown once its card is picked
    page.set_viewport_size({"width": 390, "height": 844})  # a phone, where the note was below the first screen
    reloaded(page)
    assert "while a comparison was being checked" in page.inner_text("#restored-note")
    # The note is in view without a scroll.
    assert page.evaluate(IN_VIEW, "#restored-note"), page.evaluate(
        "() => [document.querySelector('#restored-note').getBoundingClientRect().top, innerHeight]")
    page.set_viewport_size({"width": 1280, "height": 900})
    assert page.inner_text("#submit") == "Compare methods" and page.input_value("#claim") == STALLED
    ticked = [b.get_attribute("value") for b in page.locator("#compare-methods input:checked").all()]
    assert sorted(ticked) == ["single", "tool-mad"]
    assert page.input_value("#cmp-tool-mad-rounds") == "2"
    assert page.locator("#compare-grid .compare-card").count() == 0

    page.click("#restored-note .restored-show")
    assert page.evaluate(STARTS_IN_VIEW, "#compare-grid"), page.evaluate(TOP, "#compare-grid")
    single = page.locator("#compare-grid .compare-card[data-method=single]")
    toolmad = page.locator("#compare-grid .compare-card[data-method=tool-mad]")
    assert "failed" not in str(single.get_attribute("class")) and "model calls" in single.inner_text()
    # Stopped by the reload, said once: "stopped" on the label, why in the row below (not "error" twice).
    assert "failed" in str(toolmad.get_attribute("class"))
    assert toolmad.locator(".compare-head .label").inner_text() == "stopped"
    assert toolmad.locator("dt").all_inner_texts() == ["why"] and "error" not in toolmad.inner_text()
    assert "reloaded before its verdict arrived" in toolmad.locator("dd").inner_text()
    assert "(1 stopped)" in page.inner_text("#compare-grid .compare-agreement")
    column = page.locator("#compare-view .compare-column[data-method=tool-mad]")
    assert column.locator("article.turn .label-slot .label").count() >= 4
    assert "reloaded before its verdict arrived" in column.locator(".verdict-box.failed").inner_text()
    assert page.evaluate(LEAVING) is False and errors == []
    page.close()


IN_VIEW = """selector => { const r = document.querySelector(selector).getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight; }"""
# Where a long result starts: on the screen, with room to read its first lines.
STARTS_IN_VIEW = """selector => { const r = document.querySelector(selector).getBoundingClientRect();
  return r.top >= 0 && r.top < innerHeight - 200; }"""
TOP = "selector => [document.querySelector(selector).getBoundingClientRect().top, innerHeight]"

FILL = """reserve => { // the tab's storage filled but for `reserve` characters
  sessionStorage.setItem("reserve", "x".repeat(reserve));
  let n = 0;
  for (let size = 1 << 22; size >= 1; size >>= 1) {
    const text = "x".repeat(size);
    for (;;) { try { sessionStorage.setItem("fill" + n, text); n++; } catch (_) { break; } }
  }
  sessionStorage.removeItem("reserve");
}"""


def test_a_draft_too_large_for_the_tab_keeps_the_form_and_says_so(chromium: Any, server: LiveServer) -> None:
    page, errors = signed_in_page(chromium, server.url)
    page.evaluate(FILL, 3000)  # room for the form (800 characters), not with the events too (10,000)
    page.select_option("#method", "tool-mad")
    page.fill("#opt-rounds", "2")
    page.fill("#claim", STALLED)
    page.click("#submit")
    page.wait_for_selector(ANSWERED + " >> nth=3", state="attached", timeout=30_000)  # shown once its card is picked
    reloaded(page)
    note = page.inner_text("#restored-note")
    assert "too large to keep in this tab" in note, note
    assert page.locator("#restored-note .restored-show").count() == 0
    assert page.locator("#restored-note .restored-again").count() == 1
    assert page.input_value("#claim") == STALLED and page.input_value("#method") == "tool-mad"
    assert page.input_value("#opt-rounds") == "2" and errors == []
    page.close()


def test_back_while_a_check_runs_stays_on_it_and_says_why(chromium: Any, server: LiveServer) -> None:
    page, errors = signed_in_page(chromium, server.url)
    page.select_option("#method", "single")
    page.fill("#claim", CLAIM)
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]):not(.failed) .verdict-label", timeout=30_000)
    page.wait_for_selector("#cancel", state="hidden")
    kept = page.evaluate("() => location.search")
    assert kept.startswith("?check=")  # the finished check is at its link

    reopen_form(page)
    page.select_option("#method", "tool-mad")
    page.fill("#opt-rounds", "1")
    page.fill("#claim", STALLED)
    page.click("#submit")
    page.wait_for_selector(ANSWERED, timeout=30_000)
    assert page.evaluate("() => location.search") == ""  # a new entry, the check's own
    page.go_back()
    page.wait_for_selector("#form-error:not([hidden])")
    assert page.inner_text("#form-error").startswith("A check is running: stop it, or let it end")
    # Still the running check's page: its view and its Stop button; the earlier check is one Back away.
    assert page.evaluate("() => location.search") == "" and page.is_visible("#cancel")
    assert page.inner_text("#live blockquote.claim-text") == STALLED
    page.click("#cancel")
    page.wait_for_selector("#cancel", state="hidden")
    page.go_back()
    page.wait_for_selector(f"#live blockquote.claim-text:text-is('{CLAIM}')")
    assert page.evaluate("() => location.search") == kept
    assert errors == []
    page.close()
