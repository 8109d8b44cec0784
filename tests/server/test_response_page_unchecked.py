"""The sentences of a checked answer that no claim covers are marked on the page with why they were not
checked (issue 40, item 4): a greeting, an opinion the extractor's grounding dropped, a question; the counts
line says how many, and the legend what the dotted marks mean."""

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
from tests.server.test_browser import browser, check_response_with, pytestmark, sign_in, watched_page  # noqa: F401

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
        assert page.inner_text("#response-live .response-counts") == \
            "1 of 1 claim supported · 3 sentences not checked"
        assert "Dotted in grey: 3 sentences no claim covers" in page.inner_text("#response-live .response-answer")
        assert failing(audit(page, "a response with sentences not checked")) == []
        assert errors == []
