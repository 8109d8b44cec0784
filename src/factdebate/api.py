"""The Python API: ``verify(claim, **options)`` and its async twin, plus the builders the CLI, the service
and the evaluation harness share."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factdebate.config import Settings, load_settings
from factdebate.errors import ConfigError, InputError
from factdebate.llm import LLM, RetryPolicy, make_backend
from factdebate.llm.base import Backend
from factdebate.llm.cache import ResponseCache
from factdebate.methods import Resources, get_method
from factdebate.paths import data_dir
from factdebate.redact import redact_value
from factdebate.runtime import EventSink, JsonlTraceWriter, RunRecorder, recording
from factdebate.scoring.relevance import TextEncoder
from factdebate.textsafe import unsafe_reason
from factdebate.tools.base import Tool
from factdebate.types import Verdict

# Flat keyword options accepted by verify() and the CLI, mapped onto the nested settings.
OPTION_PATHS: dict[str, tuple[str, ...]] = {
    "method": ("method",),
    "llm": ("llm", "debater"),
    "judge_llm": ("llm", "judge"),
    "scorer_llm": ("llm", "scorer"),
    "temperature": ("llm", "temperature"),
    "cache": ("llm", "cache"),
    "rounds": ("toolmad", "rounds"),
    "k": ("toolmad", "k"),
    "agents": ("toolmad", "agents"),
    "faithfulness_threshold": ("toolmad", "faithfulness_threshold"),
    "relevance_threshold": ("toolmad", "relevance_threshold"),
    "threshold_on": ("toolmad", "threshold_on"),
    "query_formulation": ("toolmad", "query_formulation"),
    "scoring": ("toolmad", "scoring"),
    "scoring_variant": ("toolmad", "scoring_variant"),
    "search": ("retrieval", "search"),
    "corpus": ("retrieval", "corpus"),
    "milvus_uri": ("retrieval", "milvus_uri"),
    "max_claim_chars": ("max_claim_chars",),
    "concurrency": ("concurrency",),
    "react_max_steps": ("baselines", "react_max_steps"),
    "mad_rounds": ("baselines", "mad_rounds"),
    "madke_tools": ("baselines", "madke_tools"),
    "vote_samples": ("baselines", "vote_samples"),
    "vote_temperature": ("baselines", "vote_temperature"),
    "medical_search": ("medical", "search"),
    "medical_abstracts": ("medical", "abstracts"),
    "medical_summarize": ("medical", "summarize"),
}


def options_to_overrides(options: dict[str, Any]) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for key, value in options.items():
        if key not in OPTION_PATHS:
            raise ConfigError(f"unknown option '{key}'; known: {', '.join(sorted(OPTION_PATHS))}")
        if value is None:
            continue
        target = overrides
        path = OPTION_PATHS[key]
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = value
    return overrides


def settings_from(options: dict[str, Any], config_file: str | Path | None = None) -> Settings:
    return load_settings(config_file, options_to_overrides(options))


def validate_claim(claim: str, settings: Settings) -> str:
    if not isinstance(claim, str):
        raise InputError(f"the claim must be text, not {type(claim).__name__}")
    text = claim.strip()
    if not text:
        raise InputError("the claim is empty: give a sentence to check")
    if reason := unsafe_reason(text):
        raise InputError(f"the claim cannot be checked: {reason}")
    if len(text) > settings.max_claim_chars:
        raise InputError(f"the claim is {len(text)} characters long; the limit is {settings.max_claim_chars} "
                         "(set max_claim_chars to change it)")
    return text


def public_config(settings: Settings) -> dict[str, Any]:
    """The settings as a record shows them: URLs (a Milvus URI, say) without their credentials."""
    return dict(redact_value(settings.model_dump(mode="json")))


def make_tool(kind: str, settings: Settings, llm: LLM | None = None) -> Tool:
    """``rag``: Milvus over the configured corpus; ``search``: the configured search engine, or with
    ``medical.search`` set, the scholarly pipeline (keywords -> abstracts -> summaries written by ``llm``);
    ``mcp:<server>/<tool>``: that tool of a configured MCP server, opened on first search."""
    retrieval = settings.retrieval
    if kind.startswith("mcp:"):
        return _mcp_tool(kind, settings)
    if kind == "search" and settings.medical.search != "default":
        return _scholar_tool(settings, llm)
    if kind == "rag":
        from factdebate.tools.rag import RagTool

        _ensure_builtin("rag", settings)
        return RagTool(corpus=retrieval.corpus, milvus_uri=retrieval.milvus_uri, encoder=retrieval.encoder)
    if kind == "search":
        if retrieval.search == "tavily":
            from factdebate.tools.tavily import TavilyTool

            return TavilyTool()
        if retrieval.search == "wikipedia":
            from factdebate.tools.wikipedia import WikipediaTool

            return WikipediaTool(lang=retrieval.wikipedia_lang)
        from factdebate.tools.lexical import LocalSearchTool

        _ensure_builtin("local", settings)
        return LocalSearchTool(corpus=retrieval.corpus)
    raise ConfigError(f"unknown tool '{kind}'; use rag, search or none")


def _ensure_builtin(engine: str, settings: Settings) -> None:
    """The builtin corpus is indexed on first use, by whichever entry point gets there first."""
    from factdebate.corpus.builtin import BUILTIN_CORPUS

    retrieval = settings.retrieval
    if retrieval.corpus != BUILTIN_CORPUS:
        return
    from factdebate.corpus.builtin_index import ensure_builtin_indexed

    ensure_builtin_indexed(retrieval.milvus_uri, engines=(engine,), limit=retrieval.builtin_docs,
                           encoder=retrieval.encoder)


def _mcp_tool(kind: str, settings: Settings) -> Tool:
    from factdebate.tools.mcp_client import MCPToolset
    from factdebate.tools.registry import mcp_tool
    from factdebate.tools.retrieval_toolset import ToolsetSearch

    found = mcp_tool(kind)
    if found is None or found[0] not in settings.mcp_servers:
        known = ", ".join(settings.mcp_servers) or "none configured"
        raise ConfigError(f"'{kind}' names no configured MCP server (mcp_servers: {known})")
    server, tool = found
    return ToolsetSearch(MCPToolset(server, settings.mcp_servers[server]), tool)


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


def default_encoder() -> TextEncoder:
    from factdebate.embeddings import get_embedder

    return get_embedder()


def build_resources(settings: Settings, *, backends: dict[str, Backend] | None = None,
                    tool_factory: Callable[[str], Tool] | None = None,
                    encoder_factory: Callable[[], TextEncoder] | None = None,
                    cache_path: Path | None = None) -> Resources:
    """Models per role (roles naming the same model share one backend and its concurrency limit), tools
    built on first use, the shared response cache. ``backends`` maps role -> backend to override."""
    backends = dict(backends or {})
    cache = None
    if settings.llm.cache:
        cache = ResponseCache(cache_path or data_dir() / "llm_cache.sqlite")
    by_spec: dict[str, tuple[Backend, asyncio.Semaphore]] = {}
    retry = RetryPolicy(attempts=settings.llm.retries, budget=settings.llm.retry_budget)
    llms: dict[str, LLM] = {}
    for role in ("debater", "judge", "scorer"):
        if role in backends:
            backend = backends[role]
            key = f"override:{id(backend)}"
        else:
            key = settings.llm_for(role)
        if key not in by_spec:
            backend = backends.get(role) or make_backend(key, timeout=settings.llm.timeout,
                                                               constrain=settings.llm.constrain)
            limit = settings.llm.concurrency or backend.max_parallel
            by_spec[key] = (backend, asyncio.Semaphore(limit))
        backend, semaphore = by_spec[key]
        llms[role] = LLM(backend, role, retry=retry, cache=cache, semaphore=semaphore,
                         one_call_verdict=settings.llm.one_call_verdict)
    return Resources(settings=settings, debater=llms["debater"], judge=llms["judge"], scorer=llms["scorer"],
                     encoder_factory=encoder_factory or default_encoder,
                     tool_factory=tool_factory or (lambda kind: make_tool(kind, settings, llms["debater"])))


def tools_needed(settings: Settings) -> set[str]:
    """The retrieval tools the configured method uses."""
    agents = {str(kind) for kind in settings.toolmad.agents} - {"none"}
    needed: dict[str, set[str]] = {"tool-mad": agents, "vote": agents, "react": {"rag"},
                                   "madke": set(settings.baselines.madke_tools)}
    return needed.get(settings.method, set())


def builtin_engines(settings: Settings) -> list[str]:
    """The builtin-corpus indexes the configured method searches (none when another corpus is chosen)."""
    from factdebate.corpus.builtin import BUILTIN_CORPUS

    if settings.retrieval.corpus != BUILTIN_CORPUS:
        return []
    kinds = tools_needed(settings)
    engines = []
    if "search" in kinds and settings.retrieval.search == "local" and settings.medical.search == "default":
        engines.append("local")  # first: seconds, where the embeddings take minutes
    if "rag" in kinds:
        engines.append("rag")
    return engines


def ensure_indexes(settings: Settings, progress: bool = True) -> None:
    """Index the builtin corpus for the configured method if it is not yet (what serve and mcp call at
    start-up, so the first request does not wait minutes)."""
    engines = builtin_engines(settings)
    if engines:
        from factdebate.corpus.builtin_index import ensure_builtin_indexed

        ensure_builtin_indexed(settings.retrieval.milvus_uri, progress=progress, engines=engines,
                               limit=settings.retrieval.builtin_docs, encoder=settings.retrieval.encoder)


def _prepare_tools(settings: Settings, resources: Resources) -> None:
    """Build every tool the method will need before spending any LLM call, so a missing key or index is
    reported at once. Building a real retrieval tool indexes the builtin corpus if needed (make_tool); the
    search tool goes first, because its index takes seconds where the vectors take minutes."""
    for kind in sorted(tools_needed(settings), key=lambda kind: (kind == "rag", kind)):
        resources.tool(kind)


async def run_claim(claim: str, settings: Settings, resources: Resources, *,
                    sinks: list[EventSink] | None = None) -> Verdict:
    """Verify one claim with already-built resources (what batch runs and the service call)."""
    claim = validate_claim(claim, settings)
    method = get_method(settings.method)
    await asyncio.to_thread(_prepare_tools, settings, resources)
    recorder = RunRecorder(sinks, run_id=uuid.uuid4().hex[:12])
    with recording(recorder):
        recorder.emit("run_started", claim=claim, method=settings.method)
        verdict = await method.run(claim, resources)
        verdict.usage = recorder.total()
        verdict.usage_by_role = recorder.usage_by_role
        verdict.config = public_config(settings)
        recorder.emit("run_finished", label=verdict.label, decided_by=verdict.decided_by,
                      usage=verdict.usage.model_dump())
    return verdict


async def averify(claim: str, *, config_file: str | Path | None = None, trace: str | Path | None = None,
                  on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
                  **options: Any) -> Verdict:
    """Check ``claim``; keyword options are the CLI's (``llm=``, ``rounds=``, ``search=``...)."""
    settings = settings_from(options, config_file)
    resources = build_resources(settings, backends=backends)
    sinks: list[EventSink] = [on_event] if on_event else []
    writer = JsonlTraceWriter(trace) if trace else None
    if writer:
        sinks.append(writer)
    try:
        return await run_claim(claim, settings, resources, sinks=sinks)
    finally:
        if writer:
            writer.close()


def verify(claim: str, **options: Any) -> Verdict:
    """Synchronous :func:`averify`."""
    return asyncio.run(averify(claim, **options))
