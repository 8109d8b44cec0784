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
# "ChatGPT" in the DPD paper (and in the FacTool and HaluEval papers it compares with) is OpenAI's
# gpt-3.5-turbo: these model names exactly, never a later GPT-4 family model that merely shares a prefix.
CHATGPT = ("gpt-3.5-turbo", "gpt-3.5-turbo-0301", "gpt-3.5-turbo-0613", "gpt-3.5-turbo-1106",
           "gpt-3.5-turbo-0125", "gpt-3.5-turbo-16k", "gpt-3.5-turbo-16k-0613")
CHATGPT_PAPER = "ChatGPT (gpt-3.5-turbo)"


def model_name(model: str) -> str:
    """The model's own name, lower case: ``openai:gpt-3.5-turbo`` -> ``gpt-3.5-turbo``."""
    return model.split(":", 1)[-1].strip().lower()


def backbone(settings: Settings, roles: Iterable[str], *, names: tuple[str, ...], paper: str,
             restore: str = "--llm openai:gpt-4o-mini", exact: bool = False) -> list[Deviation]:
    """The ``backbone`` deviation when a role's model is none of the paper's: by a part of its name (case
    ignored), or with ``exact`` by its whole name after the provider (``openai:``)."""
    models = dict.fromkeys(settings.llm_for(role) for role in roles)
    if exact:
        other = [model for model in models if model_name(model) not in names]
    else:
        other = [model for model in models if not any(name in model.lower() for name in names)]
    if not other:
        return []
    here = ("the model is " if len(other) == 1 else "the models are ") + ", ".join(other)
    return [Deviation(key="backbone", paper=paper, here=here, restore=restore)]


def toolmad_backbone(settings: Settings, roles: Iterable[str] = ("debater", "judge")) -> list[Deviation]:
    return backbone(settings, roles, names=TOOLMAD_MODELS, paper=TOOLMAD_BACKBONE)


def chatgpt_backbone(settings: Settings, roles: Iterable[str], *, paper: str = CHATGPT_PAPER,
                     also: tuple[str, ...] = ()) -> list[Deviation]:
    """The ``backbone`` deviation unless every role runs one of the ChatGPT models (or ``also``), by exact name."""
    return backbone(settings, roles, names=CHATGPT + also, paper=paper, exact=True,
                    restore="--llm openai:gpt-3.5-turbo")


def top_k(settings: Settings) -> list[Deviation]:
    """The Tool-MAD paper's tools return three documents per query."""
    k = settings.retrieval.k
    if k == TOOLMAD_K:
        return []
    return [Deviation(key="top_k", paper=f"{TOOLMAD_K} documents per query", here=f"{k} documents per query",
                      restore=f"-k {TOOLMAD_K}")]
