"""Small things a person tripped on (issue 40, item 9), in a real browser: a pasted claim over the limit is
kept whole and the count says by how much it is too long (it was cut in silence), and an empty results file
is said to be empty (not a file of a shape the viewer does not know)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.server.axe import audit, failing
from tests.server.conftest import PLAIN, LiveServer
from tests.server.page.test_browser import browser, pytestmark, sign_in, watched_page  # noqa: F401


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
