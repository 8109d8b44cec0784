"""The embedded model (SmolLM2-135M) answers near chance, so a label it gave is no finding about the claim:
the one caution every place that shows its verdicts gives, worded here once (the terminal after a verdict,
cli/render.py; the web page beside it, through the service's ``GET /v1/views``). A scripted model's answers
are written in advance: no finding either. Both are carried in every verdict's ``warnings`` with a code
(:func:`model_warnings`)."""

from __future__ import annotations

from collections.abc import Iterable

from factdebate.core.types import VerdictWarning

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


SCRIPTED = "scripted:"  # a test's or a demo's script (llm/scripted_library.py): its replies are written in advance


def model_warnings(models: Iterable[str], what: str = CLAIM,
                   embedded: Iterable[str] = EMBEDDED_MODELS) -> list[VerdictWarning]:
    """The machine-readable caution, one per model of ``models`` (the models that answered) whose labels are
    no finding: ``embedded_model`` (near chance) or ``scripted_model`` (written in advance); none for a served
    model. Every verdict carries them in its ``warnings`` (issue 60), so a program reading ``--json``, the
    Python result, the service or MCP can tell a real verdict from one of these."""
    found: list[VerdictWarning] = []
    kept = set(embedded)
    for model in sorted(set(models)):
        if model in kept:
            found.append(VerdictWarning(code="embedded_model", model=model, message=(
                f"the embedded model ({model}, SmolLM2-135M) answers near chance, so {what}; for real verdicts "
                "use a served model")))
        elif model.startswith(SCRIPTED):
            found.append(VerdictWarning(code="scripted_model", model=model, message=(
                f"{model} is a script, not a model: its answers are written in advance, so {what}")))
    return found


def with_model_warnings(warnings: list[VerdictWarning], models: Iterable[str],
                        what: str = CLAIM) -> list[VerdictWarning]:
    """``warnings`` with the model cautions of ``models`` after the others, each model's once (a verdict
    stamped again, after a claim was retried, is not cautioned twice)."""
    kept = [w for w in warnings if w.code not in MODEL_CODES]
    return kept + model_warnings(models, what)


MODEL_CODES = frozenset({"embedded_model", "scripted_model"})
