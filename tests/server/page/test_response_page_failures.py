"""A response check whose model server goes down after the claims are extracted: every
claim says it failed and why, the check says "Failed." with a Retry, and each claim can be checked again
alone once the server is back (POST /v1/check-response/claim), the response's label worked out anew."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.fake_openai import FakeOpenAI
from tests.server.axe import audit, failing
from tests.server.conftest import AUTH, LiveServer, parse_sse
from tests.server.page.test_browser import browser, check_response_with, pytestmark, sign_in, watched_page  # noqa: F401

ANSWER = "Paris is the capital of France. The Louvre is a museum in Paris."
CLAIMS = ["Paris is the capital of France.", "The Louvre is a museum in Paris."]
SERVICE = {"llm": "openai:x", "method": "single", "cache": False, "scoring": False}


class ModelServer:
    """An OpenAI-shaped server that answers the extraction, then is down (HTTP 503) until ``up()``."""

    def __init__(self) -> None:
        self.down = False
        self.fake = FakeOpenAI(reply=self.reply, fault=lambda _: (503, None) if self.down else None)

    def reply(self, body: dict[str, Any]) -> str:
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema") or {}
        if "claims" in schema.get("properties", {}):
            self.down = True  # what follows the extraction finds the server gone
            return json.dumps({"claims": CLAIMS})
        return "Verdict: SUPPORTS"


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelServer]:
    server = ModelServer()
    with server.fake:
        monkeypatch.setenv("OPENAI_BASE_URL", server.fake.base_url)
        monkeypatch.setenv("FACTDEBATE_LLM__RETRIES", "1")  # a dead server fails at once, not after retries
        yield server


def test_claims_whose_model_server_died_fail_and_are_retried_alone(browser: Any,  # noqa: F811
                                                                   live_server: Callable[..., LiveServer],
                                                                   model: ModelServer) -> None:
    with live_server(defaults=SERVICE) as server:
        page, errors = watched_page(browser, viewport={"width": 1360, "height": 1000})
        check_response_with(page, server.url, ANSWER)

        live = page.locator("#response-live")
        assert live.locator(".response-status").inner_text() == "Failed."
        assert live.locator(".response-verdict .verdict-label").inner_text() == "failed"
        assert live.locator(".verdict-how").inner_text() == "checking every claim failed"
        # Recent checks says it in the same words.
        assert "checking every claim failed" in page.inner_text("#history .history-item >> nth=0")
        usage = live.locator(".response-verdict .usage").inner_text()
        problem = live.locator(".response-problem").inner_text()
        assert problem.startswith("Checking every claim failed: ") and "503" in problem, problem
        assert "127.0.0.1" not in live.inner_text()  # where the model server is is the operator's (item 9)
        assert live.locator(".retry-slot button.retry").count() == 1
        rows = live.locator(".claim-item")
        assert rows.count() == 2 and live.locator(".claim-item.state-error").count() == 2
        assert "checking it failed: " in rows.nth(0).locator(".claim-meta").inner_text()
        assert live.locator("button.claim-retry:visible").count() == 2
        assert failing(audit(page, "a response whose claims failed")) == []

        # The server is back: the first claim alone is checked again; the other still failed.
        model.down = False
        rows.nth(0).get_by_role("button", name="Retry claim 1").click()
        page.wait_for_selector("#response-live .claim-item:nth-child(1).state-done", timeout=30_000)
        assert rows.nth(0).locator(".claim-state").inner_text() == "SUPPORTS"
        assert rows.nth(0).locator("button.claim-retry").is_hidden()
        # The row is drawn done before the retry's stream ends and the status is said again: wait for that.
        page.wait_for_selector("#response-live .response-status:text-is('Done, but 1 claim failed.')")
        assert live.locator(".response-verdict .verdict-label").inner_text() == "no label"
        # The rule, without a second "no label"; the usage counts the claim checked again.
        assert not live.locator(".verdict-how").inner_text().startswith("no label")
        assert live.locator(".response-verdict .usage").inner_text() != usage
        assert live.locator(".response-counts").inner_text() == "1 of 2 claims supported · 1 failed"
        assert "1 of 2 claims could not be checked" in live.locator(".response-problem").inner_text()
        assert live.locator(".retry-slot button.retry").count() == 0

        rows.nth(1).get_by_role("button", name="Retry claim 2").click()
        page.wait_for_selector("#response-live .claim-item:nth-child(2).state-done", timeout=30_000)
        page.wait_for_selector("#response-live .response-status:text-is('Done.')")
        assert live.locator(".response-verdict .verdict-label").inner_text() == "SUPPORTS"
        assert live.locator(".response-counts").inner_text() == "2 of 2 claims supported"
        assert live.locator(".response-problem").is_hidden()
        assert live.locator(".answer-text mark.claim-span.supports").count() == 2
        # The downloaded verdict is the one shown: both claims' new verdicts and the new label.
        with page.expect_download() as download:
            live.locator(".response-verdict button.download").click()
        saved = json.loads(open(download.value.path(), encoding="utf-8").read())
        assert saved["label"] == "SUPPORTS" and [c["label"] for c in saved["claims"]] == ["SUPPORTS"] * 2
        assert errors == []


def test_the_claim_endpoint_checks_its_input(live_server: Callable[..., LiveServer], model: ModelServer) -> None:
    """Every field of the re-check is checked before a model is asked: the index against the response's
    claim limit, one label per claim, the claim as a claim is; the response's label comes from the labels."""
    with live_server(defaults=SERVICE) as server:
        url = server.url + "/v1/check-response/claim"
        base = {"response": ANSWER, "claim": CLAIMS[1], "index": 1}
        for bad, needle in [({"index": -1}, "index"), ({"index": 99}, "index"), ({"labels": ["SUPPORTS"]}, "labels"),
                            ({"labels": ["MAYBE", None]}, "labels"), ({"claim": ""}, "claim"),
                            ({"claim": "x" * 5000}, "claim"), ({"response": ""}, "response")]:
            reply = httpx.post(url, json={**base, **bad}, headers=AUTH, timeout=30)
            assert reply.status_code == 422 and needle in reply.text, (bad, reply.text)
        assert model.fake.requests == []

        reply = httpx.post(url, json={**base, "labels": ["REFUTES", None]}, headers=AUTH, timeout=30)
        assert reply.status_code == 200, reply.text
        answer = reply.json()
        assert answer["claim"]["label"] == "SUPPORTS" and answer["claim"]["index"] == 1
        assert answer["claim"]["span"] == {"start": ANSWER.index(CLAIMS[1]), "end": len(ANSWER)}
        assert (answer["label"], answer["decided_by"], answer["factual"]) == ("REFUTES", "any-false", False)

        model.down = True
        answer = httpx.post(url, json={**base, "labels": ["SUPPORTS", None]}, headers=AUTH, timeout=30).json()
        assert answer["claim"]["error"] and "503" in answer["claim"]["error"]
        assert "127.0.0.1" not in json.dumps(answer) and "the operator's endpoint" in answer["claim"]["error"]
        assert (answer["label"], answer["decided_by"]) == (None, "unparsed")


