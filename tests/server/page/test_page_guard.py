"""A chat reply's check (kind ``guard``) reopened from its link, in Debian's Chromium against a live service
with scripted checker models: a reply kept by ``POST /v1/guard/check`` under the ``flag`` policy is drawn with
each claim marked at the service's span and its status in words (supported, refuted, and one left unchecked by
the deadline, which is never drawn as supported), the sentences the gate skipped marked "not checked:
<reason>", each claim's tier, decider, reason, cited evidence and correction, the policy's action with the text
the client got, and the usage; a check whose claims could not be extracted says it was degraded, and why."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from tests.guard.support import SlowBackend, script
from tests.server.axe import audit, failing
from tests.server.conftest import AUTH, PLAIN, LiveServer, offline_build, page_service
from tests.server.page.test_browser import pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_explains import SHOTS

PARIS = "Paris is the capital of France."
ROME = "The Eiffel Tower is in Rome."
LOUVRE = "The Louvre opened in 1793."
REPLY = f"Hi! Great question. {PARIS} {ROME} {LOUVRE} I think Paris is lovely in spring."
UNREADABLE = "Berlin is the capital of Germany. The Spree flows through it."
FAST = {"tier": "fast", "method": "single"}
TOWER = {"title": "Eiffel Tower", "text": "The Eiffel Tower is a tower in Paris.", "url": "https://example.org/eiffel"}


def scripted() -> SlowBackend:
    """The guard's scripted checker (Rome refuted with a correction, the rest supported), whose extractor answers
    no readable list for UNREADABLE, and whose calls about the Louvre outlast any deadline."""
    respond = script(claims=[PARIS, ROME, LOUVRE])

    def answer(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith(("claims_extract", "guard_window")) and "Spree" in messages[0]["content"]:
            return "no list here"
        reply = str(respond(call, messages, params))
        if call.prompt.startswith("guard_window"):  # no verdict of the Louvre: it is asked alone, and outlasts
            value = json.loads(reply)
            for item in value["claims"]:
                if item["claim"] == LOUVRE:
                    item.pop("label", None)
            reply = json.dumps(value)
        return reply

    return SlowBackend(answer, {f"Claim: {LOUVRE}": 60.0, f"Statement: {LOUVRE}": 60.0})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    backend = scripted()
    with page_service(tmp_path_factory.mktemp("guard-page"), defaults=PLAIN,
                      build=lambda settings: offline_build(settings, backend)) as live:
        yield live


def kept(server: LiveServer, text: str, **options: Any) -> tuple[str, dict[str, Any]]:
    reply = httpx.post(f"{server.url}/v1/guard/check", headers=AUTH, timeout=60,
                       json={"text": text, "factdebate": {**FAST, **options}})
    assert reply.status_code == 200, reply.text
    return reply.headers["X-Factdebate-Check-Id"], reply.json()


def test_a_kept_guard_check_is_drawn_from_its_link(chromium: Any, server: LiveServer) -> None:
    # A passage that says where the tower is, so the correction it grounds is shown (guard_engine/correct.py).
    check_id, result = kept(server, REPLY, policy="flag", deadline_s=1.5, evidence=[TOWER])
    status = {c["claim"]: c["status"] for c in result["claims"]}
    assert status == {PARIS: "checked", ROME: "checked", LOUVRE: "unchecked"}, json.dumps(result)
    assert result["action_taken"] == "flagged" and result["text"] != REPLY and result["skipped"]

    page, errors = watched_page(chromium, viewport={"width": 1280, "height": 1100})
    sign_in(page, server.url, f"/?check={check_id}")
    page.wait_for_selector("#response-live .guard-card")
    card = page.locator("#response-live .guard-card")
    assert card.get_attribute("aria-labelledby") and card.locator("h2").inner_text() == "A chat reply's check"
    assert [h.inner_text() for h in card.locator("h3").all()] == ["Claims", "The text checked",
                                                                  "The text the client got"]
    assert page.input_value("#response-text") == REPLY  # the "Check a response" tab, with the reply in its form
    # With the method its claims went up to, not the form's Tool-MAD.
    assert result["method"] == "single" and page.input_value("#method") == "single"
    # The form folded above it says whose check this is, not the Tool-MAD form's.
    assert page.inner_text("#fold-summary").startswith("A chat reply's check: ")
    assert page.evaluate("() => document.activeElement.textContent") == "A chat reply's check"

    # The reply's verdict, the policy's action, the settings and the usage.
    box = card.locator(".guard-verdict")
    assert box.locator(".verdict-label").inner_text() == "REFUTES"
    assert "1 of 3 claims supported · 1 refuted · 1 unchecked" in box.locator(".response-counts").inner_text()
    assert box.locator(".guard-action").inner_text().startswith("Policy flag: flagged")
    assert box.locator(".guard-degraded").count() == 0
    assert "Tier fast" in box.inner_text() and f"model call{'s' if result['usage']['model_calls'] != 1 else ''}" \
        in box.locator(".usage").inner_text()
    assert box.locator(".check-link a").get_attribute("href", timeout=1000).endswith(f"/?check={check_id}")
    # The headline says how much of the reply its label speaks for, and the model that decided it.
    assert 0 < result["sentences_checked"] < result["sentences"], result
    assert f"· {result['sentences_checked']} of {result['sentences']} sentences checked" in \
        box.locator(".verdict-main").inner_text()
    assert box.locator(".verdict-model").inner_text() == "Decided with the model " + ", ".join(result["models"])

    # The checked text: each claim marked at the service's span, its status in words beside the colour.
    marks = {m.inner_text(): m for m in card.locator(".guard-text mark.claim-span").all()}
    assert set(marks) == {PARIS, ROME, LOUVRE}
    spans = {c["claim"]: REPLY[c["span"]["start"]:c["span"]["end"]] for c in result["claims"]}
    assert spans == {PARIS: PARIS, ROME: ROME, LOUVRE: LOUVRE}
    assert marks[PARIS].get_attribute("class") == "claim-span guard-span supports"
    assert marks[ROME].get_attribute("class") == "claim-span guard-span refutes"
    assert marks[LOUVRE].get_attribute("class") == "claim-span guard-span unchecked"  # never drawn as supported
    assert marks[LOUVRE].get_attribute("title") == "claim 3: unchecked: no verdict"
    refs = [a.get_attribute("aria-label") for a in card.locator(".guard-text .claim-ref-link").all()]
    assert refs == ["claim 1, supported", "claim 2, refuted", "claim 3, unchecked: no verdict"]
    hidden = card.locator(".guard-text .visually-hidden").all_text_contents()
    assert hidden == [" (claim 1: supported)", " (claim 2: refuted)", " (claim 3: unchecked: no verdict)"]
    # The sentences the gate left out, each with its reason.
    notes = card.locator(".guard-text .skip-note").all_inner_texts()
    assert notes and all(n.startswith("not checked: ") for n in notes)
    assert notes == ["not checked: " + s["reason"] for s in result["skipped"]]
    assert card.locator(".guard-text .skipped-span").first.inner_text() == result["skipped"][0]["text"]

    # Each claim: status, tier, decider, reason, evidence (linked title, quote) and the correction.
    rows = card.locator(".guard-claims > li")
    assert rows.count() == 3
    paris, rome, louvre = rows.nth(0), rows.nth(1), rows.nth(2)
    assert paris.locator(".label").inner_text() == "SUPPORTS"
    assert "supported · tier fast · decided by" in paris.locator(".claim-meta").inner_text()
    assert rome.locator(".label").inner_text() == "REFUTES"
    assert rome.locator(".guard-correction").inner_text() == "Correction: The Eiffel Tower is in Paris."
    rome_claim = next(c for c in result["claims"] if c["claim"] == ROME)
    assert f"refuted · tier {rome_claim['tier']} · decided by {rome_claim['decided_by']}" in \
        rome.locator(".claim-meta").inner_text()
    assert rome.locator(".guard-correction-source").inner_text() == \
        f"Grounded in: “{rome_claim['correction']['quote_source']}”"
    cited = next(c for c in result["claims"] if c["claim"] == PARIS)["evidence"][0]
    # A checked claim says why in one line, from the passage its verdict rests on.
    assert cited["cited"], cited
    assert paris.locator(".guard-reason").inner_text() == \
        f"Why: {cited['title']} says “{cited['quote']}”, which supports it."
    link = paris.locator(".passage-source a").first
    assert link.inner_text() == cited["title"] and link.get_attribute("href") == cited["url"]
    assert paris.locator(".passage-text").first.inner_text() == cited["quote"]
    assert louvre.locator(".label").inner_text() == "unchecked"
    assert louvre.locator(".claim-meta").inner_text().startswith("unchecked: no verdict")
    louvre_claim = next(c for c in result["claims"] if c["claim"] == LOUVRE)
    assert louvre.locator(".guard-reason").inner_text() == "Why: " + louvre_claim["reason"]
    assert "supports" not in (louvre.get_attribute("class") or "")

    # The text the client got (the flag policy's footnotes), and a mark's number leads to its claim.
    assert card.locator(".guard-sent-text").inner_text() == result["text"]
    # At a phone's width the reply boxes cut their text: each is a named Tab stop a keyboard user can scroll
    # (axe's scrollable-region-focusable), and nothing widens the page.
    page.set_viewport_size({"width": 390, "height": 844})
    assert card.locator(".guard-sent-text").get_attribute("tabindex") == "0"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert failing(audit(page, "a guard check at phone width")) == []
    page.set_viewport_size({"width": 1280, "height": 1100})
    page.locator(".guard-text .claim-ref-link").nth(1).focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.hash === '#response-live-claim-2'")
    card.screenshot(path=str(SHOTS / "page-guard-check.png"))

    # A check whose claims could not be extracted: degraded, its reason said, nothing called true.
    degraded_id, degraded = kept(server, UNREADABLE)
    assert degraded["degraded"] and degraded["label"] is None
    page.goto(f"{server.url}/?check={degraded_id}")
    page.wait_for_selector("#response-live .guard-card .guard-degraded")
    assert page.inner_text("#response-live .guard-degraded") == "Degraded: " + degraded["degraded_reason"]
    assert page.inner_text("#response-live .guard-verdict .verdict-label") == "not checked"
    # Every sentence of a degraded check is counted as not checked ("0 sentences not checked" of 2).
    assert degraded["sentences"] == 2 and degraded["sentences_checked"] == 0
    assert "· 0 of 2 sentences checked" in page.inner_text("#response-live .guard-verdict .verdict-main")
    assert page.inner_text("#response-live .guard-verdict .response-counts").endswith("· 2 sentences not checked")
    assert page.locator("#response-live mark.claim-span").count() == 0
    assert errors == []
