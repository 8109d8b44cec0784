"""The embedded model (SmolLM2-135M) answers near chance, so a label it gave is no finding about the claim:
the one caution every place that shows its verdicts gives, worded here once (the terminal after a verdict,
cli/render.py; the web page beside it, through the service's ``GET /v1/views``)."""

from __future__ import annotations

from collections.abc import Iterable

EMBEDDED_MODELS = ("llama-cpp:builtin", "llama-cpp:builtin-q4")
# What each surface tells a reader to do instead: a command line names the flag, the page its operator.
TERMINAL_ADVICE = '--llm openai:MODEL (any OpenAI-compatible server via OPENAI_BASE_URL; factdebate docs readme#use)'
PAGE_ADVICE = "this service's operator starts it with --llm openai:MODEL (factdebate docs readme#use)"
CLAIM = "this verdict tests the pipeline, not the claim"
CLAIMS = "these verdicts test the pipeline, not the claims"


def near_chance_note(models: Iterable[str], what: str = CLAIM, advice: str = TERMINAL_ADVICE,
                     embedded: Iterable[str] = EMBEDDED_MODELS) -> str | None:
    """The caution, in one line, when one of ``models`` (the models that answered) is the embedded one;
    None otherwise. ``what``: what the verdicts in front of the reader test."""
    if not set(models) & set(embedded):
        return None
    return (f"note: the embedded model (SmolLM2-135M) answers near chance, so {what}; for real verdicts use a "
            f"served model: {advice}.")