def test_a_caller_is_not_told_where_the_model_server_is(live_server: Callable[..., LiveServer], model: ModelServer,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """A failed check's message, a retry's reason and a check-response's claim errors
    leave the model server's address out (the server's log keeps it)."""
    monkeypatch.setenv("FACTDEBATE_LLM__RETRIES", "2")
    monkeypatch.setenv("FACTDEBATE_LLM__RETRY_BUDGET", "5")
    model.down = True
    with live_server(defaults=SERVICE) as server:
        plain = httpx.post(server.url + "/v1/verify", json={"claim": CLAIMS[0]}, headers=AUTH, timeout=60)
        assert plain.status_code == 502 and "the operator's endpoint" in plain.text, plain.text
        streamed = httpx.post(server.url + "/v1/verify/stream", json={"claim": CLAIMS[0]}, headers=AUTH, timeout=60)
        events = parse_sse(streamed.text)
        assert [name for name, _ in events].count("llm_retry") >= 1 and events[-1][0] == "error"
        response = httpx.post(server.url + "/v1/check-response", json={"response": ANSWER}, headers=AUTH, timeout=60)
        for text in (plain.text, streamed.text, response.text):
            assert "127.0.0.1" not in text and model.fake.base_url not in text
    assert model.fake.base_url in caplog.text  # the operator's to see
