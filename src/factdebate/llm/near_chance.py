"""What a verdict from a model that runs here is worth, said once for every face that shows verdicts.

- The shipped model (``llama-cpp:builtin``) answers near chance: no finding about the claim (``embedded_model``).
- The offline model setup assembles reads evidence: ``offline_model`` says what it measured and that a served
  model is stronger.
- A scripted model's answers are written in advance: no finding either (``scripted_model``)."""

from __future__ import annotations

from collections.abc import Iterable

from factdebate.core.types import VerdictWarning
from factdebate.hub.offline_model import QWEN_CODER_1_5B

EMBEDDED_MODELS = ("llama-cpp:builtin", "llama-cpp:builtin-q4")
# Each offline model's measured statement (only numbers measured on this project's runs), without advice.
MEASURED = {QWEN_CODER_1_5B.spec: (
    "the offline model (Qwen2.5-Coder-1.5B, llama-cpp:qwen2.5-coder-1.5b) is small: with Tool-MAD it refutes the "
    "demo's Rome claim and supports Paris, and was right on 4 of 4 built-in geography claims, 4 of 4 HaluEval "
    "answers and 3 of 4 FEVER claims, too few to state its accuracy "
    "(factdebate docs configuration#how-accurate-it-is)")}
# What each surface tells a reader to do instead: a command line names the flag, the page its operator.
TERMINAL_ADVICE = '--llm openai:MODEL (any OpenAI-compatible server via OPENAI_BASE_URL; factdebate docs readme#use)'
PAGE_ADVICE = "this service's operator starts it with --llm openai:MODEL (factdebate docs readme#use)"
CLAIM = "this verdict tests the pipeline, not the claim"
CLAIMS = "these verdicts test the pipeline, not the claims"


def near_chance_note(models: Iterable[str], what: str = CLAIM, advice: str = TERMINAL_ADVICE,
                     embedded: Iterable[str] = EMBEDDED_MODELS) -> str | None:
    """The one-line caution for the embedded model among ``models``, else the measured statement for an offline
    one; None for a served model. ``what``: what the verdicts in front of the reader test."""
    answered = set(models)
    if answered & set(embedded):
        return (f"note: the embedded model (SmolLM2-135M) answers near chance, so {what}; for real verdicts use a "
                f"served model: {advice}.")
    measured = sorted(answered & MEASURED.keys())
    if measured:
        return f"note: {MEASURED[measured[0]]}; a served model is stronger: {advice}."
    return None


SCRIPTED = "scripted:"  # a test's or a demo's script (llm/scripted_library.py): its replies are written in advance


def model_warnings(models: Iterable[str], what: str = CLAIM,
                   embedded: Iterable[str] = EMBEDDED_MODELS) -> list[VerdictWarning]:
    """The machine-readable cautions, one per model of ``models`` that needs one, for a verdict's ``warnings``."""
    found: list[VerdictWarning] = []
    kept = set(embedded)
    for model in sorted(set(models)):
        if model in kept:
            found.append(VerdictWarning(code="embedded_model", model=model, message=(
                f"the embedded model ({model}, SmolLM2-135M) answers near chance, so {what}; for real verdicts "
                "use a served model")))
        elif model in MEASURED:
            found.append(VerdictWarning(code="offline_model", model=model,
                                        message=f"{MEASURED[model]}; a served model is stronger"))
        elif model.startswith(SCRIPTED):
            found.append(VerdictWarning(code="scripted_model", model=model, message=(
                f"{model} is a script, not a model: its answers are written in advance, so {what}")))
    return found


def with_model_warnings(warnings: list[VerdictWarning], models: Iterable[str],
                        what: str = CLAIM) -> list[VerdictWarning]:
    """``warnings`` with the model cautions of ``models`` after the others, each model's once."""
    kept = [w for w in warnings if w.code not in MODEL_CODES]
    return kept + model_warnings(models, what)


MODEL_CODES = frozenset({"embedded_model", "offline_model", "scripted_model"})

# Said in a guarded reply's footnote under the flags a model that runs here decided: the reader of a chat sees
# the text, not the ``warnings`` beside it, and such a model's flags are rarely right. The offline model's rate is
# the stance step's in the mix Factcheck-Bench's passages come in (docs/guard.md: 10 of 63,
# benchmarks/stance_flags.py --pairs-asked 120 --seed 5).
_FLAG_CAUTIONS = {
    "embedded_model": ("{flags} from the embedded model (SmolLM2-135M), which answers near chance: {read} a test of "
                       "the pipeline, not as a finding."),
    "offline_model": ("{flags} from a small model that runs offline (Qwen2.5-Coder-1.5B), and about 1 in 6 of its "
                      "flags was right on public fact-check passages: {read} a sentence to look at beside its "
                      "quote, not as a finding."),
}


def flag_caution(warnings: Iterable[VerdictWarning], flags: int) -> str | None:
    """The footnote's line under ``flags`` flags (one or more) decided with a model whose caution is among
    ``warnings`` (the embedded model's or the offline model's); None for any other model."""
    codes = {warning.code for warning in warnings}
    for code, caution in _FLAG_CAUTIONS.items():
        if code in codes:
            if flags == 1:
                return caution.format(flags="This flag comes", read="read it as")
            return caution.format(flags="These flags come", read="read each as")
    return None
