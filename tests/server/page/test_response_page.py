"""'Check a response' on the web page, in a real browser against a live server: the claims are listed as
soon as the server has extracted them, each gets its verdict (or its error) while the others still run, a
claim opens its own debate, and the response's label, counts and marked answer arrive at the end. Bad input
and a broken stream leave a clear message and keep what was already shown."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from factdebate.llm.base import FatalLLMError, GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted_library import protocol_responder
from tests.server.conftest import AUTH, PLAIN, LiveServer, offline_build
from tests.server.held_model import HeldModel
from tests.server.page.test_browser import browser, pytestmark, reopen_form, sign_in, watched_page  # noqa: F401

ANSWER = ("Paris is the capital of France. The Eiffel Tower is in Berlin. The Louvre is a museum in Paris. "
          "Atlantis was a city on an island.")
CLAIMS = ["Paris is the capital of France.", "The Eiffel Tower is in Berlin.", "The Louvre is a museum in Paris.",
          "Atlantis was a city on an island."]
_CLAIM = re.compile(r"^Claim: (.*)$", re.M)
SHOT = os.environ.get("FACTDEBATE_RESPONSE_SHOT", "/tmp/factdebate-response-page.png")


def debater_calls(call: CallInfo, messages: list[Message]) -> bool:
    return call.prompt.split(":")[0] == "debate_answer"


class RefutingBackend(HeldModel):
    """The scripted protocol (one claim per sentence, debaters agree), except that debaters refute a claim
    about Berlin, the model fails for good on a claim about Atlantis (that claim's check errors), and the
    extractor fails on an answer about the Kraken (the whole check fails). Debaters' answers wait while
    ``gate`` is closed (open unless a test that looks at a run in flight closes it)."""

    def __init__(self, latency: float) -> None:
        agree = protocol_responder(disagree=False)

        def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
            if call.prompt.startswith("claims_extract") and "Kraken" in messages[0]["content"]:
                raise FatalLLMError("the scripted extractor is down")
            found = _CLAIM.search(messages[0]["content"]) if debater_calls(call, messages) else None
            claim = found.group(1) if found else ""
            if "Atlantis" in claim:
                raise FatalLLMError("the scripted model will not discuss Atlantis")
            if "Berlin" in claim:
                return f"Document [1] says the tower is in Paris, not as the claim says: {claim}\nREFUTES"
            return agree(call, messages, params)

        super().__init__(respond, debater_calls, latency=latency, name="scripted:refuting")
        self.gate.set()


def serve(live_server: Callable[..., LiveServer], latency: float,
          backend: RefutingBackend | None = None) -> LiveServer:
    # Two claims at a time, so the later ones are seen waiting while the first are checked.
    return live_server(defaults={**PLAIN, "claim_concurrency": 2},
                       build=partial(offline_build, backend=backend or RefutingBackend(latency)))


def open_response_form(page: Any, server: LiveServer) -> None:
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    page.click("button.tab[data-mode=response]")
    assert page.locator("#claim").is_hidden() and page.locator("#response-text").is_visible()


def claim_item(page: Any, number: int) -> Any:
    return page.locator("#response-live .claim-item").nth(number - 1)


def test_a_response_is_checked_claim_by_claim(browser: Any,  # noqa: F811
                                              live_server: Callable[..., LiveServer]) -> None:
    backend = RefutingBackend(latency=0.2)
    backend.gate.clear()  # no debater answers until the claims have been seen running and waiting
    with serve(live_server, latency=0.2, backend=backend) as server:
        page, errors = watched_page(browser, viewport={"width": 1360, "height": 1100})
        open_response_form(page, server)
        assert page.inner_text("#submit") == "Check response"
        page.fill("#response-text", ANSWER)
        page.fill("#response-question", "Tell me about Paris.")
        assert page.inner_text("#claim-count") == f"{len(ANSWER)} / 20000 characters"
        page.click("#submit")

        # The claims are listed before any verdict; the later ones wait for a free slot.
        page.wait_for_selector("#response-live .claim-item.state-running >> nth=1")
        assert page.locator("#response-live .claim-words").all_inner_texts() == CLAIMS
        assert page.locator("#response-live .response-verdict").is_hidden()
        assert page.locator("#response-live .claim-item.state-pending").count() == 2
        assert page.get_attribute("#response-live .response-status", "aria-live") == "polite"
        page.screenshot(path=SHOT.replace(".png", "-live.png"))

        # A claim opened while it runs is drawn live, then gets its verdict.
        page.click("#response-live .claim-item:nth-child(1) .claim-button")
        assert page.get_attribute("#response-live .claim-item:nth-child(1) .claim-button", "aria-pressed") == "true"
        backend.gate.set()
        page.wait_for_selector("#response-debate .agent-col .turn")
        assert page.inner_text("#response-debate .claim-text") == CLAIMS[0]
        page.wait_for_selector("#response-debate .verdict-box:not([hidden]) .verdict-label")
        assert page.inner_text("#response-debate .verdict-label") == "SUPPORTS"

        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)
        assert page.inner_text("#response-live .response-verdict .verdict-label") == "REFUTES"
        assert "at least one claim is false" in page.inner_text("#response-live .verdict-how")
        counts = page.inner_text("#response-live .response-counts")
        assert counts == "2 of 4 claims supported · 1 refuted · 1 failed"
        assert [claim_item(page, n).locator(".claim-state").inner_text() for n in (1, 2, 3)] == \
            ["SUPPORTS", "REFUTES", "SUPPORTS"]
        failed = claim_item(page, 4)
        assert "state-error" in (failed.get_attribute("class") or "")
        assert "will not discuss Atlantis" in failed.locator(".claim-meta").inner_text()
        assert page.inner_text("#response-live .response-status") == "Done, but 1 claim failed."
        assert failed.get_by_role("button", name="Retry claim 4").is_visible()  # alone

        # Every claim is marked in the answer by its verdict (the scripted extractor keeps the sentences).
        answer = page.locator("#response-live .answer-text")
        assert answer.inner_text().replace("1", "").replace("2", "").replace("3", "").replace("4", "") == ANSWER
        assert answer.locator("mark.claim-span.supports").count() == 2
        assert answer.locator("mark.claim-span.refutes").inner_text() == CLAIMS[1]
        assert answer.locator("mark.claim-span.error").inner_text() == CLAIMS[3]

        # Keyboard: Tab to the refuted claim and open it with Enter.
        claim_item(page, 1).locator(".claim-button").focus()
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        assert page.inner_text("#response-debate .claim-text") == CLAIMS[1]
        assert page.inner_text("#response-debate .verdict-label") == "REFUTES"
        answer.locator("mark.claim-span.error").click()
        assert "will not discuss Atlantis" in page.inner_text("#response-debate .verdict-box.failed")
        claim_item(page, 2).locator(".claim-button").click()
        page.screenshot(path=SHOT, full_page=True)

        # Back to a single claim: the claim form and its view return.
        page.click("button.tab[data-view=check]:not([data-mode])")
        assert page.locator("#claim").is_visible() and page.locator("#response-live").is_hidden()
        assert page.inner_text("#submit") == "Verify claim"
        assert errors == []


def test_bad_input_and_a_broken_stream_keep_what_was_shown(browser: Any,  # noqa: F811
                                                          live_server: Callable[..., LiveServer],
                                                          wait_for: Callable[..., None]) -> None:
    backend = RefutingBackend(latency=0.4)
    with serve(live_server, latency=0.4, backend=backend) as server:
        page, errors = watched_page(browser)
        open_response_form(page, server)

        page.click("#submit")
        assert page.inner_text("#form-error") == "Paste the answer to check."

        page.fill("#response-text", "Paris is the capital of France. The Louvre is a museum in Paris.")
        page.click("#submit")
        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)
        assert page.inner_text("#response-live .response-verdict .verdict-label") == "SUPPORTS"

        # Too long: the server's own message, the text left as it was, the last check still shown.
        reopen_form(page)  # the verdict folded it; a failure below leaves it open
        long_text = "The Louvre is a museum in Paris. " * 700
        page.fill("#response-text", long_text)
        assert "over" in (page.get_attribute("#claim-count", "class") or "")
        page.click("#submit")
        page.wait_for_selector("#form-error:not([hidden])")
        message = page.inner_text("#form-error")
        assert "too long" in message or "the limit is 20000" in message, message
        assert page.input_value("#response-text") == long_text
        assert page.locator("#response-live .claim-item").count() == 2
        assert page.inner_text("#response-live .response-verdict .verdict-label") == "SUPPORTS"

        # The whole check fails on the server: its message, and the last check's claims are replaced.
        page.fill("#response-text", "The Kraken lives in the sea.")
        page.click("#submit")
        page.wait_for_selector("#response-live .response-problem:not([hidden])")
        assert page.inner_text("#response-live .response-problem") == \
            "The check failed: scripted:refuting: the scripted extractor is down"
        assert page.inner_text("#response-live .response-status") == "Failed."  # the user stopped nothing
        assert "Extracting the claims" not in page.inner_text("#response-live")  # Nothing left running
        assert page.locator("#response-live .retry-slot button.retry").count() == 1

        # A stream that ends after the first claim's verdict: that verdict stays, the rest say so.
        def cut_after_first_verdict(route: Any) -> None:
            real = route.fetch()
            body = real.text()
            end = body.index("\n\n", body.index("event: run_finished")) + 2
            route.fulfill(status=200, headers={"content-type": "text/event-stream"}, body=body[:end])

        page.route("**/v1/check-response/stream", cut_after_first_verdict)
        page.fill("#response-text", ANSWER)
        page.click("#submit")
        page.wait_for_selector("#response-live .response-problem:has-text('stream ended')")
        assert "stream ended before the response's verdict" in page.inner_text("#response-live .response-problem")
        assert "checked so far are kept" in page.inner_text("#response-live .response-problem")
        states = page.locator("#response-live .claim-state").all_inner_texts()
        assert len(states) == 4 and states.count("not finished") == 3, states  # claim 1 or 2 finished first
        assert {s for s in states if s != "not finished"} <= {"SUPPORTS", "REFUTES"}, states
        assert page.locator("#response-live .response-verdict").is_hidden()
        assert page.inner_text("#response-live .response-status") == "Failed."
        assert page.is_enabled("#submit") and page.inner_text("#submit") == "Check response"

        # Stop while the claims run (their debaters wait for it; no cache): the list stays, none is marked as
        # checked, and the service stops the debates it was running.
        page.unroute("**/v1/check-response/stream")
        backend.gate.clear()
        page.click("#submit")
        page.wait_for_selector("#response-live .claim-item.state-running")
        wait_for(lambda: backend.held >= 2, what="both running claims' debates waiting on the model")
        assert backend.cancelled == 0
        page.click("#cancel")
        page.wait_for_selector("#response-live .response-problem:has-text('Stopped by you')")
        assert page.inner_text("#response-live .response-status") == "Stopped."
        assert page.locator("#response-live .claim-item").count() == 4
        assert page.locator("#response-live .claim-item.state-stopped").count() == 4
        wait_for(lambda: backend.cancelled == backend.held, what="the held debates cancelled")
        assert page.is_hidden("#cancel") and page.is_enabled("#submit")
        assert errors == []


def test_a_panel_method_shows_each_claims_confidence(browser: Any,  # noqa: F811
                                                     live_server: Callable[..., LiveServer]) -> None:
    # DPD with scripted:disagree: two judges vote affirmative at 0.9, one negative at 0.6 -> consensus 0.75.
    defaults = {"llm": "scripted:disagree", "method": "dpd", "dpd_min_rounds": 0, "dpd_max_rounds": 1,
                "dpd_tools": ["search"], "cache": False}
    with live_server(defaults=defaults) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url, "/#response")
        page.wait_for_selector("#method option[value=dpd]", state="attached")
        assert page.locator("#response-text").is_visible()  # /#response opens the response form
        page.fill("#response-text", "Paris is the capital of France. The Louvre is a museum in Paris.")
        page.click("#submit")
        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)
        assert page.inner_text("#response-live .response-verdict .verdict-label") == "SUPPORTS"
        metas = page.locator("#response-live .claim-meta").all_inner_texts()
        assert metas == ["the referees' confidence-weighted vote · consensus 0.75"] * 2, metas  # words, not "panel"
        claim_item(page, 2).locator(".claim-button").click()
        assert page.locator("#response-debate .team").count() == 2  # DPD's own view draws the claim
        assert errors == []


def test_a_finished_check_is_remembered_and_a_saved_one_opens_in_the_results_viewer(
        browser: Any, live_server: Callable[..., LiveServer], tmp_path: Path) -> None:  # noqa: F811
    with serve(live_server, latency=0.05) as server:
        page, errors = watched_page(browser, viewport={"width": 1360, "height": 1000})
        open_response_form(page, server)
        page.fill("#response-text", ANSWER)
        page.fill("#response-question", "Tell me about Paris.")
        page.click("#submit")
        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)

        # Recent checks: marked as a response, with its label and the start of the answer; kept over a reload.
        item = page.locator("#history .history-item[data-kind=response]")
        assert item.count() == 1
        assert item.locator(".history-kind").inner_text().lower() == "response"
        assert item.locator(".label").inner_text() == "REFUTES"
        assert item.locator(".history-claim").inner_text().startswith("Paris is the capital of France.")
        assert "4 claims" in item.locator(".history-meta").inner_text()
        page.reload()  # the page is at the check's link: the reload draws it again
        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label")
        page.wait_for_selector("#history .history-item[data-kind=response]")
        page.click("button.tab[data-view=check]:not([data-mode])")
        assert page.locator("#claim").is_visible()

        # A click reopens it in response mode, first (the form folded to a line naming it), each claim as it
        # finished; the answer is back in the form under the line.
        page.click("#history .history-item[data-kind=response]")
        assert page.inner_text("#fold-summary") == "Check a response: " + ANSWER
        assert not page.locator("#response-text").is_visible()
        assert page.evaluate("() => document.activeElement.textContent") == "The response's verdict"
        page.click("#unfold")
        assert page.locator("#response-text").is_visible() and page.input_value("#response-text") == ANSWER
        assert page.input_value("#response-question") == "Tell me about Paris."
        assert page.get_attribute("button.tab[data-mode=response]", "aria-selected") == "true"
        assert page.inner_text("#response-live .response-verdict .verdict-label") == "REFUTES"
        assert page.inner_text("#response-live .response-counts") == "2 of 4 claims supported · 1 refuted · 1 failed"
        states = page.locator("#response-live .claim-state").all_inner_texts()
        assert states == ["SUPPORTS", "REFUTES", "SUPPORTS", "error"], states
        assert page.locator("#response-live mark.claim-span.refutes").inner_text() == CLAIMS[1]
        claim_item(page, 2).locator(".claim-button").click()
        assert page.inner_text("#response-debate .claim-text") == CLAIMS[1]
        assert page.inner_text("#response-debate .verdict-label") == "REFUTES"
        assert page.inner_text("#response-live .response-status") == "Done, but 1 claim failed."
        page.screenshot(path=SHOT.replace(".png", "-history.png"), full_page=True)

        # The results viewer opens a saved response verdict (what /v1/check-response and --json give).
        saved = httpx.post(server.url + "/v1/check-response", headers=AUTH, timeout=60,
                           json={"response": ANSWER, "question": "Tell me about Paris."})
        assert saved.status_code == 200 and saved.json()["kind"] == "response"
        verdict_file = tmp_path / "response.json"
        verdict_file.write_text(json.dumps(saved.json(), indent=2))
        page.click("button.tab[data-view=results]")
        page.set_input_files("#results-file", str(verdict_file))
        page.wait_for_selector("#results-response .response-verdict:not([hidden]) .verdict-label")
        assert page.locator("#results-panel").is_hidden()
        assert page.inner_text("#results-response .response-verdict .verdict-label") == "REFUTES"
        assert "at least one claim is false" in page.inner_text("#results-response .verdict-how")
        assert page.inner_text("#results-response .response-counts") == "2 of 4 claims supported · 1 refuted · 1 failed"
        assert page.locator("#results-response .claim-words").all_inner_texts() == CLAIMS
        assert page.locator("#results-response mark.claim-span.supports").count() == 2
        assert page.locator("#results-response mark.claim-span.refutes").inner_text() == CLAIMS[1]
        page.locator("#results-response .claim-item").nth(0).locator(".claim-button").click()
        assert page.inner_text("#results-response-debate .claim-text") == CLAIMS[0]
        assert page.inner_text("#results-response-debate .verdict-label") == "SUPPORTS"
        page.screenshot(path=SHOT.replace(".png", "-viewer.png"), full_page=True)

        # Rows of a response-level run (one response per line) are listed by their answer and open the same way.
        rows = tmp_path / "responses.jsonl"
        rows.write_text("\n".join(json.dumps({**saved.json(), "gold": gold}) for gold in ("REFUTES", "SUPPORTS")))
        page.set_input_files("#results-file", str(rows))
        page.wait_for_selector("#results-panel:not([hidden]) #results-body tr")
        assert page.locator("#results-body tr").count() == 2
        assert "accuracy 50.0%" in page.inner_text("#results-summary")
        assert page.is_hidden("#results-response")
        assert page.locator("#results-body .claim-cell").nth(0).inner_text() == ANSWER
        page.click("#results-body tr:nth-child(2)")
        page.wait_for_selector("#results-response:not([hidden]) .response-verdict .verdict-label")
        assert page.inner_text("#results-response .response-counts") == "2 of 4 claims supported · 1 refuted · 1 failed"

        # A JSON file that is neither kind of verdict: a clear message, the response still shown.
        other = tmp_path / "other.json"
        other.write_text(json.dumps({"hello": "world"}))
        page.set_input_files("#results-file", str(other))
        page.wait_for_selector("#results-error:not([hidden])")
        assert "does not know this file's shape (its keys: hello)" in page.inner_text("#results-error")
        assert "claim's verdict" in page.inner_text("#results-error")
        assert "response's verdict" in page.inner_text("#results-error")
        assert page.inner_text("#results-response .response-verdict .verdict-label") == "REFUTES"
        assert errors == []


def test_stop_acts_on_the_visible_modes_run_only(browser: Any,  # noqa: F811
                                                live_server: Callable[..., LiveServer]) -> None:
    # The claim's debaters wait until the test has switched tabs twice and taken a screenshot (the page shows
    # a claim's view as soon as it is sent, before the server answers), however slow the machine.
    backend = RefutingBackend(latency=0.0)
    backend.gate.clear()
    with serve(live_server, latency=0.0, backend=backend) as server:
        page, errors = watched_page(browser)
        open_response_form(page, server)
        page.click("button.tab[data-view=check]:not([data-mode])")
        page.fill("#claim", CLAIMS[0])
        page.click("#submit")
        page.wait_for_selector("#live .spinner:visible")

        # In the response tab the claim's run is not this mode's: no Stop, a note, the claim tab marked busy.
        page.click("button.tab[data-mode=response]")
        assert page.is_hidden("#cancel")
        assert "A claim is being checked" in page.inner_text("#claim-form .run-elsewhere")
        assert "busy" in (page.get_attribute("button.tab[data-view=check]:not([data-mode])", "class") or "")
        assert page.is_disabled("#submit") and page.inner_text("#submit") == "Check response"
        page.screenshot(path=SHOT.replace(".png", "-elsewhere.png"), full_page=True)

        # Back in the claim tab, Stop is there again; away from it the debate runs to its verdict.
        page.click("button.tab[data-view=check]:not([data-mode])")
        assert page.is_visible("#cancel") and page.inner_text("#submit") == "Debating…"
        assert page.is_hidden("#claim-form .run-elsewhere")
        page.click("button.tab[data-mode=response]")
        backend.gate.set()
        page.wait_for_selector("#claim-form .run-elsewhere", state="hidden", timeout=30_000)
        assert page.is_enabled("#submit") and page.inner_text("#submit") == "Check response"
        assert "busy" not in (page.get_attribute("button.tab[data-view=check]:not([data-mode])", "class") or "")
        page.click("button.tab[data-view=check]:not([data-mode])")
        assert page.inner_text("#live .verdict-label") == "SUPPORTS"  # not stopped

        # Stop still stops the run of the mode it is shown in (its debaters wait for it).
        backend.gate.clear()
        page.click("#submit")
        page.wait_for_selector("#live .spinner:visible")
        page.click("#cancel")
        page.wait_for_selector("#live .verdict-box.failed")
        stopped = page.inner_text("#live .verdict-box.failed")  # said once
        assert stopped.startswith("Stopped by you.") and "stopped by you" not in stopped
        assert errors == []
