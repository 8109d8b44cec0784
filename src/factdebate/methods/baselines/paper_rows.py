"""Where the baselines that the DPD and MERMAID papers' tables run depart from how those papers ran them
(ChatGPT or GPT-4o, Google through Serper, WeCheck's trained model), so that a reproduced table's row says so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation
from factdebate.methods.kit.backbones import MERMAID_FACTOOL, backbone
from factdebate.methods.kit.paper_setup import chatgpt_backbone
from factdebate.methods.kit.sources import search_engine_deviation

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

GOOGLE = "FacTool searches Google (the Serper API) with each claim's queries"


def evidence(tool: str, settings: RunSettings, *, who: str) -> list[Deviation]:
    """Where FacTool's evidence comes from here: the dataset's own, another tool, or another engine."""
    if settings.retrieval.evidence != "retrieved":
        return [Deviation(key="evidence_given", paper=GOOGLE,
                          here=f"nothing is searched: the evidence is what the dataset gives with each sample "
                               f"(--evidence {settings.retrieval.evidence}), as DPD is given it on HaluEval",
                          restore="--evidence retrieved")]
    if tool != "search":
        return [Deviation(key="evidence_source", paper=GOOGLE, here=f"{who} go to the {tool} tool",
                          restore="the search tool (the default)")]
    return search_engine_deviation([tool], settings, paper_engine="google", who=who, paper=GOOGLE)


def factool(tool: str, settings: RunSettings, paper: str = "dpd") -> list[Deviation]:
    """FacTool's row in the DPD paper (ChatGPT) or in MERMAID's Table 1 (GPT-4o): ``paper`` says which."""
    roles = ("extractor", "debater")
    found = backbone(settings, roles, MERMAID_FACTOOL) if paper == "mermaid" else chatgpt_backbone(settings, roles)
    own = Deviation(key="prompt_own_words", paper="FacTool's own prompts for claim extraction, query generation "
                    "and verification", here="prompts written for this project for the same three steps, with the "
                    "same outputs (claims, queries, a true/false verdict with its reasoning)")
    return [*found, *evidence(tool, settings, who="the claims' queries"), own]


def chatgpt_only(settings: RunSettings) -> list[Deviation]:
    """Self-Check's rows (DPD Table 2): ChatGPT answering from its own knowledge."""
    own = Deviation(key="prompt_own_words", paper="FacTool's self-check prompt and worked examples (the DPD "
                    "paper's Self-Check rows)", here="an instruction and worked examples written for this project, "
                    "with the same task and labels")
    return [*chatgpt_backbone(settings, ("debater",)), own]


def halueval_fewshot(settings: RunSettings) -> list[Deviation]:
    own = Deviation(key="prompt_own_words", paper="HaluEval's own instruction and worked examples",
                    here="an instruction and three worked examples written for this project, with the same task "
                         "and Yes/No answer")
    return [*chatgpt_backbone(settings, ("debater",)), own]


def wecheck(tool: str, settings: RunSettings, threshold: float) -> list[Deviation]:
    found = [Deviation(key="stand_in", paper="WeCheck's trained factual-consistency model (premise: evidence, "
                       "hypothesis: claim), factual at 0.5 or more",
                       here="the highest MiniLM cosine similarity between the claim and one passage (no NLI model "
                            "ships offline; similarity is not entailment)")]
    if threshold != 0.5:
        found.append(Deviation(key="threshold", paper="factual at a score of 0.5 or more",
                               here=f"factual at {threshold} or more", restore="--wecheck-threshold 0.5"))
    return found + evidence(tool, settings, who="the scorer's evidence searches")
