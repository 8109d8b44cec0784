"""A reload in the middle of a check (issue 49, items 7 and 8), in Debian's Chromium against a live service
whose scripted model takes a second per call: while a check runs the page warns before it is left
(beforeunload), and a reload puts the claim and the method back in the form, saying the check was stopped and
can be run again; a check reopened from Recent checks shows, in the form, the method it was made with."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from tests.server.conftest import PLAIN, LiveServer, offline_build
from tests.server.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401

CLAIM = "The Eiffel Tower is in Paris."
LEAVING = """() => { const e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e);
  return e.defaultPrevented; }"""


def test_a_reload_mid_check_warns_and_keeps_the_claim_and_method(browser: Any,  # noqa: F811
                                                                 live_server: Callable[..., LiveServer]) -> None:
    slow = ScriptedBackend(protocol_responder(disagree=False), latency=1.0, name="scripted:slow", record=False)
    with live_server(defaults={**PLAIN, "method": "single"}, build=partial(offline_build, backend=slow)) as server:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=cot]", state="attached")
        assert page.evaluate(LEAVING) is False  # nothing running: leave freely
        page.select_option("#method", "cot")
        page.fill("#claim", CLAIM)
        page.click("#submit")
        page.wait_for_selector("#cancel:not([hidden])")
        assert page.evaluate(LEAVING) is True  # a check is running: the browser asks first

        asked: list[str] = []
        page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.accept()))
        page.reload()
        page.wait_for_selector("#method option[value=cot]", state="attached")
        page.wait_for_selector("#restored-note:not([hidden])")
        assert asked == ["beforeunload"]
        assert page.input_value("#claim") == CLAIM and page.input_value("#method") == "cot"
        assert "stopped" in page.inner_text("#restored-note")

        # Run it again to its end; then, with another method picked, reopen it: the form shows cot.
        page.click("#submit")
        page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=30_000)
        page.wait_for_selector("#cancel", state="hidden")
        assert page.evaluate(LEAVING) is False
        assert page.locator("#restored-note").is_hidden()
        page.select_option("#method", "single")
        page.click("#history .history-item >> nth=0")
        assert page.input_value("#method") == "cot"
        page.reload()  # nothing running: no question, and no draft to restore
        page.wait_for_selector("#method option[value=cot]", state="attached")
        assert asked == ["beforeunload"] and page.locator("#restored-note").is_hidden()
        assert errors == []
