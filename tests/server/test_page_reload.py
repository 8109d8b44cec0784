"""A reload in the middle of a check (issue 49, items 4, 7 and 8), in Debian's Chromium against a live service
whose scripted judge takes two seconds: while a check runs the page warns before it is left
(beforeunload); a reload puts the claim, the method and its options back in the form and offers to show what
had arrived (drawn as it was live, marked as stopped) or to run it again; a check reopened from Recent checks
shows, in the form, the method it was made with."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from tests.server.conftest import PLAIN, LiveServer, offline_build
from tests.server.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401

CLAIM = "The Eiffel Tower is in Paris."
LEAVING = """() => { const e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e);
  return e.defaultPrevented; }"""
ANSWERED = "#live article.turn .label-slot .label"  # an agent's answer drawn in its turn


class SlowJudge(ScriptedBackend):
    """The debaters answer at once and disagree; the judge takes two seconds: the time to reload."""

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        if "you judge a fact-checking debate" in messages[0]["content"]:
            await asyncio.sleep(2.0)
        return await super().complete(messages, params)


def test_a_reload_mid_check_warns_keeps_the_form_and_offers_what_had_arrived(
        browser: Any, live_server: Callable[..., LiveServer]) -> None:  # noqa: F811
    slow = SlowJudge(protocol_responder(disagree=True), name="scripted:slow-judge", record=False)
    with live_server(defaults={**PLAIN, "method": "single"}, build=partial(offline_build, backend=slow)) as server:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=tool-mad]", state="attached")
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
        assert page.locator("#restored-note .restored-show").count() == 0
        assert page.evaluate("document.activeElement.className").endswith("restored-again")

        # Run it again to its end, with the options kept (two rounds, not the default three); then, with another
        # method picked, reopen it: the form shows tool-mad.
        page.click("#restored-note .restored-again")
        page.wait_for_selector("#live .verdict-box:not([hidden]):not(.failed) .verdict-label", timeout=30_000)
        page.wait_for_selector("#cancel", state="hidden")
        assert page.evaluate(LEAVING) is False
        assert page.locator("#restored-note").is_hidden()
        tags = page.locator("#live .round-tag").all_inner_texts()
        assert "Judge, after 2 rounds" in tags and "Round 3" not in tags, tags
        page.select_option("#method", "single")
        page.click("#history .history-item >> nth=0")
        assert page.input_value("#method") == "tool-mad"
        page.reload()  # nothing running: no question, and no draft to restore
        page.wait_for_selector("#method option[value=tool-mad]", state="attached")
        assert asked == ["beforeunload"] and page.locator("#restored-note").is_hidden()
        assert errors == []
