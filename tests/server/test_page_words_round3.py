"""Small wordings of the page, run under Node as the ES modules the page imports (issue 40, item 9): a
retry's line says who in words and why with one full stop, and counts the seconds to the next try down."""

from __future__ import annotations

from tests.server.test_page_scripts import NODE, pytestmark, run_module  # noqa: F401

RETRY = {"agent": "rag", "role": "scorer", "prompt": "faithfulness_statements", "attempt": 2,
         "error": "APIConnectionError: Connection error.", "delay": 4.0}


def test_a_retry_speaks_words_and_counts_down() -> None:
    lines = run_module("progress.js", "[4, 2.2, 0.4, 0].map(s => m.retryText(data, s))", RETRY)
    why = "The model did not answer rag: APIConnectionError: Connection error."
    assert lines == [[why, " Try 3 in 4 s…"], [why, " Try 3 in 3 s…"], [why, " Try 3 in 1 s…"], [why, " Try 3 now…"]]
    assert "faithfulness_statements" not in str(lines) and ".." not in str(lines)
    assert run_module("progress.js", "m.caller(data)", {"role": "judge", "prompt": "judge:reask"}) == "the judge"
