"""A model server that is down (its port refuses connections), as a person meets it on the page, in Debian's
Chromium against a live service whose model's server is gone: the service stops calling a server that refused
three connections in a row (llm/breaker.py), so a check fails at once instead of retrying until its deadline,
and the page says what failed: the model server, not the claim, with nothing checked and Retry of use once it
runs again; no address of the server is shown, and the status dot says the model is down. A response's check
likewise, and a Retry while it is still down fails the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from factdebate.llm import make_backend
from tests.server.axe import audit, failing
from tests.server.conftest import LiveServer, offline_build
from tests.server.guard.test_checker_down import closed_port
from tests.server.page.test_browser import browser, pytestmark, reopen_form, sign_in, watched_page  # noqa: F401

DEFAULTS = {"llm": "openai:m", "agents": ["none", "none"], "scoring": False, "cache": False, "method": "single"}
DOWN = "the model server of openai:m is down: it refused "
ADVICE = ("Nothing was checked, so this says nothing about the claim: the service's model server is not running. "
          "Retry once its operator has started it again.")


def test_a_model_server_that_is_down_fails_the_check_in_words(browser: Any,  # noqa: F811
                                                              live_server: Callable[..., LiveServer]) -> None:
    port = closed_port()
    backend = make_backend("openai:m", base_url=f"http://127.0.0.1:{port}/v1")
    with live_server(defaults=DEFAULTS, build=lambda settings: offline_build(settings, backend)) as server:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=single]", state="attached")
        page.fill("#claim", "The Eiffel Tower is in Paris.")
        page.click("#submit")
        failed = page.locator("#live .verdict-box.failed")
        failed.wait_for()
        said = failed.inner_text()
        assert said.startswith("The verification failed: " + DOWN) and ADVICE in said, said
        assert str(port) not in said and "127.0.0.1" not in said
        assert "Failed." in page.inner_text("#live .status-line")
        # The status dot asks the service's health again: the model is listed as down.
        page.wait_for_selector("#server-status.down")
        assert page.get_attribute("#server-status", "title") == "down: model openai:m"
        assert failing(audit(page, "a check whose model server is down")) == []

        # Retry while it is still down: the same words, not a wait.
        failed.locator("button.retry").click()
        page.wait_for_selector("#cancel", state="hidden")
        page.locator("#live .verdict-box.failed").wait_for()
        assert ADVICE in page.inner_text("#live .verdict-box.failed")

        # A response's check: its problem line says the same.
        page.click("button.tab[data-mode=response]")
        page.fill("#response-text", "Paris is the capital of France. The Louvre is a museum in Paris.")
        page.click("#submit")
        problem = page.locator("#response-live .response-problem")
        problem.wait_for()
        text = problem.inner_text()
        assert text.startswith("The check failed: " + DOWN), text
        assert ADVICE.replace("about the claim", "about the answer") in text, text
        assert page.inner_text("#response-live .response-status") == "Failed."
        assert errors == []


def test_a_check_that_fails_before_any_answer_shows_no_empty_round(browser: Any,  # noqa: F811
                                                                  live_server: Callable[..., LiveServer]) -> None:
    # The run fails at its first model call, after its turns had started: what the page shows is the failure,
    # not a "Round 1" frame with a card per agent and nothing in them: a debate's columns (one agent, two, a
    # tool-using agent's steps) and DPD's sides.
    port = closed_port()
    backend = make_backend("openai:m", base_url=f"http://127.0.0.1:{port}/v1")
    with live_server(defaults=DEFAULTS, build=lambda settings: offline_build(settings, backend)) as server:
        page, errors = watched_page(browser, viewport={"width": 1280, "height": 900})
        sign_in(page, server.url)
        page.wait_for_selector("#method option[value=single]", state="attached")
        for method in ("single", "tool-mad", "dpd", "react"):
            reopen_form(page)
            page.select_option("#method", method)
            page.fill("#claim", "The Eiffel Tower is in Paris.")
            page.click("#submit")
            page.locator("#live .verdict-box.failed").wait_for()
            page.wait_for_selector("#cancel", state="hidden")
            shown = page.inner_text("#live")
            assert "The verification failed: " + DOWN in shown and ADVICE in shown, (method, shown)
            assert "Round" not in shown and "thinking" not in shown and "working" not in shown, (method, shown)
            assert page.locator("#live .turn, #live .agent-col, #live .team-round, #live .role-card").count() == 0
            # Nor the frames that would hold them: the agents' columns, the sides', the steps' card.
            assert page.locator("#live :is(.columns, .teams, .trajectory):visible").count() == 0, method
            assert "Failed." in page.inner_text("#live .status-line")
        assert errors == []
