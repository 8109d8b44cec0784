"""Deviations several methods share: the papers' backbone models (checked in kit/backbones.py) and the
Tool-MAD paper's retrieval depth.

Each method lists its own deviations (``Method.paper_deviations``); these helpers keep the wording and the
test of the shared ones in one place, so that Tool-MAD and the baselines the Tool-MAD paper ran beside it
say the same thing about the same setting.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from factdebate.core.claim_context import binary_task
from factdebate.core.deviations import Deviation
from factdebate.methods.kit.backbones import DPD, TOOLMAD, TOOLMAD_SCORER, Backbones, backbone

if TYPE_CHECKING:
    from factdebate.settings.model import Settings

TOOLMAD_K = 3  # "the top three most semantically relevant documents" per query, for RAG and search alike


def toolmad_backbone(settings: Settings, roles: Iterable[str] = ("debater", "judge"),
                     backbones: Backbones = TOOLMAD) -> list[Deviation]:
    """Tool-MAD and the baselines its paper ran beside it, on its backbones (kit/backbones.py, exact names);
    and, every one of them offering NOT ENOUGH INFO in the paper, the two-label rule where it is in force."""
    return backbone(settings, roles, backbones) + toolmad_labels()


def toolmad_labels() -> list[Deviation]:
    """The ``two_labels`` deviation on a two-label task (core/claim_context.py): the Tool-MAD paper's prompts
    offer SUPPORTS, REFUTES and NOT ENOUGH INFO on every dataset, FaVIQ's two-label set included."""
    if not binary_task():
        return []
    return [Deviation(
        key="two_labels", paper="every prompt offers SUPPORTS, REFUTES and NOT ENOUGH INFO, on the two-label sets "
        "(FaVIQ) as well (Figs. 5-6); a NOT ENOUGH INFO answer there is simply wrong",
        here="on a two-label set only SUPPORTS and REFUTES are offered, and a NOT ENOUGH INFO that still comes is "
             "answered REFUTES (not verified as factual; counted under the run's two-label cases)")]


def toolmad_scorer(settings: Settings) -> list[Deviation]:
    """The ``scorer_model`` deviation when Tool-MAD's stability scores come from another model than the
    authors' GPT-4o-mini (kit/backbones.py, exact names)."""
    return [deviation.model_copy(update={"key": "scorer_model", "here": "the scorer " + deviation.here.removeprefix(
        "the ")}) for deviation in backbone(settings, ("scorer",), TOOLMAD_SCORER)]


def chatgpt_backbone(settings: Settings, roles: Iterable[str], *, paper: str | None = None) -> list[Deviation]:
    """The DPD paper's rows: ChatGPT (gpt-3.5-turbo) in every role, by exact name."""
    return backbone(settings, roles, DPD, paper=paper)


def top_k(settings: Settings) -> list[Deviation]:
    """The Tool-MAD paper's tools return three documents per query."""
    k = settings.retrieval.k
    if k == TOOLMAD_K:
        return []
    return [Deviation(key="top_k", paper=f"{TOOLMAD_K} documents per query", here=f"{k} documents per query",
                      restore=f"-k {TOOLMAD_K}")]
