"""Deviations several methods share (the papers' backbone models, the Tool-MAD paper's retrieval depth), so
that Tool-MAD and the baselines its paper ran say the same thing about the same setting."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from factdebate.core.claim_context import binary_task
from factdebate.core.deviations import Deviation
from factdebate.llm.near_chance import EMBEDDED_MODELS
from factdebate.methods.kit.backbones import DPD, TOOLMAD, TOOLMAD_SCORER, Backbones, backbone

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

TOOLMAD_K = 3  # "the top three most semantically relevant documents" per query, for RAG and search alike


def toolmad_backbone(settings: RunSettings, roles: Iterable[str] = ("debater", "judge"),
                     backbones: Backbones = TOOLMAD, *, answers: bool = True) -> list[Deviation]:
    """The shared deviations of Tool-MAD and its paper's baselines: backbones, the two-label rule and
    (``answers``) answers held to a format."""
    found = backbone(settings, roles, backbones) + toolmad_labels()
    if answers:
        found += answer_format(settings, paper="the model answers in free text with its label (the paper gives "
                               "the baselines no constrained format)")
    return found


GRAMMAR_FORMAT = "a grammar holds it to at most five sentences and a 'Verdict:' line"
SCHEMA_FORMAT = ("a JSON schema holds it to an object of reasoning and a verdict among the offered labels, rendered "
                 "back as the reasoning and a 'Verdict:' line (no sentence limit)")


def answer_format(settings: RunSettings, *, paper: str, scored: bool = False) -> list[Deviation]:
    """The ``answer_format`` deviation when an answer is generated under a constraint (a grammar of at most
    five sentences, or a JSON schema). ``scored``: faithfulness is scored on the rendered text."""
    llm = settings.llm
    model = settings.llm_for("debater")
    if not llm.one_call_verdict or (model.startswith("openai:") and llm.constrain == "none"):
        return []
    if not model.startswith("openai:") or llm.constrain == "grammar":
        how = GRAMMAR_FORMAT + (" (the in-process model)" if not model.startswith("openai:") else
                                " (constrain: grammar, a llama.cpp server)")
    elif llm.constrain in ("json_schema", "guided"):
        how = SCHEMA_FORMAT + f" (constrain: {llm.constrain})"
    else:
        how = (f"the served model's server decides (constrain: auto): on a llama.cpp server {GRAMMAR_FORMAT}; on "
               f"OpenAI, vLLM or Ollama {SCHEMA_FORMAT}")
    here = f"each answer is generated under a constraint: {how}" + (
        "; faithfulness is scored on the rendered text" if scored else "")
    return [Deviation(key="answer_format", paper=paper, here=here,
                      restore="llm.one_call_verdict: false in the config (a free answer, a label re-ask only when "
                              "none is readable)")]


def toolmad_labels() -> list[Deviation]:
    """The ``two_labels`` deviation on a two-label task (the Tool-MAD paper offers three labels everywhere)."""
    if not binary_task():
        return []
    return [Deviation(
        key="two_labels", paper="every prompt offers SUPPORTS, REFUTES and NOT ENOUGH INFO, on the two-label sets "
        "(FaVIQ) as well (Figs. 5-6); a NOT ENOUGH INFO answer there is simply wrong",
        here="on a two-label set only SUPPORTS and REFUTES are offered, and a NOT ENOUGH INFO that still comes is "
             "answered REFUTES (not verified as factual; counted under the run's two-label cases)")]


def toolmad_scorer(settings: RunSettings) -> list[Deviation]:
    """The ``scorer_model`` deviation when Tool-MAD's scores come from a model other than GPT-4o-mini."""
    return [deviation.model_copy(update={"key": "scorer_model", "here": "the scorer " + deviation.here.removeprefix(
        "the ")}) for deviation in backbone(settings, ("scorer",), TOOLMAD_SCORER)]


def chatgpt_backbone(settings: RunSettings, roles: Iterable[str], *, paper: str | None = None) -> list[Deviation]:
    """The DPD paper's rows: ChatGPT (gpt-3.5-turbo) in every role, by exact name."""
    return backbone(settings, roles, DPD, paper=paper)


def top_k(settings: RunSettings) -> list[Deviation]:
    """The Tool-MAD paper's tools return three documents per query."""
    k = settings.retrieval.k
    if k == TOOLMAD_K:
        return []
    return [Deviation(key="top_k", paper=f"{TOOLMAD_K} documents per query", here=f"{k} documents per query",
                      restore=f"-k {TOOLMAD_K}")]


def notes_numbers(settings: RunSettings) -> bool:
    """Whether the debaters read the number note (``llm.number_notes``; auto: on for the in-process model)."""
    chosen = settings.llm.number_notes
    return settings.llm_for("debater").startswith("llama-cpp:") if chosen == "auto" else chosen


def number_notes(settings: RunSettings) -> list[Deviation]:
    """The ``number_notes`` deviation while the debaters read the number note (prompts/numbers.py)."""
    if not notes_numbers(settings):
        return []
    return [Deviation(key="number_notes", paper="the debaters read the claim and their documents",
                      here="under its documents a debater also reads which of the claim's numbers no document "
                           "writes and the numbers the closest sentences give instead (a comparison of digits; "
                           "the verdict stays the model's)",
                      restore="llm.number_notes: false in the config")]


def guide_labels(chosen: bool | None, settings: RunSettings) -> bool:
    """Whether a debate's prompts say what tells the labels apart: ``chosen``, else on for an in-process GGUF
    model other than the embedded SmolLM2."""
    if chosen is not None:
        return chosen
    provider, _, target = settings.llm_for("debater").partition(":")
    # The provider's spellings are make_backend's (llm/__init__.py); the embedded names are near_chance's.
    return provider in ("llama-cpp", "llamacpp", "llama_cpp") and f"llama-cpp:{target}" not in EMBEDDED_MODELS
