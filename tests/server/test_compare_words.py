"""The comparison's words, run under Node as the ES module the page imports (skipped without Node): how far
the methods agree, and "cached" on a method whose every model call the cache answered."""

from __future__ import annotations

from tests.server.page.test_page_scripts import pytestmark, run_module  # noqa: F401


def test_a_method_answered_from_the_cache_says_cached_not_zero_seconds() -> None:
    seconds = run_module("compare-words.js", "data.map(u => m.secondsText(u))", [
        {"llm_calls": 4, "cached_calls": 4, "seconds": 0.01},
        {"llm_calls": 4, "cached_calls": 3, "seconds": 2.04},
        {"llm_calls": 0, "cached_calls": 0, "seconds": 0.0},
        None])
    assert seconds == ["cached", "2.0", "0.0", "0.0"]


def test_the_agreement_line_counts_labels_open_runs_and_failures() -> None:
    def line(*entries: dict[str, object]) -> str:
        return str(run_module("compare-words.js", "m.agreementText(data)", list(entries)))

    def said(label: str | None) -> dict[str, object]:
        return {"verdict": {"label": label}, "error": ""}

    assert line(said("SUPPORTS"), said("SUPPORTS")) == "All 2 methods say SUPPORTS."
    assert line(said("REFUTES"), said("REFUTES"), said("SUPPORTS")) == "2 of 3 methods say REFUTES."
    assert line(said("REFUTES"), said("SUPPORTS"), {"verdict": None, "error": ""},
                {"verdict": None, "error": "boom"}) == \
        "The methods disagree: 1 say REFUTES, 1 say SUPPORTS (1 still checking) (1 failed)."
    assert line({"verdict": None, "error": ""}) == ""
    # A run stopped (by the user, by a reload) is said to be stopped, not failed.
    assert line(said("SUPPORTS"), {"verdict": None, "error": "the page was reloaded", "stopped": True},
                {"verdict": None, "error": "boom", "stopped": False}) == \
        "1 of 3 methods say SUPPORTS (1 stopped) (1 failed)."
