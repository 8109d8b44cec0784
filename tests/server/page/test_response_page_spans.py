"""The page marks each claim where the service's span says it is, not where its own search would: a claim
said twice is marked at the place the result names (the stream's result is edited on its way to say the
second time)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.server.conftest import LiveServer
from tests.server.page.test_browser import browser, pytestmark, watched_page  # noqa: F401
from tests.server.page.test_response_page import open_response_form, serve

SENTENCE = "The Louvre is a museum in Paris."
ANSWER = f"{SENTENCE} Rome is in Italy. {SENTENCE}"


def _second_time(route: Any) -> None:
    """The real stream, with the result's span of the Louvre claim moved to its second occurrence."""
    frames = route.fetch().text().split("\n\n")
    for n, frame in enumerate(frames):
        if frame.startswith("event: result"):
            head, _, data = frame.partition("data: ")
            result = json.loads(data)
            for claim in result["claims"]:
                if claim["claim"] == SENTENCE:
                    assert claim["span"] == {"start": 0, "end": len(SENTENCE)}  # the service found the first
                    start = result["response"].rindex(SENTENCE)
                    claim["span"] = {"start": start, "end": start + len(SENTENCE)}
            frames[n] = head + "data: " + json.dumps(result)
    route.fulfill(status=200, headers={"content-type": "text/event-stream"}, body="\n\n".join(frames))


def test_the_answer_is_marked_where_the_service_says(browser: Any,  # noqa: F811
                                                     live_server: Callable[..., LiveServer]) -> None:
    with serve(live_server, latency=0.0) as server:
        page, errors = watched_page(browser)
        open_response_form(page, server)
        page.route("**/v1/check-response/stream", _second_time)
        page.fill("#response-text", ANSWER)
        page.click("#submit")
        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=30_000)
        marks = page.locator("#response-live .answer-text mark.claim-span")
        texts = marks.all_inner_texts()
        assert texts.count(SENTENCE) == 1, texts
        before = page.evaluate("""() => {
            const box = document.querySelector('#response-live .answer-text');
            const mark = [...box.querySelectorAll('mark.claim-span')].find(m => m.textContent.includes('Louvre'));
            let text = '';
            for (const node of box.childNodes) { if (node === mark) break; text += node.textContent; }
            return text;
        }""")
        assert SENTENCE in before  # the first time is left unmarked: the mark is the second
        assert errors == []
