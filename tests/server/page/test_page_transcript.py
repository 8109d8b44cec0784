"""Each turn's model calls on the page, in Debian's Chromium against a live server with a scripted model: the
page asks the stream for the transcript, and under every agent's answer card and every DPD ballot a folded
"Model calls (N)" lists each call with its template, tokens, seconds and tries, its prompt's messages by role
and the reply, which is the text the turn shows; a response's claim opened after its check shows them too. A
replayed trace that carries the text (``--trace-text``) shows it under MERMAID's steps and decomposition; one
without says it was not recorded. One service for the module."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import LiveServer, page_service
from tests.server.page.test_browser import browser, pytestmark, replay_trace, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_explains import SHOTS, verify

DEFAULTS = {"llm": "scripted:agree", "agents": ["none", "none"], "scoring": False, "dpd_min_rounds": 0,
            "dpd_max_rounds": 0, "dpd_gatherers": False, "cache": False}
CLAIM = "The Eiffel Tower was completed in 1889."
FACTS = re.compile(r"^(\w+) · (\w+) · \d+ tokens? in · \d+ out · \d+\.\d s$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with page_service(tmp_path_factory.mktemp("transcript"), defaults=DEFAULTS) as live:
        yield live


def open_calls(node: Any) -> Any:
    """Unfolds a turn's model calls, and each call's prompt and reply; the list of calls."""
    node.locator(":scope > .model-calls > summary").click()
    calls = node.locator(":scope > .model-calls .model-call")
    for i in range(calls.count()):
        calls.nth(i).locator(".call-prompt > summary").click()
        calls.nth(i).locator(".call-reply > summary").click()
    return calls


def test_each_turn_folds_its_model_calls_with_their_prompt_and_reply(browser: Any,  # noqa: F811
                                                                     server: LiveServer) -> None:
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 1000})
    sign_in(page, server.url)
    verify(page, "tool-mad")
    cards = page.locator("#live .agent-col .turn")
    assert cards.count() >= 2
    for i in range(cards.count()):  # every answer card, still holding its calls once the verdict redrew it
        card = cards.nth(i)
        fold = card.locator(":scope > .model-calls")
        assert fold.get_attribute("open") is None  # folded until opened
        assert fold.locator(":scope > summary").inner_text() == "Model calls (1)"
        (call,) = open_calls(card).all()
        facts = call.locator(".call-facts").inner_text()
        assert FACTS.match(facts) and facts.startswith("debate_answer · debater · "), facts
        prompt = call.locator(".call-message .call-text").all_inner_texts()
        assert any(CLAIM in text for text in prompt), prompt  # the prompt as the model got it
        assert call.locator(".call-message .call-role").first.inner_text().lower() in ("system", "user")
        # The reply is what the card shows as the agent's answer.
        assert call.locator(".call-reply .call-text").inner_text() == card.locator(".response p").inner_text()
    assert page.locator("#live .other-calls").is_hidden()  # every call found its turn
    page.locator("#live .agent-col").first.screenshot(path=str(SHOTS / "page-transcript.png"))

    # DPD: each referee's ballot holds the call that cast it; the reply holds the reasoning shown.
    verify(page, "dpd", timeout=60_000)
    ballots = page.locator("#live .ballot")
    assert ballots.count() == 3
    for i in range(ballots.count()):
        ballot = ballots.nth(i)
        (call,) = open_calls(ballot.locator(".ballot-reason")).all()  # in the referee's row, under its reason
        assert call.locator(".call-facts").inner_text().startswith("dpd_judge · judge-")
        ballot.locator(".ballot-why > summary").click()
        reasoning = ballot.locator(".ballot-why p").inner_text()
        assert reasoning and reasoning in call.locator(".call-reply .call-text").inner_text()
        assert CLAIM in " ".join(call.locator(".call-message .call-text").all_inner_texts())
    statements = page.locator("#live .role-card .model-calls")
    assert statements.count() >= 2  # the rebutters' and summarizers' statements hold theirs too
    assert errors == []


def test_a_checked_claim_of_a_response_opens_with_its_calls(browser: Any, server: LiveServer) -> None:  # noqa: F811
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 1000})
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    page.click("button.tab[data-mode=response]")
    page.select_option("#method", "tool-mad")
    page.fill("#response-text", "The Eiffel Tower is in Paris. The Louvre is a museum in Paris.")
    page.click("#submit")
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=60_000)
    # Opened once its check is over: the stream's events are drawn again, the calls under their turns.
    item = page.locator("#response-live .claim-item").last
    claim = item.locator(".claim-words").inner_text()
    item.locator(".claim-button").click()
    page.wait_for_selector("#response-debate .verdict-box:not([hidden]) .verdict-label")
    card = page.locator("#response-debate .agent-col .turn").first
    (call,) = open_calls(card).all()
    assert claim in " ".join(call.locator(".call-message .call-text").all_inner_texts())
    assert call.locator(".call-reply .call-text").inner_text() == card.locator(".response p").inner_text()
    assert errors == []


def test_a_replayed_trace_shows_the_text_it_carries(browser: Any, server: LiveServer,  # noqa: F811
                                                    tmp_path: Path) -> None:
    run = {"run": "r1"}
    step = {**run, "agent": "executor", "round": 1}

    def call(agent: str, round: int, prompt: str, reply: str | None, asked: str = "",
             **extra: Any) -> dict[str, Any]:
        text = {} if reply is None else {"messages": [{"role": "system", "content": "You check claims."},
                                                      {"role": "user", "content": asked}], "reply": reply}
        return {"event": "llm_call", **run, "agent": agent, "round": round, "role": "debater", "prompt": prompt,
                "model": "scripted", "prompt_tokens": 40, "completion_tokens": 12, "seconds": 0.4, "attempts": 2,
                **text, **extra}

    cut = "x" * 30 + "\n[… cut after 30 of 900 characters]"
    events = [
        {"event": "run_started", **run, "claim": CLAIM, "method": "mermaid"},
        call("decomposer", 0, "mermaid_decompose", '{"triplets": []}', "Split the claim: " + CLAIM),
        {"event": "decomposition", **run, "agent": "decomposer", "round": 0, "entities": ["Eiffel Tower"],
         "triplets": [{"subject": "Eiffel Tower", "relation": "completed in", "object": "1889", "attributes": ""}]},
        {"event": "turn_started", **step, "role": "executor"},
        call("executor", 1, "mermaid_step", '{"thought": "Look it up.", "tool": "search"}', cut),
        {"event": "step", **step, "index": 1, "thought": "Look it up.", "tool": "search",
         "arguments": {"query": "Eiffel Tower"}, "observation": "The tower was completed in 1889."},
        call("executor", 2, "mermaid_step", None),  # a trace written without --trace-text
        {"event": "step", **step, "index": 2, "thought": "It says 1889.", "tool": "answer",
         "arguments": {"answer": "SUPPORTS"}},
        # a call the layout draws no turn for, from a server that streamed it without usage
        call("extractor", 0, "claims", "[]", "List the claims.", prompt_tokens=0, usage_known=False),
        {"event": "answer", **step, "role": "executor", "label": "SUPPORTS", "response": "It says 1889."},
        {"event": "run_finished", **run, "label": "SUPPORTS", "decided_by": "executor"},
    ]
    page, errors = watched_page(browser)
    sign_in(page, server.url)
    replay_trace(page, events, tmp_path / "trace.jsonl")
    view = page.locator("#results-debate")

    decomposition = view.locator("[data-part=decomposition]")
    (asked,) = open_calls(decomposition).all()
    facts = asked.locator(".call-facts").inner_text()
    assert facts == "mermaid_decompose · debater · 40 tokens in · 12 out · 0.4 s · 2 tries", facts
    roles = asked.locator(".call-message .call-role").all_inner_texts()
    assert [r.lower() for r in roles] == ["system", "user"]
    texts = asked.locator(".call-message .call-text").all_inner_texts()
    assert texts == ["You check claims.", "Split the claim: " + CLAIM], texts
    assert asked.locator(".call-reply .call-text").inner_text() == '{"triplets": []}'

    first, second = view.locator(".timeline-step .step-body").all()
    (chose,) = open_calls(first).all()
    assert chose.locator(".call-message .call-text").last.inner_text() == cut  # the marker says it was cut
    second.locator(":scope > .model-calls > summary").click()
    assert "not recorded" in second.locator(".model-call").inner_text()

    other = view.locator(".other-calls")
    assert other.is_visible()
    assert other.locator(".model-calls > summary").inner_text() == "extractor: Model calls (1)"
    other.locator(".model-calls > summary").click()
    unreported = other.locator(".call-facts").inner_text()  # never "0 tokens in": no count was reported
    assert unreported == "claims · debater · tokens not reported · 0.4 s · 2 tries", unreported
    assert errors == []
