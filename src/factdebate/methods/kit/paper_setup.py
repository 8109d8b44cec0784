"""Deviations several methods share: the papers' backbone models and the Tool-MAD paper's retrieval depth.

Each method lists its own deviations (``Method.paper_deviations``); these helpers keep the wording and the
test of the shared ones in one place, so that Tool-MAD and the baselines the Tool-MAD paper ran beside it
say the same thing about the same setting.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation

if TYPE_CHECKING:
    from factdebate.settings.model import Settings

# Tool-MAD's backbones (Section IV.B, Table III); the baselines ran on the same ones.
TOOLMAD_MODELS = ("gpt-4o-mini", "llama-3.3-70b")
TOOLMAD_BACKBONE = "GPT-4o-mini or Llama-3.3-70B-Instruct for every agent (Table III)"
TOOLMAD_K = 3  # "the top three most semantically relevant documents" per query, for RAG and search alike


def backbone(settings: Settings, roles: Iterable[str], *, names: tuple[str, ...], paper: str,
             restore: str = "--llm openai:gpt-4o-mini") -> list[Deviation]:
    """The ``backbone`` deviation when a role's model is none of the paper's (by name, case ignored)."""
    models = dict.fromkeys(settings.llm_for(role) for role in roles)
    other = [model for model in models if not any(name in model.lower() for name in names)]
    if not other:
        return []
    here = ("the model is " if len(other) == 1 else "the models are ") + ", ".join(other)
    return [Deviation(key="backbone", paper=paper, here=here, restore=restore)]


def toolmad_backbone(settings: Settings, roles: Iterable[str] = ("debater", "judge")) -> list[Deviation]:
    return backbone(settings, roles, names=TOOLMAD_MODELS, paper=TOOLMAD_BACKBONE)


def top_k(settings: Settings) -> list[Deviation]:
    """The Tool-MAD paper's tools return three documents per query."""
    k = settings.retrieval.k
    if k == TOOLMAD_K:
        return []
    return [Deviation(key="top_k", paper=f"{TOOLMAD_K} documents per query", here=f"{k} documents per query",
                      restore=f"-k {TOOLMAD_K}")]
