"""A claim of a kept response check checked again alone updates the kept check: its link
(GET /v1/checks/{id}, /?check=<id>) and its Recent-checks entry show the claim's new verdict and the
response's label worked out anew; the claim is checked with the options the check recorded, not the page
form's; only the key that owns the check may name it, and what a request says of the check must be the
check's."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx

from tests.server.conftest import AUTH, KEY, LiveServer, parse_sse
from tests.server.page.test_browser import browser, check_response_with, sign_in, watched_page  # noqa: F401
from tests.server.page.test_browser import pytestmark as needs_chromium
from tests.server.page.test_response_page_failures import ANSWER, CLAIMS, SERVICE, ModelServer, model  # noqa: F401

OTHER_KEY = "other-key-0123456789"
OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}
LINK = re.compile(r"/\?check=([0-9a-f]{32})$")


def _failed_check(server: LiveServer, **options: Any) -> tuple[str, dict[str, Any]]:
    """A response check whose model server dies after the extraction: every claim failed. Its id and verdict."""
    reply = httpx.post(server.url + "/v1/check-response", json={"response": ANSWER, **options}, headers=AUTH,
                       timeout=60)
    assert reply.status_code == 200, reply.text
    verdict = reply.json()
    assert [c["error"] is not None for c in verdict["claims"]] == [True, True] and verdict["label"] is None
    return reply.headers["X-Check-Id"], verdict


def _kept(server: LiveServer, check_id: str) -> dict[str, Any]:
    reply = httpx.get(f"{server.url}/v1/checks/{check_id}", headers=AUTH, timeout=30)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_a_claim_checked_again_updates_its_kept_check(live_server: Callable[..., LiveServer],
                                                      model: ModelServer) -> None:  # noqa: F811
    with live_server(defaults=SERVICE, api_keys=[KEY, OTHER_KEY], rate_limit_per_minute=0) as server:
        check_id, _ = _failed_check(server, method="cot")  # asked with options of its own
        url = server.url + "/v1/check-response/claim"
        first = {"response": ANSWER, "claim": CLAIMS[0], "index": 0, "check_id": check_id}

        # Still down: the claim fails again and the kept check is left as it was.
        answer = httpx.post(url, json=first, headers=AUTH, timeout=60).json()
        assert answer["claim"]["error"] and answer["check_id"] is None
        assert _kept(server, check_id)["verdict"]["claims"][0]["error"]

        model.down = False
        answer = httpx.post(url, json=first, headers=AUTH, timeout=60).json()
        assert answer["check_id"] == check_id and answer["claim"]["label"] == "SUPPORTS"
        assert (answer["label"], answer["decided_by"]) == (None, "unparsed")  # the other claim still failed
        kept = _kept(server, check_id)
        claims = kept["verdict"]["claims"]
        assert [c["label"] for c in claims] == ["SUPPORTS", None] and claims[1]["error"]
        assert claims[0]["verdict"]["method"] == "cot"  # the check's own options, though none were sent
        assert (kept["verdict"]["label"], kept["verdict"]["decided_by"]) == (None, "unparsed")
        assert any(call.get("claim") == 0 and not call.get("error") for call in kept["calls"])

        # The other claim, streamed: its id comes before the result, and the response's label is worked out.
        streamed = httpx.post(url + "/stream", json={**first, "index": 1, "claim": CLAIMS[1]}, headers=AUTH,
                              timeout=60)
        events = parse_sse(streamed.text)
        names = [name for name, _ in events]
        assert names[-2:] == ["check_saved", "result"] and events[-2][1]["id"] == check_id, names
        assert (events[-1][1]["label"], events[-1][1]["decided_by"]) == ("SUPPORTS", "all-true")
        verdict = _kept(server, check_id)["verdict"]
        assert [c["label"] for c in verdict["claims"]] == ["SUPPORTS", "SUPPORTS"]
        assert (verdict["label"], verdict["decided_by"], verdict["factual"]) == ("SUPPORTS", "all-true", True)
        assert verdict["usage"]["llm_calls"] >= 3  # the extraction and both claims' new checks


def test_only_the_owner_names_a_kept_check_and_what_it_says_must_be_the_checks(
        live_server: Callable[..., LiveServer], model: ModelServer) -> None:  # noqa: F811
    with live_server(defaults=SERVICE, api_keys=[KEY, OTHER_KEY], rate_limit_per_minute=0) as server:
        check_id, _ = _failed_check(server)
        model.down = False
        asked = len(model.fake.requests)
        url = server.url + "/v1/check-response/claim"
        base = {"response": ANSWER, "claim": CLAIMS[1], "index": 1, "check_id": check_id}
        theirs = httpx.post(url, json=base, headers=OTHER, timeout=30)
        assert theirs.status_code == 404 and theirs.json()["detail"] == f"no check '{check_id}'"
        unknown = httpx.post(url, json={**base, "check_id": "0" * 32}, headers=AUTH, timeout=30)
        assert unknown.status_code == 404
        cases: list[tuple[dict[str, Any], str]] = [
            ({"check_id": "not-an-id"}, "check_id"), ({"response": ANSWER + " More."}, "response"),
            ({"question": "Where?"}, "question"), ({"index": 2}, "index"), ({"claim": CLAIMS[0]}, "claim"),
            ({"labels": ["SUPPORTS", None]}, "labels"), ({"method": "cot"}, "method")]
        for bad, needle in cases:
            reply = httpx.post(url, json={**base, **bad}, headers=AUTH, timeout=30)
            assert reply.status_code == 422 and reply.json()["detail"].startswith(needle), (bad, reply.text)
        assert len(model.fake.requests) == asked  # refused before any model was asked
        # What agrees with the check is accepted: its own labels and options.
        reply = httpx.post(url, json={**base, "labels": [None, None], "method": "single"}, headers=AUTH, timeout=60)
        assert reply.status_code == 200 and reply.json()["check_id"] == check_id, reply.text
        # A claim's check (a verify) is no response's.
        verify = httpx.post(server.url + "/v1/verify", json={"claim": CLAIMS[0]}, headers=AUTH, timeout=60)
        reply = httpx.post(url, json={**base, "check_id": verify.headers["X-Check-Id"]}, headers=AUTH, timeout=30)
        assert reply.status_code == 422 and "not a response's" in reply.text
        assert _kept(server, check_id)["verdict"]["claims"][1]["label"] == "SUPPORTS"


@needs_chromium
def test_a_retried_claim_shows_on_the_checks_link_and_in_recent_checks(
        browser: Any, live_server: Callable[..., LiveServer], model: ModelServer) -> None:  # noqa: F811
    with live_server(defaults=SERVICE) as server:
        page, errors = watched_page(browser, viewport={"width": 1360, "height": 1000})
        check_response_with(page, server.url, ANSWER)
        live = page.locator("#response-live")
        assert live.locator(".response-status").inner_text() == "Failed."
        href = page.get_attribute("#response-live .response-verdict .check-link a", "href") or ""
        assert LINK.search(href), href

        model.down = False
        live.locator(".claim-item").nth(0).get_by_role("button", name="Retry claim 1").click()
        page.wait_for_selector("#response-live .claim-item:nth-child(1).state-done", timeout=30_000)

        # Its link, in a fresh browser, shows the claim's new verdict; the form there asks for another method,
        # yet the other claim is checked again as the check was asked.
        fresh, fresh_errors = watched_page(browser, viewport={"width": 1360, "height": 1000})
        sign_in(fresh, server.url, href[href.index("/?"):])
        fresh.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label")
        shown = fresh.locator("#response-live")
        assert shown.locator(".claim-item:nth-child(1) .claim-state").inner_text() == "SUPPORTS"
        assert shown.locator(".claim-item.state-error").count() == 1
        assert shown.locator(".response-verdict .verdict-label").inner_text() == "no label"
        fresh.click("#unfold")  # the form folds under a check opened by its link: one click opens it
        fresh.select_option("#method", "cot")
        shown.locator(".claim-item").nth(1).get_by_role("button", name="Retry claim 2").click()
        fresh.wait_for_selector("#response-live .claim-item:nth-child(2).state-done", timeout=30_000)
        # The headline is drawn after the claim's row: waited for, not read at once (it still said "no label"
        # in a whole-suite run at load 8-10).
        fresh.wait_for_selector('#response-live .response-verdict .verdict-label:text-is("SUPPORTS")',
                                timeout=30_000)

        again, again_errors = watched_page(browser, viewport={"width": 1360, "height": 1000})
        sign_in(again, server.url, href[href.index("/?"):])
        again.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label")
        reopened = again.locator("#response-live")
        assert reopened.locator(".response-verdict .verdict-label").inner_text() == "SUPPORTS"
        assert reopened.locator(".response-counts").inner_text() == "2 of 2 claims supported"
        assert reopened.locator(".claim-item.state-error").count() == 0
        assert reopened.locator(".response-status").inner_text() == "Done."
        verdict = httpx.get(server.url + "/v1/checks/" + LINK.search(href).group(1),  # type: ignore[union-attr]
                            headers=AUTH, timeout=30).json()["verdict"]
        assert [c["verdict"]["method"] for c in verdict["claims"]] == ["single", "single"]

        # Recent checks, where the check was made, holds it as its claim's retry left it.
        page.reload()
        # The reloaded address is the check's link, which the page opens by itself (from the service when it has
        # no entry of it): that opening ends before the click, or its answer would be drawn over the entry's.
        page.wait_for_load_state("networkidle")
        page.wait_for_selector("#history .history-item[data-kind=response]")
        page.click("#history .history-item[data-kind=response]")
        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label")
        assert live.locator(".claim-item:nth-child(1) .claim-state").inner_text() == "SUPPORTS"
        assert live.locator(".response-counts").inner_text() == "1 of 2 claims supported · 1 failed"
        assert errors == [] and fresh_errors == [] and again_errors == []
