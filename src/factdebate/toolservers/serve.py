"""Build a tool server from the settings and run it over stdio."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcp.server.mcpserver import MCPServer

from factdebate.tools.leakage import LeakagePolicy
from factdebate.util.errors import ConfigError

if TYPE_CHECKING:
    from factdebate.settings.model import Settings


def _settings(config: Path | None) -> Settings:
    from factdebate.settings.load import settings_from

    return settings_from({}, config)


def _ensure_builtin(corpus: str, engines: list[str], config: Path | None) -> None:
    from factdebate.corpus.builtin import BUILTIN_CORPUS

    if corpus != BUILTIN_CORPUS:
        return
    from factdebate.corpus.builtin_index import ensure_builtin_indexed

    retrieval = _settings(config).retrieval
    ensure_builtin_indexed(retrieval.milvus_uri, engines=engines, limit=retrieval.builtin_docs,
                           encoder=retrieval.encoder)


def build(name: str, *, policy: LeakagePolicy, online: bool = False, engines: list[str] | None = None,
          config: Path | None = None) -> MCPServer:
    retrieval = _settings(config).retrieval
    if name == "wikipedia":
        from factdebate.toolservers.wikipedia_server import build_wikipedia_server

        if online:
            from factdebate.toolservers.wiki_online import OnlineWikipedia

            return build_wikipedia_server(OnlineWikipedia(lang=retrieval.wikipedia_lang), policy)
        from factdebate.corpus.milvus import MilvusStore
        from factdebate.toolservers.wiki_offline import OfflineWikipedia

        wanted = engines or ["local", "rag"]
        if unknown := set(wanted) - {"local", "rag"}:
            raise ConfigError(f"unknown engine(s) {', '.join(sorted(unknown))} for wikipedia: use local, rag")
        if "local" not in wanted:
            raise ConfigError("the offline wikipedia server needs the local (BM25) index: it reads articles from it")
        _ensure_builtin(retrieval.corpus, wanted, config)
        dense = (MilvusStore(retrieval.corpus, retrieval.milvus_uri, encoder=retrieval.encoder)
                 if "rag" in wanted else None)
        return build_wikipedia_server(OfflineWikipedia(retrieval.corpus, dense=dense), policy)
    if name == "search":
        from factdebate.tools.local_search import LocalSearchTool
        from factdebate.tools.tavily import TavilyTool
        from factdebate.toolservers.search_server import build_search_server

        wanted = engines or (["local", "tavily"] if os.environ.get("TAVILY_API_KEY") else ["local"])
        if unknown := set(wanted) - {"local", "tavily"}:
            raise ConfigError(f"unknown engine(s) {', '.join(sorted(unknown))} for search: use local, tavily")
        if "local" in wanted:
            _ensure_builtin(retrieval.corpus, ["local"], config)
        return build_search_server(local=LocalSearchTool(retrieval.corpus) if "local" in wanted else None,
                                   tavily=TavilyTool() if "tavily" in wanted else None, policy=policy)
    if name == "scholar":
        from factdebate.toolservers.scholar_server import build_scholar_server

        return build_scholar_server(policy=policy)
    raise ConfigError(f"unknown tool server '{name}': use wikipedia, search or scholar")


def run(name: str, *, policy: LeakagePolicy, online: bool = False, engines: list[str] | None = None,
        config: Path | None = None) -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    build(name, policy=policy, online=online, engines=engines, config=config).run("stdio")
