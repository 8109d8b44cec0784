"""Where DPD's settings depart from the paper's main setting (Sections 3 and 4.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation
from factdebate.methods.dpd.settings import GATHER_TOOLS
from factdebate.methods.kit.paper_setup import chatgpt_backbone
from factdebate.methods.kit.sources import homogeneous_deviation, search_engine_deviation

if TYPE_CHECKING:
    from factdebate.methods.dpd.settings import DPDSettings
    from factdebate.methods.settings_protocol import RunSettings

# "We instruct ChatGPT to perform claim extraction, generate queries, and conduct multi-agent debate
# verification" (Section 4.1): gpt-3.5-turbo, by exact name (kit/backbones.py).
DEBATE_ROLES = ("debater", "extractor", "gatherer", "analyst", "rebutter", "summarizer")
MIN_ROUNDS, TRANSITION, SNIPPETS = 2, "true-skeptic", 10


def deviations(cfg: DPDSettings, settings: RunSettings) -> list[Deviation]:
    found = chatgpt_backbone(settings, DEBATE_ROLES, paper="ChatGPT (gpt-3.5-turbo) for claim extraction, queries "
                             "and the debate (Section 4.1)")
    found += _referees(cfg, settings)
    if cfg.gatherers and cfg.tools:
        found += homogeneous_deviation(list(cfg.tools), settings, paper="the gatherers search the web (Google "
                                       "Search API) and a RAG knowledge base")
        # Every engine here differs from the paper's Google Search, the local BM25 index most of all.
        found += search_engine_deviation(cfg.tools, settings, paper_engine="google", who="the gatherers' searches")
    found += _tools(cfg)
    if cfg.min_rounds != MIN_ROUNDS:
        found.append(Deviation(key="min_rounds", paper=f"at least {MIN_ROUNDS} rounds (Section 4.1)",
                               here=f"at least {cfg.min_rounds}", restore=f"--dpd-min-rounds {MIN_ROUNDS}"))
    if cfg.min_rounds:
        found.append(Deviation(
            key="min_rounds_counted", paper="a minimum of two debate rounds, without saying whether the first "
            "judged round counts (Fig. 2 varies it from 0 to 3 and finds 3 worse)",
            here=f"the opening is judged, then at least {cfg.min_rounds} rebuttal round(s): at least "
                 f"{cfg.min_rounds + 1} judged rounds before the consensus may stop the debate",
            restore=f"--dpd-min-rounds {cfg.min_rounds - 1} ({cfg.min_rounds} judged rounds, the opening included)"))
    if cfg.transition != TRANSITION:
        found.append(Deviation(key="transition", paper="True -> Skeptic (other strategies: Table 4)",
                               here=cfg.transition, restore=f"--dpd-transition {TRANSITION}"))
    if cfg.snippets != SNIPPETS:
        found.append(Deviation(key="snippets", paper=f"{SNIPPETS} snippets of evidence",
                               here=f"{cfg.snippets} snippets", restore=f"--dpd-snippets {SNIPPETS}"))
    if cfg.gatherers and cfg.tools and not cfg.query_generation:
        found.append(Deviation(key="query_generation", paper="the gatherers search for what supports their side "
                               "and what refutes the other", here="the gatherers search with the claim",
                               restore="--dpd-query-generation"))
    off = [name for name in ("gatherers", "analysts", "summarizers") if not getattr(cfg, name)]
    if off:
        found.append(Deviation(key="modules", paper="information gatherers, analysts and summarizers",
                               here=f"without {', '.join(off)} (the paper's ablation, Table 6)",
                               restore=" ".join(f"--dpd-{name}" for name in off)))
    if cfg.summarizers:
        found.append(Deviation(
            key="summarizer_uncertainty", paper="summarizers scale the model's attention weights by each agent's "
            "confidence", here="a team's confidence is the agreement of k sampled statements, stated to the "
            "rebutters and judges (a black-box model has no attention to scale)"))
    return found


GATHERERS_PAPER = "the gatherers search the Google Search API and a RAG knowledge base (Section 3)"


def _tools(cfg: DPDSettings) -> list[Deviation]:
    """Gatherers with one of the paper's two tools, or none where the task supplies no evidence of its own."""
    if not cfg.gatherers or set(cfg.tools) == set(GATHER_TOOLS):
        return []
    if cfg.tools:
        here = f"the gatherers search only the {' and '.join(cfg.tools)} tool"
    elif cfg.task in ("claim", "kbqa", "auto"):  # auto is claim unless a HaluEval mode's settings replaced it
        here = "the gatherers search no tool: the teams argue from the model's own knowledge"
    else:
        return []
    return [Deviation(key="tools", paper=GATHERERS_PAPER, here=here, restore="--dpd-tools " + ",".join(GATHER_TOOLS))]


def _referees(cfg: DPDSettings, settings: RunSettings) -> list[Deviation]:
    """The paper's referees are "multiple independent LLMs"; one model shared by several is a deviation."""
    models = {name: settings.llm_for(role) for name, role in cfg.judge_roles().items()}
    if len(set(models.values())) == len(models):
        return []
    shared = [model for model in dict.fromkeys(models.values()) if list(models.values()).count(model) > 1]
    names = [name for name, model in models.items() if model in shared]
    return [Deviation(
        key="judges_one_model", paper="the referees are independent LLMs",
        here=f"referees {', '.join(names)} are one model ({', '.join(shared)}) at temperature "
             f"{settings.llm.temperature}, differing only in one sentence of focus",
        restore="--dpd-judge-llms " + ",".join(f"MODEL_{i + 1}" for i in range(len(models)))
                + " (or llm.roles judge-<name>)")]
