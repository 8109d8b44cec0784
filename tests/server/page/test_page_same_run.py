"""The page's check of a claim is the command line's: in Debian's Chromium against a live server that runs on the
library's own defaults with the offline model (named as the debater, here answered by a scripted model), the request
the page sends for each method, left as the form draws it, becomes the settings ``factdebate verify --method M``
builds; and Tool-MAD in one round makes the same model calls with the same prompts (the offline model's label
guide in them) on the page as in the command line's build."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import pytest

from factdebate.core.types import Verdict
from factdebate.hub.offline_model import QWEN_CODER_1_5B
from factdebate.llm import make_backend
from factdebate.methods.base import Method
from factdebate.run.claim import run_claim
from factdebate.server.app import create_app
from factdebate.server.options import VerifyRequest
from factdebate.settings.load import settings_from
from factdebate.settings.model import Settings
from tests.server.conftest import KEY, LiveServer, offline_build, parse_sse
from tests.server.page.test_browser import browser, pytestmark, reopen_form, signed_in_page  # noqa: F401

# What the operator set (`factdebate serve --llm llama-cpp:qwen2.5-coder-1.5b --no-cache`: the offline model, which
# `factdebate setup` makes the default); the rest is the library's defaults.
OPERATOR = {"llm": QWEN_CODER_1_5B.spec, "cache": False}
CLAIM = "The Eiffel Tower is located in Rome."
GUIDE = "First say what the documents state about the claim's subject"
STREAM = "**/v1/verify/stream"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Any]]:
    scripted = make_backend("scripted:agree")
    app = create_app(api_keys=[KEY], rate_limit_per_minute=0, defaults=OPERATOR,
                     db_path=tmp_path_factory.mktemp("same-run") / "service.sqlite",
                     build=partial(offline_build, backend=scripted))
    with LiveServer(app) as live:
        yield live, app


def _sent(page: Any, method: str, rounds: int | None = None, *, run: bool = False) -> dict[str, Any]:
    """The body the page sends to check the claim with ``method`` as the form draws it (``rounds`` typed in);
    unless ``run``, the request is stopped before it reaches the service."""
    reopen_form(page)
    page.select_option("#method", method)
    if rounds is not None:
        page.fill("#opt-rounds", str(rounds))
    page.fill("#claim", CLAIM)
    if not run:
        page.route(STREAM, lambda route: route.abort())
    with page.expect_request(STREAM) as sent:
        page.click("#submit")
    if not run:
        page.wait_for_selector("#cancel", state="hidden")
        page.unroute(STREAM)
    body: dict[str, Any] = sent.value.post_data_json
    return body


def _differences(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two settings dumps differ, each place with both values."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for key in sorted(set(a) | set(b)) for d in _differences(a.get(key), b.get(key), f"{where}.{key}")]
    return [] if a == b else [f"{where}: page {a!r}, command line {b!r}"]


def _page_settings(app: Any, body: dict[str, Any]) -> Settings:
    """The settings the service runs the page's request with (the caller's own scoping aside: MERMAID keeps each
    key's memory apart, which no command line has)."""
    resolved: Settings = app.state.service.resolver.resolve(VerifyRequest.model_validate(body))
    return resolved


def test_every_method_left_as_drawn_runs_with_the_command_lines_settings(
        browser: Any, server: tuple[LiveServer, Any]) -> None:  # noqa: F811
    live, app = server
    page, errors = signed_in_page(browser, live.url)
    for method in Method.registered():
        if page.locator(f"#method option[value='{method}']").count() == 0:
            continue  # not offered on the page
        body = _sent(page, method)
        assert "label_guide" not in body and "offline_scoring" not in body  # unset: the library decides
        cli = settings_from({**OPERATOR, "method": method}, None)  # factdebate verify --llm ... --no-cache --method M
        page_settings = _page_settings(app, body)
        assert page_settings == cli, (method, _differences(page_settings.model_dump(mode="json"),
                                                           cli.model_dump(mode="json")))
    assert errors == []


def _calls(events: list[dict[str, Any]]) -> list[tuple[str, int, str, str]]:
    """Each model call as (agent, round, prompt, its messages), in a fixed order: the agents of a round run at once."""
    return sorted((e.get("agent", ""), e.get("round", 0), e["prompt"], json.dumps(e["messages"]))
                  for e in events if e.get("event") == "llm_call")


def _command_line_calls(claim: str) -> tuple[Verdict, list[tuple[str, int, str, str]]]:
    """``factdebate verify CLAIM --llm ... --no-cache --method tool-mad --rounds 1``'s run, as its build makes
    it, on the page's scripted model and tools: the verdict and its model calls with their text."""
    from factdebate.llm.transcript import transcribing

    settings = settings_from({**OPERATOR, "method": "tool-mad", "rounds": 1}, None)
    resources = offline_build(settings, make_backend("scripted:agree"))
    events: list[dict[str, Any]] = []

    async def go() -> Verdict:
        with transcribing():
            async with resources:
                return await run_claim(claim, settings, resources, sinks=[events.append])

    # In a thread of its own: Playwright's sync API holds this thread's event loop.
    with ThreadPoolExecutor(1) as thread:
        verdict = thread.submit(asyncio.run, go()).result()
    return verdict, _calls(events)


def test_tool_mad_in_one_round_makes_the_command_lines_calls_with_its_prompts(
        browser: Any, server: tuple[LiveServer, Any]) -> None:  # noqa: F811
    live, _ = server
    page, errors = signed_in_page(browser, live.url)
    # What the page receives, taken as it passes: the browser keeps a response's body only until the page moves on
    # from it, which it may do once the verdict is drawn, so the stream is fetched for the page and handed on.
    received: list[str] = []

    def relay(route: Any) -> None:
        response = route.fetch(timeout=120_000)
        received.append(response.text())
        route.fulfill(response=response, body=received[-1])

    page.route(STREAM, relay)
    body = _sent(page, "tool-mad", rounds=1, run=True)
    assert body["rounds"] == 1 and "label_guide" not in body
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=60_000)
    (text,) = received
    streamed = parse_sse(text)
    on_page = _calls([data for name, data in streamed if isinstance(data, dict) and name == data.get("event")])
    (result,) = [data for name, data in streamed if name == "result"]
    verdict, command_line = _command_line_calls(CLAIM)
    assert on_page == command_line
    assert any(GUIDE in messages for agent, _, prompt, messages in on_page if prompt == "debate_answer")
    assert (result["label"], result["decided_by"], result["usage"]["llm_calls"]) == (
        verdict.label, verdict.decided_by, verdict.usage.llm_calls)
    assert errors == []
