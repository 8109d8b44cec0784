"""The Python API: ``verify(claim, **options)`` and its async twin, plus the builders the CLI, the service
and the evaluation harness share."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from factdebate.config import Settings, load_settings
from factdebate.errors import ConfigError, InputError
from factdebate.events import RunFinished, RunStarted
from factdebate.llm import LLM, RetryPolicy, make_backend
from factdebate.llm.base import Backend
from factdebate.llm.cache import ResponseCache
from factdebate.options import options_to_overrides
from factdebate.paths import data_dir
from factdebate.plugins import get_method, method_class
from factdebate.redact import redact_settings
from factdebate.resources import Resources, Services
from factdebate.runtime import EventSink, RunRecorder, recording, trace_file
from factdebate.scoring.relevance import TextEncoder
from factdebate.textsafe import checked_input
from factdebate.tools.base import Tool
from factdebate.types import Verdict


def settings_from(options: dict[str, Any], config_file: str | Path | None = None) -> Settings:
    return load_settings(config_file, options_to_overrides(options))


def validate_claim(claim: str, settings: Settings) -> str:
    return checked_input(claim, what="claim", empty="give a sentence to check", limit=settings.max_claim_chars,
                         setting="max_claim_chars")


def public_config(settings: Settings) -> dict[str, Any]:
    """The settings as a record shows them: URLs (a Milvus URI, say) without their credentials, MCP servers
    without their environment values and secret arguments. The service shows callers less still
    (``server.options.caller_config``)."""
    return redact_settings(settings.model_dump(mode="json"))


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
    from factdebate.tools.lexical import LocalSearchTool

    _ensure_builtin("local", settings)
    return LocalSearchTool(corpus=retrieval.corpus)


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


def default_encoder() -> TextEncoder:
    from factdebate.embeddings import get_embedder

    return get_embedder()


def build_resources(settings: Settings, *, backends: dict[str, Backend] | None = None,
                    tool_factory: Callable[[str], Tool] | None = None,
                    encoder_factory: Callable[[], TextEncoder] | None = None,
                    cache_path: Path | None = None, services: Services | None = None,
                    endpoint: str | None = None) -> Resources:
    """Models per role, built when a role is first asked for (roles naming the same model share one backend
    and its concurrency limit), tools built on first use, the shared response cache. ``backends`` maps
    role -> backend to override; a role without an override that uses the debater's model uses the
    debater's override. ``services`` lets several resources share long-lived services (the server).
    ``endpoint``: the OpenAI-compatible server to use (default: the first of ``llm.base_urls``, if any)."""
    backends = dict(backends or {})
    cache = None
    if settings.llm.cache:
        cache = ResponseCache(cache_path or data_dir() / "llm_cache.sqlite")
    by_key: dict[str, tuple[Backend, asyncio.Semaphore]] = {}
    retry = RetryPolicy(attempts=settings.llm.retries, budget=settings.llm.retry_budget)
    endpoint = endpoint or (settings.llm.base_urls[0] if settings.llm.base_urls else None)

    def llm(role: str) -> LLM:
        override = backends.get(role)
        if override is None and settings.llm_for(role) == settings.llm_for("debater"):
            override = backends.get("debater")
        key = f"override:{id(override)}" if override is not None else settings.llm_for(role)
        if key not in by_key:
            backend = override or make_backend(key, timeout=settings.llm.timeout,
                                                   constrain=settings.llm.constrain, base_url=endpoint)
            by_key[key] = (backend, asyncio.Semaphore(settings.llm.concurrency or backend.max_parallel))
        backend, semaphore = by_key[key]
        return LLM(backend, role, retry=retry, cache=cache, semaphore=semaphore,
                   one_call_verdict=settings.llm.one_call_verdict, max_in_flight=settings.llm.max_in_flight)

    from factdebate.tools.given import with_given_evidence

    tools = with_given_evidence(settings.retrieval.evidence,
                                tool_factory or (lambda kind: make_tool(kind, settings, resources.debater)),
                                lambda: resources.encoder)
    resources = Resources(settings=settings, llm_factory=llm, encoder_factory=encoder_factory or default_encoder,
                          tool_factory=tools, services=services or Services())
    for role in ("debater", *method_class(settings.method).roles):  # a missing key or model fails now
        resources.llm(role)
    get_method(settings.method).preflight(settings)  # so does what would fail every claim (a bad file)
    return resources


def tools_needed(settings: Settings) -> set[str]:
    """The retrieval tools the configured method uses (the method says)."""
    return get_method(settings.method).tools(settings)


def builtin_engines(settings: Settings) -> list[str]:
    """The builtin-corpus indexes the configured method opens (the method says; none when another corpus
    is chosen), the local one first: seconds, where the embeddings take minutes."""
    from factdebate.corpus.builtin import BUILTIN_CORPUS

    if settings.retrieval.corpus != BUILTIN_CORPUS:
        return []
    wanted = get_method(settings.method).indexes(settings)
    return [engine for engine in ("local", "rag") if engine in wanted]


def ensure_indexes(settings: Settings, progress: bool = True) -> None:
    """Index the builtin corpus for the configured method if it is not yet (what serve and mcp call at
    start-up, so the first request does not wait minutes)."""
    engines = builtin_engines(settings)
    if engines:
        from factdebate.corpus.builtin_index import ensure_builtin_indexed

        ensure_builtin_indexed(settings.retrieval.milvus_uri, progress=progress, engines=engines,
                               limit=settings.retrieval.builtin_docs, encoder=settings.retrieval.encoder)


def prepare(settings: Settings, resources: Resources) -> None:
    """Everything the method needs before spending any LLM call, so a missing key or index is reported at
    once: the method's own checks (Method.check), then every tool it names. Building a real retrieval tool
    indexes the builtin corpus if needed (make_tool); the search tool goes first, because its index takes
    seconds where the vectors take minutes. Batches and evaluations call it once before their first claim."""
    get_method(settings.method).check(settings)
    for kind in sorted(tools_needed(settings), key=lambda kind: (kind == "rag", kind)):
        resources.tool(kind)


async def _with_inline_evidence(claim: str, tools: set[str], settings: Settings, resources: Resources) -> str:
    """Methods that search nothing read the evidence given with the claim in the claim itself (the ``k``
    passages most similar to it); methods with tools get it from their tools (tools/given.py)."""
    from factdebate.tools.given import current_evidence, evidence_block, top_k

    evidence = current_evidence()
    if settings.retrieval.evidence == "retrieved":
        return claim
    if evidence is None and settings.retrieval.evidence == "given":
        raise InputError("evidence 'given': no evidence came with this claim; use it with eval on a dataset that "
                         "provides evidence (factdebate datasets), or pass given_evidence= to verify()")
    if tools or not evidence:
        return claim
    chosen = await top_k(claim, evidence, settings.retrieval.k, resources.encoder)
    return claim + evidence_block(chosen, settings.retrieval.max_doc_chars)


async def run_claim(claim: str, settings: Settings, resources: Resources, *,
                    sinks: list[EventSink] | None = None) -> Verdict:
    """Verify one claim with already-built resources (what batch runs and the service call)."""
    claim = validate_claim(claim, settings)
    method = get_method(settings.method)
    await asyncio.to_thread(prepare, settings, resources)
    recorder = RunRecorder(sinks, run_id=uuid.uuid4().hex[:12])
    with recording(recorder):
        recorder.emit(RunStarted(claim=claim, method=settings.method))
        verdict = await method.run(await _with_inline_evidence(claim, method.tools(settings), settings, resources),
                                   resources)
        verdict.claim = claim
        verdict.usage = recorder.total()
        verdict.usage_by_role = recorder.usage_by_role
        verdict.config = public_config(settings)
        recorder.emit(RunFinished(label=verdict.label, decided_by=verdict.decided_by,
                                  usage=verdict.usage.model_dump()))
    return verdict


async def averify(claim: str, *, config_file: str | Path | None = None, trace: str | Path | None = None,
                  on_event: EventSink | None = None, backends: dict[str, Backend] | None = None,
                  given_evidence: list[Any] | None = None, **options: Any) -> Verdict:
    """Check ``claim``; keyword options are the CLI's (``llm=``, ``rounds=``, ``search=``...).
    ``given_evidence`` (texts, or dicts with text/title/source) comes with the claim; agents read it
    (``evidence="given"``, the default when it is passed, or ``"both"``)."""
    from factdebate.tools.given import documents_from
    from factdebate.tools.given import given_evidence as with_evidence

    if given_evidence is not None:
        options.setdefault("evidence", "given")

    settings = settings_from(options, config_file)
    async with session(settings, backends, on_event, trace) as (resources, sinks):
        with with_evidence(documents_from(given_evidence) if given_evidence is not None else None):
            return await run_claim(claim, settings, resources, sinks=sinks)


@asynccontextmanager
async def session(settings: Settings, backends: dict[str, Backend] | None, on_event: EventSink | None,
                  trace: str | Path | None) -> AsyncIterator[tuple[Resources, list[EventSink]]]:
    """The resources of one API call, open, with its event sinks (the caller's and a JSONL trace file)."""
    resources = build_resources(settings, backends=backends)
    with trace_file(trace) as traced:
        async with resources:
            yield resources, [*([on_event] if on_event else []), *traced]


def verify(claim: str, **options: Any) -> Verdict:
    """Synchronous :func:`averify`."""
    return asyncio.run(averify(claim, **options))
