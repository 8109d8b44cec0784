"""Where MERMAID's settings make a run differ from the paper (Cao et al., Algorithm 1, Section 3.4, Table 5),
one :class:`Deviation` each; docs/methods/mermaid.md lists them beside the choices the paper leaves open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation
from factdebate.memory.settings import MemorySettings
from factdebate.methods.kit.backbones import MERMAID, backbone
from factdebate.methods.mermaid.settings import MermaidSettings
from factdebate.methods.mermaid.toolbox import search_engines

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

PAPER_MAX_STEPS = 5


def deviations(settings: RunSettings, cfg: MermaidSettings) -> list[Deviation]:
    found = backbone(settings, ("debater",), MERMAID)  # the decomposer and the executor ask the same model
    if cfg.memory == "off":
        found.append(Deviation(key="memory_off", paper="an evidence memory recalled before and updated after each "
                               "claim (no memory only in the tool-call comparison, Figure 3)",
                               here="no evidence memory", restore="--memory on"))
    elif cfg.memory == "readonly":
        found.append(Deviation(key="memory_readonly", paper="the memory is updated after each claim (a fixed memory "
                               "only in the proxy-memory analysis)", here="the memory is only read",
                               restore="--memory on"))
    if cfg.memory != "off":
        if cfg.memory_semantic:
            found.append(Deviation(key="semantic_recall", paper="recall by string matching of the claim's entities",
                                   here="records close in meaning are recalled too (MiniLM, cosine >= 0.45)",
                                   restore="--no-mermaid-memory-semantic"))
        if cfg.memory_path:
            found.append(Deviation(key="memory_shared", paper="a memory built over one sequence of claims",
                                   here=f"the memory file {cfg.memory_path}, read and written by every run and "
                                        "claim that names it", restore="leave out --memory-path"))
        if cfg.memory_from:
            found.append(Deviation(key="memory_seeded", paper="a memory that starts empty",
                                   here=f"the memory starts as a copy of {cfg.memory_from}",
                                   restore="leave out --memory-from"))
    if not cfg.decomposer:
        found.append(Deviation(key="no_decomposer", paper="a decomposer turns the claim into triplets and a topic "
                               "('w/o decomposer' is an ablation)", here="the executor alone",
                               restore="--mermaid-decomposer"))
    if cfg.labels != "binary":
        found.append(Deviation(key="three_way_labels", paper="True or False", here="True, False or NOT ENOUGH INFO",
                               restore="--mermaid-labels binary"))
    if cfg.repeat_stop:
        found.append(Deviation(key="repeat_stop", paper="the executor acts until it answers or reaches T_max "
                               "(Algorithm 1), a repeated action included",
                               here="an action identical to an earlier one is neither run nor counted as a tool "
                                    "call, and the answer is asked for at once (fewer tool calls than Figure 3's)",
                               restore="--no-mermaid-repeat-stop (the default)"))
    if cfg.max_steps != PAPER_MAX_STEPS:
        found.append(Deviation(key="max_steps", paper=f"T_max = {PAPER_MAX_STEPS}", here=f"T_max = {cfg.max_steps}",
                               restore=f"--mermaid-max-steps {PAPER_MAX_STEPS}"))
    if cfg.memory != "off":
        found.append(Deviation(
            key="memory_record", paper="each memory value is the retrieved evidence with its source metadata: the "
            "search query and a timestamp (Section 3.4)",
            here="a value holds the passage, its source, the tool that found it and (in a run's own memory) the "
                 "claim's position in the run; the search query is not stored (a query the model wrote may carry "
                 "the claim's wording or a guessed verdict into later claims)"))
        caps = MemorySettings()
        found.append(Deviation(key="recall_caps", paper="every stored record whose entity matches the claim's is "
                               "recalled (no limit given)",
                               here=f"at most {caps.per_entity_limit} records per entity and {caps.recall_limit} "
                                    "per claim, the most recent first"))
    found.append(_toolset(settings, cfg))
    found.append(Deviation(
        key="tools_all_failed", paper="the executor answers when it decides to or at T_max, from what it has "
        "(Algorithm 1 says nothing of failed tool calls)",
        here="a claim whose every tool call failed ends as an error (ToolCallsFailed), not a verdict from the "
             "memory and the model alone: a tool outage is said, not hidden in a verdict"))
    if cfg.repeat_skip and not cfg.repeat_stop:
        found.append(Deviation(key="repeat_skip", paper="the executor acts until it answers or reaches T_max "
                               "(Algorithm 1), a repeated action included",
                               here="an action identical to an earlier one (same tool, same arguments once "
                                    "normalised) is neither run nor counted as a tool call: its step tells the "
                                    "executor it already has that observation, and the loop goes on",
                               restore="--no-mermaid-repeat-skip"))
    return found


def _toolset(settings: RunSettings, cfg: MermaidSettings) -> Deviation:
    """Always a deviation: Google Search and Google Scholar have no stand-in here, only substitutes."""
    parts = []
    if "wikipedia" not in cfg.servers:
        parts.append("no Wikipedia tools")
    else:
        parts.append("Wikipedia from the live API" if cfg.wikipedia_online else
                     "Wikipedia tools over the indexed corpus, offline")
    corpus = settings.retrieval.corpus
    if "search" not in cfg.servers:
        parts.append("no web search")
    elif search_engines(settings) == "local,tavily":
        parts.append(f"web search on Tavily (the live web), with BM25 over the '{corpus}' corpus beside it")
    else:
        parts.append(f"web search: none, BM25 over the '{corpus}' corpus on this machine (search: "
                     f"{settings.retrieval.search}; Tavily needs TAVILY_API_KEY or --search tavily)")
    parts.append("OpenAlex, arXiv and PubMed for scholarly search" if "scholar" in cfg.servers else
                 "no scholarly search")
    if settings.mcp_servers:
        parts.append(f"your servers {', '.join(sorted(settings.mcp_servers))}")
    return Deviation(key="toolset", paper="MCP servers for Wikipedia (online), Google Search, Google Scholar, "
                     "arXiv and PubMed", here="; ".join(parts),
                     restore="--mermaid-servers wikipedia,search,scholar --mermaid-wikipedia-online with "
                             "TAVILY_API_KEY set (the closest: Tavily and OpenAlex stand in for Google)")
