"""A chat reply's check past the claim limit, decided by the embedded model, opened by its link (items 2
and 4), in Debian's Chromium against a live service: the card says how much of the reply was checked, names
the limit and whose it is, carries the embedded model's near-chance note and the model's name, and its "Check
the next part" button checks the statements the limit left out as a new check of a response. The embedded
model's name is the service's setting (``llama-cpp:builtin``); its replies are scripted here, since only the
model's name decides the caution (llm/near_chance.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.server.catalogue import page_views
from tests.guard.support import script
from tests.server.axe import audit
from tests.server.conftest import AUTH, PLAIN, LiveServer, offline_build, page_service
from tests.server.page.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_explains import SHOTS

SENTENCES = [f"The tower was repainted in {1800 + i}." for i in range(15)]
REPLY = " ".join(SENTENCES)
SAID = re.compile(r"The tower was repainted in \d{4}\.")


def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """The extractor takes each sentence it is given as a claim (at most 12, the claim limit); the guard's
    tiers answer as its scripted checker does (supported, quoting the first passage); a response's check
    supports each claim."""
    if call.prompt.startswith("claims_extract"):
        return json.dumps({"claims": list(dict.fromkeys(SAID.findall(messages[0]["content"])))[:12]})
    if call.prompt.startswith("guard_"):
        return str(script()(call, messages, params))
    return "SUPPORTS"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    backend = ScriptedBackend(respond, name="scripted:embedded-stand-in", record=False)
    with page_service(tmp_path_factory.mktemp("guard-next"),
                      defaults={**PLAIN, "llm": "llama-cpp:builtin", "method": "single"},
                      build=lambda settings: offline_build(settings, backend)) as live:
        yield live


def test_a_cut_guard_check_names_its_model_and_checks_the_next_part(browser: Any,  # noqa: F811
                                                                     server: LiveServer) -> None:
    reply = httpx.post(f"{server.url}/v1/guard/check", headers=AUTH, timeout=60,
                       json={"text": REPLY, "factdebate": {"tier": "fast", "method": "single"}})
    assert reply.status_code == 200, reply.text
    check_id, result = reply.headers["X-Factdebate-Check-Id"], reply.json()
    cut = [c for c in result["claims"] if (c.get("reason") or "").startswith("beyond the claim cap")]
    assert [c["claim"] for c in cut] == SENTENCES[12:], json.dumps(result)
    assert result["models"] == ["llama-cpp:builtin"]
    assert [w["code"] for w in result["warnings"]] == ["embedded_model"]

    page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
    sign_in(page, server.url, f"/?check={check_id}")
    page.wait_for_selector("#response-live .guard-card")
    box = page.locator("#response-live .guard-verdict")
    # What the person sees: how much was checked, the embedded model's caution and its name, the limit.
    # (No label for the reply: three of its statements were not checked, and unchecked is never "supported".)
    assert result["label"] is None and box.locator(".verdict-label").inner_text() == "no label"
    # How much was checked, and the rule said once ("no label" is not said twice, as on a response's card).
    assert box.locator(".verdict-main").inner_text() == (
        "THE REPLY\nno label\n· 12 of 15 sentences checked\na claim without one might be the false one, or the claims "
        "could not be read")
    assert box.locator(".near-chance").all_inner_texts() == [page_views().near_chance.response]
    assert "SmolLM2-135M) answers near chance" in box.locator(".near-chance").inner_text()
    assert box.locator(".verdict-model").inner_text() == "Decided with the model llama-cpp:builtin"
    order = box.evaluate("b => [...b.children].map(c => c.className)")
    assert order.index("near-chance") == order.index("verdict-main") + 1, order  # beside the label it qualifies
    # The three statements the limit cut are counted once, as unchecked claims, not again as sentences not checked.
    assert box.locator(".response-counts").inner_text() == "12 of 15 claims supported · 3 unchecked"
    assert box.locator(".response-limit").inner_text() == (
        "The claim limit stopped the check: at most 12 claims a reply (response.max_claims, set by this server's "
        "operator), so 3 statements were not checked. Check the next part")
    assert audit(page, "a cut guard check by the embedded model") == []
    box.screenshot(path=str(SHOTS / "page-guard-next-part.png"))

    # The next part: the statements the limit left out, checked as a new check of a response.
    box.locator("button.next-part").click()
    page.wait_for_selector("#response-live .response-card .response-verdict:not([hidden]) .verdict-label",
                           timeout=60_000)
    page.wait_for_selector("#cancel", state="hidden")
    assert page.locator("#response-live .guard-card").count() == 0
    assert page.input_value("#response-text") == " ".join(SENTENCES[12:])
    assert page.locator("#response-live .claim-item .claim-words").all_inner_texts() == SENTENCES[12:]
    head = page.locator("#response-live .response-verdict")
    assert head.locator(".verdict-label").inner_text() == "SUPPORTS"
    assert head.locator(".response-counts").inner_text().startswith("3 of 3 claims supported")
    assert head.locator(".verdict-model").inner_text() == "Decided with the model llama-cpp:builtin"
    assert page.inner_text("#fold-summary") == "Check a response: " + " ".join(SENTENCES[12:])
    assert errors == []
