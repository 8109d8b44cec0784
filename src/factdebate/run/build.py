"""The factory of one run's parts: tools by kind, models by role (sharing backends and their concurrency
limit), the text encoder, and the builtin indexes a method opens."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factdebate.corpus.builtin import BUILTIN_CORPUS
from factdebate.embeddings import TextEncoder
from factdebate.llm import LLM, RetryPolicy, make_backend
from factdebate.llm.base import Backend
from factdebate.llm.cache import PART as CACHE_PART
from factdebate.llm.cache import ResponseCache
from factdebate.methods.base import Method, method_class
from factdebate.methods.resources import Resources, RunScope, Services
from factdebate.settings.model import Settings
from factdebate.tools.base import Tool
from factdebate.util.errors import ConfigError
from factdebate.util.paths import data_dir
from factdebate.util.storage_full import STORAGE

if TYPE_CHECKING:
    from factdebate.corpus.vectors_later import Build

log = logging.getLogger("factdebate.run")


def make_tool(kind: str, settings: Settings, llm: LLM | None = None, *, wait: bool = False) -> Tool:
    """``rag``, ``search`` (or the scholarly pipeline with ``medical.search``) or ``mcp:<server>/<tool>``.
    ``wait``: a built-in ``rag`` tool waits for its vectors."""
    retrieval = settings.retrieval
    if kind.startswith("mcp:"):
        return _mcp_tool(kind, settings)
    if kind == "search" and settings.medical.search != "default":
        return _scholar_tool(settings, llm)
    if kind == "rag":
        from factdebate.tools.rag import RagTool

        if not wait and (pending := _pending_rag(settings)) is not None:
            return pending
        _ensure_builtin("rag", settings)
        tool = RagTool(corpus=retrieval.corpus, milvus_uri=retrieval.milvus_uri, encoder=retrieval.encoder)
        tool.store.open()  # opened with the other tools, before the first model call (not at the first search)
        return tool
    if kind == "search":
        from factdebate.tools.leakage_search import LeakageSearch

        # Leakage controls (configured and per-claim dates, excluded domains) apply where the engine can.
        return LeakageSearch(_search_engine(settings), before=retrieval.search_before,
                             domains=tuple(retrieval.exclude_domains),
                             fact_checkers=retrieval.exclude_fact_checkers)
    raise ConfigError(f"unknown tool '{kind}'; use rag, search or none")


def _search_engine(settings: Settings) -> Tool:
    retrieval = settings.retrieval
    if retrieval.search == "tavily":
        from factdebate.tools.tavily import TavilyTool

        return TavilyTool()
    if retrieval.search == "wikipedia":
        from factdebate.tools.wikipedia import WikipediaTool

        return WikipediaTool(lang=retrieval.wikipedia_lang)
    from factdebate.tools.local_search import LocalSearchTool

    _ensure_builtin("local", settings)
    return LocalSearchTool(corpus=retrieval.corpus)


def _ensure_builtin(engine: str, settings: Settings) -> None:
    """The builtin corpus is indexed on first use, by whichever entry point gets there first."""

    retrieval = settings.retrieval
    if retrieval.corpus != BUILTIN_CORPUS:
        return
    from factdebate.corpus.builtin_index import ensure_builtin_indexed

    ensure_builtin_indexed(retrieval.milvus_uri, engines=(engine,), limit=retrieval.builtin_docs,
                           encoder=retrieval.encoder)


def _vectors(settings: Settings) -> Build:
    """The built-in corpus's vectors as these settings search them (corpus/vectors_later.py)."""
    from factdebate.corpus.milvus import default_milvus_uri
    from factdebate.corpus.vectors_later import Build

    retrieval = settings.retrieval
    return Build(retrieval.milvus_uri or default_milvus_uri(), retrieval.builtin_docs, retrieval.encoder)


