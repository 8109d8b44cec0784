"""The papers' backbone models, and the one check every method runs against them.

A run stands beside a paper's figures only when each model role runs a model that paper ran that row with.
The check is exact on the model's own name (provider and organisation dropped, case ignored), so
``gpt-4o-mini`` never passes for GPT-4o. Each paper (or row on other models) is one :class:`Backbones`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

# The served names of each backbone (OpenAI, Hugging Face, Ollama, and the common hosts' names for the same
# weights), lower case and without the organisation. Keys are papers.toml's model keys, "." for "_".
SERVED: dict[str, tuple[str, ...]] = {
    "gpt-4o-mini": ("gpt-4o-mini", "gpt-4o-mini-2024-07-18"),
    "gpt-4o": ("gpt-4o", "gpt-4o-2024-05-13", "gpt-4o-2024-08-06", "gpt-4o-2024-11-20"),
    "gpt-5-mini": ("gpt-5-mini", "gpt-5-mini-2025-08-07"),
    # "ChatGPT" in the DPD paper (and the FacTool and HaluEval papers it compares with) is gpt-3.5-turbo.
    "chatgpt": ("gpt-3.5-turbo", "gpt-3.5-turbo-0301", "gpt-3.5-turbo-0613", "gpt-3.5-turbo-1106",
                "gpt-3.5-turbo-0125", "gpt-3.5-turbo-16k", "gpt-3.5-turbo-16k-0613"),
    "llama-3.3-70b": ("llama-3.3-70b-instruct", "llama3.3:70b", "llama3.3:70b-instruct",
                      "llama-3.3-70b-instruct-turbo", "llama-3.3-70b-versatile"),
    "deepseek-r1": ("deepseek-r1", "deepseek-reasoner", "deepseek-r1:671b"),
    "llama-3.1-8b": ("llama-3.1-8b-instruct", "meta-llama-3.1-8b-instruct", "llama3.1:8b", "llama3.1:8b-instruct"),
    "llama-3.1-70b": ("llama-3.1-70b-instruct", "meta-llama-3.1-70b-instruct", "llama3.1:70b",
                      "llama3.1:70b-instruct"),
    "qwen-2.5-7b": ("qwen2.5-7b-instruct", "qwen2.5:7b", "qwen2.5:7b-instruct"),
    # The paper's "Qwen-2.5-70B": Qwen2.5's large model has 72B parameters.
    "qwen-2.5-70b": ("qwen2.5-72b-instruct", "qwen2.5:72b", "qwen2.5:72b-instruct"),
    "oss-20b": ("gpt-oss-20b", "gpt-oss:20b"),
    "oss-120b": ("gpt-oss-120b", "gpt-oss:120b"),
}


@dataclass(frozen=True)
class Backbones:
    """The models one paper ran a method's row with: ``models`` (keys of :data:`SERVED`), said as ``paper``;
    ``restore`` is the flag that runs the row's main one."""

    models: tuple[str, ...]
    paper: str
    restore: str

    def names(self) -> set[str]:
        return {name for model in self.models for name in SERVED[model]}


TOOLMAD = Backbones(("gpt-4o-mini", "llama-3.3-70b"),
                    "GPT-4o-mini or Llama-3.3-70B-Instruct for every agent (Table III)", "--llm openai:gpt-4o-mini")
# The papers name no model for RAGAS's faithfulness and relevance; the authors' code scores with GPT-4o-mini
# under either backbone, so the scorer is held to it alone (never to the debaters' backbone).
TOOLMAD_SCORER = Backbones(("gpt-4o-mini",), "the papers name no scorer model; the authors' code scores "
                           "faithfulness and answer relevance (RAGAS) with GPT-4o-mini under either backbone",
                           "--scorer-llm openai:gpt-4o-mini")
# Table III also runs the backbone alone on GPT-4o and DeepSeek-R1.
TOOLMAD_ALONE = Backbones((*TOOLMAD.models, "gpt-4o", "deepseek-r1"),
                          "GPT-4o-mini, Llama-3.3-70B-Instruct, GPT-4o or DeepSeek-R1 (Table III's model-alone rows)",
                          "--llm openai:gpt-4o-mini")
MERMAID = Backbones(("gpt-5-mini", "gpt-4o", "llama-3.1-8b", "llama-3.1-70b", "qwen-2.5-7b", "qwen-2.5-70b",
                     "oss-20b", "oss-120b"),
                    "GPT-5-mini (Figure 3, Table 3), GPT-4o, LLaMA-3.1-8B/70B-Instruct, Qwen-2.5-7B/70B or "
                    "OSS-20B/120B (Tables 1-2)", "--llm openai:gpt-5-mini")
MERMAID_FACTOOL = Backbones(("gpt-4o",), "GPT-4o (MERMAID's Table 1 runs FacTool on it)", "--llm openai:gpt-4o")
DPD = Backbones(("chatgpt",), "ChatGPT (gpt-3.5-turbo)", "--llm openai:gpt-3.5-turbo")


def served_name(model: str) -> str | None:
    """The model's own served name (``openai:meta-llama/Llama-3.3-70B-Instruct`` -> ``llama-3.3-70b-instruct``);
    None for a local file or a scripted model."""
    provider, _, name = model.partition(":")
    return name.strip().rsplit("/", 1)[-1].lower() if provider == "openai" else None


def backbone(settings: RunSettings, roles: Iterable[str], backbones: Backbones, *, paper: str | None = None
             ) -> list[Deviation]:
    """The ``backbone`` deviation when a role's model is none of the paper's, by exact name."""
    by_role = {role: settings.llm_for(role) for role in roles}
    models = dict.fromkeys(by_role.values())
    other = [model for model in models if served_name(model) not in backbones.names()]
    if other:
        here = ("the model is " if len(other) == 1 else "the models are ") + ", ".join(other)
        return [Deviation(key="backbone", paper=paper or backbones.paper, here=here, restore=backbones.restore)]
    kinds = {backbone_of(model) for model in models}
    if len(kinds) > 1:  # each role on one of the paper's backbones, but not the same one: no row of the paper
        here = "the roles run different backbones: " + ", ".join(f"{role} {model}" for role, model in by_role.items())
        return [Deviation(key="backbone", paper=(paper or backbones.paper) + "; one backbone for every role of a row",
                          here=here, restore=backbones.restore)]
    return []


def backbone_of(model: str) -> str | None:
    """The key of :data:`SERVED` whose names include ``model``'s served name, else None."""
    name = served_name(model)
    return next((key for key, names in SERVED.items() if name in names), None)
