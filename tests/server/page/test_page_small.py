"""The page's smaller promises, in Debian's Chromium against one live service with a scripted model (issue 31,
item 11): Tool-MAD's help says "2 or 3 agents" and the form lets a third be added and taken away again, up
to the most the catalogue gives; options that only an evaluation uses are not in the single-claim form, and
those of a response check appear only under "Check a response"; Recent checks say how a verdict was reached
in the method's words, not its code ("judge"); a score that could not be computed is an empty outlined bar;
a replayed trace says why its verdict came out in words taken from the run's own answers. And (issue 40,
item 9) a pasted claim over the limit is kept whole with a count of how far it is over, and an empty results
file is said to be empty."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.server.app import create_app
from tests.server.axe import audit, failing
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build, parse_sse
from tests.server.page.test_browser import (  # noqa: F401
    browser,
    pytestmark,
    reopen_form,
    replay_trace,
    sign_in,
    watched_page,
)

CLAIM = "The Eiffel Tower was completed in 1889."
EVAL_ONLY = ("dpd_task", "dpd_task_search", "dpd_evidence_sentences", "dpd_binary_tie", "response_claims")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path_factory.mktemp("db") / "service.sqlite",
                     build=offline_build, allowed_llms=["scripted:agree"])  # agreeing agents: a consensus
    with LiveServer(app) as live:
        yield live


@pytest.fixture
def page(chromium: Any, server: LiveServer) -> Iterator[Any]:
    """A desktop-sized page, signed in, with the catalogue loaded; its script errors are checked at the end."""
    opened, errors = watched_page(chromium, viewport={"width": 1280, "height": 900})
    sign_in(opened, server.url)
    opened.wait_for_selector("#method option[value=tool-mad]", state="attached")
    yield opened
    opened.close()
    assert errors == []


def agent_picks(page: Any) -> list[str]:
    return page.eval_on_selector_all("#method-options [data-option=agents] select", "picks => picks.map(p => p.value)")


def test_a_third_agent_is_added_runs_and_is_taken_away(page: Any) -> None:
    page.select_option("#method", "tool-mad")
    agents = page.locator("#method-options [data-option=agents]")
    assert "2 or 3" in agents.locator(".option-help").inner_text()
    add, drop = agents.locator("button.list-add"), agents.locator("button.list-drop")
    assert agent_picks(page) == ["none", "none"]
    assert add.is_visible() and not drop.is_visible()  # two is the fewest Tool-MAD takes
    add.click()
    assert len(agent_picks(page)) == 3
    assert not add.is_visible() and drop.is_visible()  # three is the most
    third = agents.locator("select").nth(2)
    assert page.evaluate("() => document.activeElement.id") == third.get_attribute("id")  # focus on the new one
    assert third.get_attribute("aria-label") == "Agents' tools, 3 of up to 3"
    third.select_option("none")
    page.fill("#claim", CLAIM)
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label, #live .verdict-box.failed",
                           timeout=60_000)
    assert page.locator("#live .verdict-box.failed").count() == 0, page.inner_text("#live")
    heads = page.locator("#live .agent-col .agent-head h3").all_inner_texts()
    assert len([h for h in heads if h != "judge"]) == 3, heads  # all three debated, then the judge
    reopen_form(page)  # the verdict folded it; its three agents are as they were
    assert len(agent_picks(page)) == 3
    drop.click()
    assert agent_picks(page) == ["none", "none"]
    assert add.is_visible() and not drop.is_visible()


def test_evaluation_options_stay_out_and_response_options_show_only_for_a_response(page: Any) -> None:
    page.select_option("#method", "dpd")
    page.wait_for_selector("#method-options [data-option=dpd_judges]", state="attached")
    for name in EVAL_ONLY:  # what only the evaluation harness reads is never drawn
        assert page.locator(f"[data-option={name}]").count() == 0, name
    response_only = page.locator("#more-options [data-option=max_claims], #more-options [data-option=drop_subjective]")
    assert response_only.count() == 2
    page.click("summary:has-text('More options')")  # opened: hidden below means hidden, not folded away
    assert page.locator("#more-options [data-option=dpd_tie_label]").is_visible()  # a single claim's tie rule: kept
    assert all(not response_only.nth(i).is_visible() for i in range(2))
    assert page.locator("fieldset[data-group=response]").is_hidden()  # no empty section left behind
    assert page.locator("fieldset[data-group=tasks]").count() == 0
    page.click("button.tab[data-mode=response]")
    assert all(response_only.nth(i).is_visible() for i in range(2))
    page.click("button.tab[data-mode=compare]")
    assert all(not response_only.nth(i).is_visible() for i in range(2))


def test_recent_checks_say_how_in_the_methods_words(page: Any) -> None:
    page.select_option("#method", "tool-mad")
    page.fill("#claim", CLAIM)
    page.click("#submit")  # the scripted agents disagree: the judge decides
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=60_000)
    meta = page.locator("#history .history-item").first.inner_text()
    assert "the judge, after" in meta, meta
    page.reload()  # drawn again from the browser's store, before and after the methods' views load
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    meta = page.locator("#history .history-item").first.inner_text()
    assert "the judge, after" in meta and " · judge" not in meta, meta



def test_a_score_that_could_not_be_computed_is_an_empty_outlined_bar(page: Any) -> None:
    page.select_option("#method", "tool-mad")
    page.check("#opt-scoring")  # agents without tools have no documents: faithfulness cannot be computed
    page.fill("#claim", CLAIM)
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=60_000)
    missing = page.locator("#live .gauge.na").first
    assert missing.locator(".gauge-value").inner_text() == "could not be scored"
    assert missing.locator(".gauge-fill").count() == 0  # was a full grey bar
    look = missing.locator(".gauge-bar").evaluate(
        "bar => [getComputedStyle(bar).backgroundColor, getComputedStyle(bar).boxShadow]")
    assert look[0] == "rgba(0, 0, 0, 0)" and "inset" in look[1], look  # outlined, not filled
    scored = page.locator("#live .gauge:not(.na) .gauge-fill").first  # a computed score still fills its share
    assert scored.evaluate("fill => fill.style.width").endswith("%")


def test_a_replayed_trace_says_why_in_the_runs_own_words(page: Any, server: LiveServer, tmp_path: Path) -> None:
    """The trace is the run's events as the service streams them (the same records `verify --trace` writes)."""
    body = {"claim": CLAIM, "method": "tool-mad", "agents": ["none", "none"], "llm": "scripted:agree"}
    reply = httpx.post(server.url + "/v1/verify/stream", json=body, headers=AUTH, timeout=120)
    events = [{**data, "event": name} for name, data in parse_sse(reply.text)
              if name not in ("result", "check_saved", "error")]
    finished = [e for e in events if e["event"] == "run_finished"]
    assert finished and finished[0]["decided_by"] == "consensus", reply.text[-500:]
    replay_trace(page, events, tmp_path / "trace.jsonl")
    why = page.inner_text("#results-debate .verdict-why")
    # Was "In round 1 all 0 said undefined.": the replay's verdict had rounds without their answers.
    label = finished[0]["label"]
    assert why.startswith("In round 1 both said " + label), why