def _pending_rag(settings: Settings) -> Tool | None:
    """With ``while_indexing: full_text`` and the vectors incomplete: the full-text index now, the vectors
    built in the background from the tool's first search and searched once built (tools/rag_pending.py); else
    None."""
    from factdebate.corpus import vectors_later

    if settings.retrieval.corpus != BUILTIN_CORPUS or settings.retrieval.while_indexing != "full_text":
        return None
    build = _vectors(settings)
    if vectors_later.ready(build):
        return None
    from factdebate.tools.rag_pending import PendingRagTool

    _ensure_builtin("local", settings)
    if build.encoder == "int8":
        from factdebate.embeddings.onnx import ensure_onnx_model

        # Here, before the claim (whose scores need it too), not in the child and the claim's scorer at once.
        ensure_onnx_model()
    return PendingRagTool(build, settings.retrieval.corpus)


def _mcp_tool(kind: str, settings: Settings) -> Tool:
    from factdebate.tools.mcp_client import MCPToolset
    from factdebate.tools.registry import mcp_tool
    from factdebate.tools.retrieval_toolset import ToolsetSearch

    found = mcp_tool(kind)
    if found is None or found[0] not in settings.mcp_servers:
        known = ", ".join(settings.mcp_servers) or "none configured"
        raise ConfigError(f"'{kind}' names no configured MCP server (mcp_servers: {known})")
    server, tool = found
    return ToolsetSearch(MCPToolset(server, settings.mcp_servers[server]), tool,
                         search_before=settings.retrieval.search_before)


def _scholar_tool(settings: Settings, llm: LLM | None) -> Tool:
    from factdebate.tools.scholar import ScholarPipeline

    if llm is None:
        raise ConfigError("medical.search needs the debater model to extract keywords and summarise abstracts")
    inner: Tool
    if settings.medical.search == "openalex":
        from factdebate.tools.openalex import OpenAlexTool

        inner = OpenAlexTool()
    else:
        from factdebate.tools.pubmed import PubMedTool

        inner = PubMedTool()
    return ScholarPipeline(inner, llm, abstracts=settings.medical.abstracts, summarize=settings.medical.summarize)


def default_encoder(settings: Settings) -> TextEncoder:
    """The process-wide embedder of ``retrieval.encoder``, which tools and scorers share."""
    from factdebate.embeddings import get_embedder

    return get_embedder(settings.retrieval.encoder)


def open_cache(path: Path) -> ResponseCache | None:
    """The response cache at ``path``, or None (with one warning) when the disk cannot hold it."""
    try:
        return ResponseCache(path)
    except (OSError, sqlite3.Error) as exc:
        reason = STORAGE.problem(exc)
        if reason is None:
            raise
        if STORAGE.failed(CACHE_PART, f"{path}: {reason}"):
            log.warning("the response cache %s cannot be opened (%s): running without it", path, reason)
        return None


