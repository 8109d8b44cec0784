"""The sentences of a checked answer that no claim covers are marked on the page with why they were not
checked: a greeting, an opinion the extractor's grounding dropped, a question; the counts
line says how many, and the legend what the dotted marks mean. A 160-sentence answer with 12 claims says
12 of 160 sentences were checked and why not the others, one whose claims the limit cut
short counted as partly checked, and its long text (a URL in it and in a claim) can be scrolled from the
keyboard at phone width, as a 10,000-character answer at 1280 px (item 5: axe's scrollable-region-focusable;
both audited, and no wider than the screen)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from tests.server.axe import audit, failing
from tests.server.conftest import PLAIN, LiveServer, offline_build
from tests.server.page.test_browser import browser, check_response_with, pytestmark, sign_in, watched_page  # noqa: F401

ANSWER = "Hello! Paris is the capital of France. I think Paris is lovely in spring. Is it worth a trip?"


def backend() -> ScriptedBackend:
    """The extractor writes the fact and an opinion (which grounding drops); every claim is supported."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("claims_extract"):
            return json.dumps({"claims": ["Paris is the capital of France.", "I love Paris in spring."]})
        return "SUPPORTS"

    return ScriptedBackend(respond, name="scripted:unchecked", record=False)


def test_sentences_not_checked_are_marked_with_why(browser: Any,  # noqa: F811
                                                   live_server: Callable[..., LiveServer]) -> None:
    with live_server(defaults={**PLAIN, "method": "single"}, build=partial(offline_build, backend=backend())) as server:
        page, errors = watched_page(browser, viewport={"width": 1360, "height": 1000})
        check_response_with(page, server.url, ANSWER)

        answer = page.locator("#response-live .answer-text")
        assert answer.locator("mark.claim-span.supports").inner_text() == "Paris is the capital of France."
        assert answer.locator(".skipped-span").all_inner_texts() == [
            "Hello!", "I think Paris is lovely in spring.", "Is it worth a trip?"]
        assert answer.locator(".skip-note").all_inner_texts() == [
            "not checked: greeting", "not checked: opinion", "not checked: question"]
        assert page.inner_text("#response-live .response-counts") == ("1 of 1 claim supported · 1 claim from 1 "
                                                                      "of 4 sentences; 3 not checked: 1 greeting, "
                                                                      "1 opinion, 1 question")
        assert "Dotted in grey: 3 sentences no claim covers" in page.inner_text("#response-live .response-answer")
        assert failing(audit(page, "a response with sentences not checked")) == []
        assert errors == []


# Sentence 1 holds a long URL (its claim too: issue 49, item 6); sentence 12 states two facts, which the
# extractor splits, and the claim limit keeps only the first half.
URL = "The tower's page https://example.org/a/very/long/path/without/any/break/in/it/at/all/index.html dates from 1800."
LONG = " ".join(URL if i == 0 else "The tower was repainted in 1811 and sold in 1711." if i == 11 else
                f"The tower was repainted in {1800 + i}." for i in range(160))
# An answer of 10,000 characters and more (the page's widest case at a desktop's width).
HUGE = " ".join(f"The tower was repainted in {1800 + i}." for i in range(304))


def long_backend() -> ScriptedBackend:
    """The extractor writes a claim for each of the first 12 sentences, the 12th split in two, so the claim
    limit cuts its second half (the 13th claim); every claim is supported."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("claims_extract"):
            claims = [URL] + [f"The tower was repainted in {1800 + i}." for i in range(1, 12)] + [
                "The tower was sold in 1711."]
            return json.dumps({"claims": claims})
        return "SUPPORTS"

    return ScriptedBackend(respond, name="scripted:long", record=False)


def test_a_long_answer_says_how_many_sentences_were_checked(browser: Any,  # noqa: F811
                                                            live_server: Callable[..., LiveServer]) -> None:
    build = partial(offline_build, backend=long_backend())
    with live_server(defaults={**PLAIN, "method": "single"}, build=build) as server:
        page, errors = watched_page(browser, viewport={"width": 390, "height": 800})
        check_response_with(page, server.url, LONG)
        assert page.inner_text("#response-live .response-counts") == (
            "12 of 12 claims supported · 12 claims from 12 of 160 sentences; 148 not checked: claim limit; "
            "1 partly checked: claim limit")
        answer = page.locator("#response-live .answer-text")
        notes = answer.locator(".skip-note").all_inner_texts()
        assert len(notes) == 149 and notes[0] == "partly checked: claim limit"
        # The headline says how much its label speaks for, names the limit and whose it is, and
        # offers the rest (from the sentence the limit cut in half) as a new check.
        head = page.inner_text("#response-live .response-verdict .verdict-main")
        assert "SUPPORTS" in head and "· 11 of 160 sentences checked" in head, head
        # Its rule speaks for the claims checked, not for the 149 sentences that were not.
        assert page.inner_text("#response-live .verdict-how") == (
            "every claim checked is supported; the rest was not checked")
        assert "every claim checked is supported" in page.inner_text("#history .history-item >> nth=0")
        assert page.inner_text("#response-live .response-limit") == (
            "The claim limit stopped the check: at most 12 claims a check (response.max_claims, set by this "
            "server's operator), so 149 sentences were not checked. Check the next part")
        # The half that was checked is marked, the rest dotted as not checked.
        assert answer.locator("mark.claim-span").nth(11).inner_text() == "The tower was repainted in 1811"
        assert answer.locator(".skipped-span").first.inner_text() == " and sold in 1711."
        assert page.locator("#response-live .claim-list").inner_text().count("https://example.org/a/very/long") == 1
        assert failing(audit(page, "a 160-sentence answer holding a URL at phone width")) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 390

        page.click("#response-live .next-part")
        page.wait_for_selector("#submit:not([disabled])", state="attached", timeout=30_000)
        assert page.input_value("#response-text").startswith("The tower was repainted in 1811 and sold in 1711. "
                                                              "The tower was repainted in 1812.")

        # 10,000 characters at a desktop's width: the answer's box scrolls, a named Tab stop, and passes axe.
        assert len(HUGE) >= 10_000
        page.set_viewport_size({"width": 1280, "height": 900})
        check_response_with(page, server.url, HUGE)
        huge = page.locator("#response-live .answer-text")
        assert len(huge.inner_text()) >= 10_000 and huge.get_attribute("tabindex") == "0"
        assert huge.evaluate("box => box.scrollHeight > box.clientHeight")  # it is cut: scrolled to be read
        assert failing(audit(page, "a 10,000-character answer at 1280 px")) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        assert errors == []