def test_a_long_claim_is_not_cut_and_an_empty_file_is_named(browser: Any,  # noqa: F811
                                                            live_server: Callable[..., LiveServer],
                                                            tmp_path: Path) -> None:
    with live_server(defaults=PLAIN) as server:
        page, errors = watched_page(browser)
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=tool-mad]", state="attached")
        long_claim = "The Eiffel Tower is in Paris. " * 70  # 2100 characters, the limit is 2000
        page.fill("#claim", long_claim)
        assert page.input_value("#claim") == long_claim
        count = page.inner_text("#claim-count")
        assert count.startswith(f"{len(long_claim.strip())} / 2000 characters: ") and "too many" in count, count
        assert "nothing is cut" in count
        page.click("#submit")
        page.wait_for_selector("#form-error:not([hidden])")
        assert "2000" in page.inner_text("#form-error")
        assert page.input_value("#claim") == long_claim
        assert failing(audit(page, "a claim over the limit")) == []

        empty = tmp_path / "results.jsonl"
        empty.write_text("\n", encoding="utf-8")
        page.click("button.tab[data-view=results]")
        page.set_input_files("#results-file", str(empty))
        page.wait_for_selector("#results-error:not([hidden])")
        assert page.inner_text("#results-error") == "The file is empty: it holds no result to show."
        assert errors == []