def build_resources(settings: Settings, *, backends: dict[str, Backend] | None = None,
                    tool_factory: Callable[[str], Tool] | None = None,
                    encoder_factory: Callable[[], TextEncoder] | None = None,
                    cache_path: Path | None = None, services: Services | None = None,
                    endpoint: str | None = None, run: RunScope | None = None) -> Resources:
    """Models per role built on first ask (one backend per model), tools on first use, the response cache.
    ``backends``: role -> backend overrides (the debater's covers roles on its model). ``services``: shared
    long-lived services. ``endpoint``: the server to use. ``run``: the evaluation or batch, whose method state
    is started here."""
    backends = dict(backends or {})
    cache = None
    if settings.llm.cache:
        cache = open_cache(cache_path or data_dir() / "llm_cache.sqlite")
    by_key: dict[str, tuple[Backend, asyncio.Semaphore]] = {}
    retry = RetryPolicy(attempts=settings.llm.retries, budget=settings.llm.retry_budget)
    endpoint = endpoint or (settings.llm.base_urls[0] if settings.llm.base_urls else None)

    def llm(role: str) -> LLM:
        override = backends.get(role)
        if override is None and settings.llm_for(role) == settings.llm_for("debater"):
            override = backends.get("debater")
        key = f"override:{id(override)}" if override is not None else settings.llm_for(role)
        if key not in by_key:
            backend = override or make_backend(key, timeout=settings.llm.timeout, constrain=settings.llm.constrain,
                                               base_url=endpoint, reasoning_tokens=settings.llm.reasoning_tokens,
                                               stream=settings.llm.stream)
            by_key[key] = (backend, asyncio.Semaphore(settings.llm.concurrency or backend.max_parallel))
        backend, semaphore = by_key[key]
        return LLM(backend, role, retry=retry, cache=cache, semaphore=semaphore,
                   one_call_verdict=settings.llm.one_call_verdict, max_in_flight=settings.llm.max_in_flight,
                   model=settings.llm_for(role))

    from factdebate.tools.given import with_given_evidence

    # A batch or an evaluation (``run``) waits for the vectors: its verdicts all search alike.
    tools = with_given_evidence(settings.retrieval.evidence,
                                tool_factory or (lambda kind: make_tool(kind, settings, resources.debater,
                                                                        wait=run is not None)),
                                lambda: resources.encoder)
    resources = Resources(settings=settings, llm_factory=llm,
                          encoder_factory=encoder_factory or (lambda: default_encoder(settings)), tool_factory=tools,
                          services=services or Services(), run=run)

    async def close_backends() -> None:
        """The model clients built here (not the caller's overrides), closed on the loop that used them."""
        built = [backend for key, (backend, _) in by_key.items() if not key.startswith("override:")]
        by_key.clear()
        for backend in built:
            if (close := getattr(backend, "aclose", None)) is not None:
                await close()

    resources.closers.append(close_backends)
    method = Method.named(settings.method)
    # A missing key or model fails now, a model bound by the method's own settings (DPD's judge_llms) too.
    for role in ("debater", *method_class(settings.method).roles, *method.role_models(settings)):
        resources.llm(role)
    if run is None:
        method.preflight(settings)  # so does what would fail every claim (a bad file)
    else:
        start_run(resources)
    return resources


def start_run(resources: Resources, run: RunScope | None = None) -> dict[str, Any]:
    """The method's state for the run ``resources`` serve (``run`` moves them to it), started once per run."""
    if run is not None and resources.run != run:
        resources.run, resources.run_state = run, None
    if resources.run_state is None:
        resources.run_state = (Method.named(resources.settings.method).start_run(resources.settings, resources.run)
                               if resources.run is not None else {})
    return resources.run_state


def tools_needed(settings: Settings) -> set[str]:
    """The retrieval tools the configured method uses (the method says)."""
    return Method.named(settings.method).tools(settings)


def builtin_engines(settings: Settings) -> list[str]:
    """The builtin-corpus indexes the configured method opens, the local one first (seconds, not minutes)."""

    if settings.retrieval.corpus != BUILTIN_CORPUS:
        return []
    wanted = Method.named(settings.method).indexes(settings)
    return [engine for engine in ("local", "rag") if engine in wanted]


def ensure_indexes(settings: Settings, progress: bool = True, *, wait: bool = False) -> None:
    """Index the builtin corpus for the configured method if it is not yet (serve and mcp, at start-up); under
    ``while_indexing: full_text`` and not ``wait``, the vectors in the background."""
    engines = builtin_engines(settings)
    if "rag" in engines and not wait and _pending_rag(settings) is not None:
        engines = [engine for engine in engines if engine != "rag"]
    if engines:
        from factdebate.corpus.builtin_index import ensure_builtin_indexed

        ensure_builtin_indexed(settings.retrieval.milvus_uri, progress=progress, engines=engines,
                               limit=settings.retrieval.builtin_docs, encoder=settings.retrieval.encoder)
