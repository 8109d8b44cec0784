"""What the Tool-MAD authors' code (GitHub ``seyeonJeong/ToolMAD``, ``04201d3`` and ``248c83f``) fixes that the
papers do not name, each a declared deviation; read from the code, nothing of it copied."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation
from factdebate.scoring.calibrate import relevance_encoder

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings
    from factdebate.methods.toolmad.settings import ToolMADSettings

RAG_ENCODER = "gte-large-en-v1.5"
RAG_METRIC = "inner product"
SCORING = "the RAGAS library 0.3.0 (faithfulness and answer relevancy), its judge gpt-4o-mini"
RELEVANCE_EMBEDDINGS = "RAGAS's default OpenAI embeddings"
TAVILY = "Tavily through LangChain with max_results=3 and the advanced search depth (raw page content fetched, " \
    "then unused)"
TEMPERATURE = 0.0
# The depth factdebate's Tavily tool asks for (tools/tavily.py).
OUR_TAVILY_DEPTH = "basic"


def deviations(cfg: ToolMADSettings, settings: RunSettings) -> list[Deviation]:
    """The authors' settings that a run with these settings does not share."""
    tools = [str(kind) for kind in cfg.agents]
    encoder = relevance_encoder(settings.retrieval.encoder)
    found = []
    if "rag" in tools:
        found.append(Deviation(
            key="rag_encoder", paper=f"the authors' code embeds the RAG index with {RAG_ENCODER} and ranks passages "
            f"by {RAG_METRIC} (the papers name no encoder)",
            here=f"the RAG tool embeds passages and queries with {encoder} and ranks them by "
                 "cosine similarity"))
    if cfg.scoring and cfg.scoring_variant == "stability":
        found.append(Deviation(
            key="scoring_library", paper=f"the authors' code scores with {SCORING}; answer relevance compares the "
            f"claim with the generated questions through {RELEVANCE_EMBEDDINGS}",
            here="factdebate's own scorer (scoring/: the same two measures, its own prompts, the scorer model "
                 f"{settings.llm_for('scorer')}), answer relevance through {encoder}"))
    if "search" in tools and settings.retrieval.search == "tavily" and settings.medical.search == "default":
        found.append(Deviation(
            key="search_depth", paper=f"the authors' code queries {TAVILY}",
            here=f"Tavily's search API called directly for {settings.retrieval.k} result(s) at the "
                 f"{OUR_TAVILY_DEPTH} search depth"))
    if settings.llm.temperature != TEMPERATURE:
        found.append(Deviation(
            key="temperature", paper="the authors' code calls every model at temperature 0 (the papers give none)",
            here=f"the debaters' answers and the judge at temperature {settings.llm.temperature}",
            restore="--temperature 0"))
    return found
