"""The MCP server's tools: ``verify_claim``, ``search_evidence``, ``check_response`` and ``check_answer``.

This module imports most of factdebate (the tools' argument types are its settings and the guard's
contract), so :mod:`factdebate.server.mcp.server` imports it only after the handshake has been answered.
A tool call only picks among the options a request to the HTTP API may set; the models, the search
settings and the guard's caps are the operator's."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import to_json

from factdebate.engine import (
    CheckCall,
    Document,
    GivenEvidence,
    GuardOptions,
    GuardResult,
    Reply,
    ResourcePool,
    ResponseVerdict,
    RetrievalTool,
    Settings,
    Verdict,
    run_claim,
)
from factdebate.server.mcp.guard_host import McpHost, caller_of
from factdebate.server.mcp.prepare import Preparation
from factdebate.server.mcp.progress import reporting
from factdebate.server.mcp.results import (
    AnswerCheck,
    AnswerClaim,
    Caution,
    ClaimVerdict,
    Counts,
    Excerpt,
    Passage,
    Quote,
    ResponseCheck,
    ResponseClaim,
    Round,
    describe_errors,
)
from factdebate.server.options import SettingsResolver, VerifyOptions
from factdebate.server.tool_allowlist import check_allow_entry
from factdebate.util.errors import FactDebateError, InputError
from factdebate.util.textsafe import checked_tree

EXCERPT_CHARS = 400
MAX_QUERY_CHARS = 500
INDEX_WAIT_S = 3.0  # how long a tool waits for the index being prepared before saying so
TOOLS = ("verify_claim", "search_evidence", "check_response", "check_answer")
# Every tool only reads (nothing it does changes anything an agent could see) and reaches beyond the caller's
# data: models, the search engine, the web (MCP's readOnlyHint / openWorldHint).
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=True)


def _as_in(model: type[BaseModel], name: str) -> Any:
    """``model``'s field ``name`` as a tool's parameter: its type, bounds, choices and description, unset by
    default."""
    return Annotated[model.model_fields[name].annotation, FieldInfo.merge_field_infos(model.model_fields[name],
                                                                                      default=None)]


# A parameter a tool shares with the HTTP API is the API's own field, read from its request models when the SDK
# reads the tools' signatures, so that both ways in take, bound and describe an option alike. A type checker
# sees what each tool does with the value: hand it to those models, which check it.
if TYPE_CHECKING:
    MethodName = str | None
    Search = str | None
    Mode = str | None
    StartTier = str | None
    MaxTier = str | None
    Rounds = int | None
    K = int | None
    Agents = list[str] | None
    Evidence = list[dict[str, Any]] | None
    Deadline = float | None
else:
    MethodName, Agents, Rounds, Search, K = (_as_in(VerifyOptions, name)
                                             for name in ("method", "agents", "rounds", "search", "k"))
    Evidence, Mode = _as_in(GivenEvidence, "evidence"), _as_in(GivenEvidence, "evidence_mode")
    StartTier, MaxTier, Deadline = (_as_in(GuardOptions, name) for name in ("tier", "max_tier", "deadline_s"))


def _doc(doc: Document, chars: int = EXCERPT_CHARS) -> Excerpt:
    text = doc.text if len(doc.text) <= chars else doc.text[:chars] + "…"
    return {"title": doc.title, "source": doc.source, "text": text, "score": round(doc.score, 4)}


def _counts(verdict: Verdict | ResponseVerdict) -> Counts:
    return {"llm_calls": verdict.usage.llm_calls, "tool_calls": verdict.usage.tool_calls,
            "seconds": verdict.usage.seconds}


def _cautions(verdict: Verdict | ResponseVerdict | GuardResult) -> list[Caution]:
    return [{"code": w.code, "message": w.message, "model": w.model} for w in verdict.warnings]


def summarize(verdict: Verdict) -> ClaimVerdict:
    """What a chatbot needs to answer with: label, how it was reached, the reasons and the evidence."""
    rounds: list[Round] = []
    for rnd in verdict.rounds:
        rounds.append({"round": rnd.round, "turns": [
            {"agent": t.agent, "tool": t.tool, "query": t.query, "label": t.label, "answer": t.response,
             "faithfulness": t.faithfulness, "answer_relevance": t.answer_relevance,
             "evidence": [_doc(d) for d in t.evidence]} for t in rnd.turns]})
    return {"claim": verdict.claim, "label": verdict.label, "decided_by": verdict.decided_by,
            "reasons": verdict.reasons, "method": verdict.method, "rounds": rounds, "usage": _counts(verdict),
            "models": sorted(verdict.usage_by_model), "warnings": _cautions(verdict)}


def summarize_response(verdict: ResponseVerdict) -> ResponseCheck:
    claims: list[ResponseClaim] = [{"claim": c.claim, "label": c.label, "error": c.error,
                                    "span": None if c.span is None else {"start": c.span.start, "end": c.span.end},
                                    "span_note": c.span_note,
               "decided_by": c.verdict.decided_by if c.verdict else None,
               "reasons": c.verdict.reasons if c.verdict else ""} for c in verdict.claims]
    return {"label": verdict.label, "factual": verdict.factual, "decided_by": verdict.decided_by,
            "method": verdict.method, "claims_extracted": verdict.extraction.parsed, "claims": claims,
            "usage": _counts(verdict), "models": sorted(verdict.usage_by_model),
            "warnings": _cautions(verdict)}


def summarize_answer(result: GuardResult) -> AnswerCheck:
    """Per claim what an agent needs to fix its reply: where it says it (``span``: offsets into the reply),
    the label, the quotes it rests on and a correction; ``to_fix`` lists the refuted claims' indexes."""
    claims: list[AnswerClaim] = []
    for claim in result.claims:
        quotes: list[Quote] = []
        for evidence in claim.evidence:  # each with its stance toward the claim (GuardClaim.stance)
            quote: Quote = {"title": evidence.title, "url": evidence.url, "quote": evidence.quote,
                            "stance": claim.stance(evidence)}
            if evidence.injection:
                quote["injection"] = evidence.injection
            quotes.append(quote)
        span, correction = claim.span, claim.correction
        claims.append({"claim": claim.claim, "label": claim.label, "status": claim.status, "reason": claim.reason,
                       "span": None if span is None else {"start": span.start, "end": span.end},
                       "span_note": claim.span_note, "quotes": quotes,
                       "correction": correction.text if correction else None,
                       "correction_quote": correction.quote_source if correction else None,
                       "correction_note": claim.correction_note, "tier": claim.tier, "decided_by": claim.decided_by})
    return {"label": result.label, "degraded": result.degraded, "degraded_reason": result.degraded_reason,
            "to_fix": [i for i, c in enumerate(result.claims) if c.status == "checked" and c.label == "REFUTES"],
            "unchecked": [i for i, c in enumerate(result.claims) if c.status != "checked"],
            "claims": claims, "passed_through": result.passed_through, "tier": result.tier,
            "deadline_s": result.deadline_s, "usage": {
                "model_calls": result.usage.model_calls, "cached_calls": result.usage.cached_calls,
                "tool_calls": result.usage.tool_calls, "seconds": result.usage.seconds},
            "models": result.models, "warnings": _cautions(result)}


# What a tier costs, measured on a one-claim reply with the scripted models (docs/service.md): the fast tier's
# check with the extraction and the correction, then what one round of the guard's method (tool-mad) adds; deep's
# figure is a refuted claim checked with a real model.
TIER_COSTS = ("fast: 1 model call per claim (a one-claim check, extraction and correction included: 4 calls); "
              "standard: one debate round of the guard's method (15 calls for that check, seconds); deep: the full "
              "method (about 40 calls for one refuted claim, the longest wait).")


def _passages_result(passages: list[Passage], note: str) -> CallToolResult:
    """``search_evidence``'s result as the SDK would make it from the list (``{"result": [...]}``, a text block per
    passage), except that a search that found nothing still says how it searched: the note rides on each
    passage, so with none the text a client reads is the note itself (an empty answer from the full-text
    index while the vectors build says nothing, and reads as "the vector search found nothing")."""
    blocks = [TextContent(type="text", text=to_json(p, indent=2).decode()) for p in passages]
    if not passages and note:
        blocks = [TextContent(type="text", text=f"No passages found; {note}.")]
    return CallToolResult(content=list(blocks), structured_content={"result": passages})


async def _index_ready(index: Preparation, needed: bool, wait_s: float | None = None) -> None:
    """Raise the tool's error while the index it needs is being prepared (after ``wait_s``, by default
    :data:`INDEX_WAIT_S`) or failed."""
    if not needed or (index.ready and index.error is None):
        return
    if not await index.wait(INDEX_WAIT_S if wait_s is None else wait_s):
        raise ToolError(index.not_ready())
    if index.error is not None:
        raise ToolError(index.failed())


async def _search_now(index: Preparation, settings: Settings, tool: str) -> tuple[str, Settings, str]:
    """What ``search_evidence`` searches with now: the tool asked for once what it needs is ready, and while the
    built-in corpus's vectors are built, the full-text index (the local search: ready in seconds) in their stead,
    with a note saying so; an error while neither is ready, or the preparation failed."""
    if not ResourcePool.needs_builtin(settings, {tool}) or (index.ready and index.error is None):
        return tool, settings, ""
    if tool == "search":  # the local search: the full-text index is all it needs
        if await index.wait_full_text(INDEX_WAIT_S):
            return tool, settings, ""
    elif await index.wait_full_text(INDEX_WAIT_S) and not index.ready:
        local = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"search": "local"})})
        return "search", local, (f"answered from the full-text index (ranked by words, not meaning) while "
                                 f"{index.progress()}; ask again later for the vector search")
    await _index_ready(index, True)
    return tool, settings, ""


async def _answer_tiers_now(index: Preparation, settings: Settings, max_tier: str, given_only: bool,
                            wait_s: float) -> str:
    """What ``check_answer`` may run now over the built-in corpus (``max_tier`` the check's, ``given_only`` when it
    reads only the caller's passages): "" for the check as asked, else a note saying it is held to the fast tier; an
    error while not even that can run. The fast tier searches only the configured search engine
    (guard_engine/fast.py), over the built-in corpus the full-text index, ready in seconds; the standard and deep
    tiers' method searches the vectors too, which take about 20 minutes to build on a fresh install, where the
    full-text index is ready in about a second: held to the fast tier, a check answers meanwhile."""
    if given_only or not ResourcePool.needs_builtin(settings, {"rag", "search"}) \
            or (index.ready and index.error is None):
        return ""
    fast_needs_text = ResourcePool.needs_builtin(settings, {"search"})
    if max_tier == "fast":  # all the check asks for: the full-text index (if that)
        if fast_needs_text and not await index.wait_full_text(wait_s):
            raise ToolError(index.failed() if index.error is not None else index.not_ready())
        return ""
    if await index.wait(wait_s) and index.error is None:
        return ""
    if fast_needs_text and not index.full_text.is_set():
        raise ToolError(index.failed() if index.error is not None else index.not_ready())
    why = index.failed() if index.error is not None else f"while {index.progress()}"
    return (f"checked at the fast tier only (its model call over the full-text search; a claim not "
            f"supported did not climb to '{max_tier}') {why}; ask again later for the tiers above it")


def prepare_indexes(settings: Settings, pool: ResourcePool, index: Preparation) -> None:
    """The background work: the built-in indexes the configured method searches, built if missing, then this
    process's searches over them opened (each process searches its own copy of a Milvus Lite folder: Milvus
    Lite serves one process at a time, docs/service.md). Until they are ready the tools say how far it is, and
    serve the full-text index on its own once it is there (the fast tier). The builds run at a lower priority
    (scale/builtin_indexes.py), the opening of the searches at the server's own."""
    pool.prepare_builtin(settings, index.follow, index.full_text.set)


@contextlib.contextmanager
def _tool_errors() -> Iterator[None]:
    """The one mapping of a tool's failures to what its caller reads: an argument the options refuse as
    ``invalid arguments: field: problem``, the library's own errors in their words (the server scrubs both)."""
    try:
        yield
    except ValidationError as exc:
        raise ToolError(f"invalid arguments: {describe_errors(exc)}") from exc
    except FactDebateError as exc:
        raise ToolError(str(exc)) from exc


DESCRIPTIONS = {
    "verify_claim": "Verify one factual claim by a debate between agents that retrieve evidence. Returns the label "
                    "(SUPPORTS, REFUTES, NOT ENOUGH INFO), whether agents agreed or a judge decided, the reasons, "
                    "and each round's queries and evidence.",
    "search_evidence": "Search for evidence passages about a query, judging nothing. tool='search' uses the "
                       "configured search engine, tool='rag' the vector database over the indexed corpus.",
    "check_response": "Check a long answer claim by claim with the full method (no deadline): it is split into "
                      "atomic claims, each is verified, and the answer is false if any claim is false. Returns the "
                      "answer's label and each claim's label, span and reasons. For a fast check with quotes and "
                      "corrections within a deadline, use check_answer.",
    "check_answer": "Check your reply before sending it. Give the reply (and the passages you used as evidence, if "
                    "any); get back each factual claim with its label (SUPPORTS, REFUTES, NOT ENOUGH INFO), its "
                    "span (character offsets in the reply), the evidence quotes it rests on and, for a refuted "
                    "claim, a correction grounded in a quote. to_fix lists the claims to rewrite. tier: where each "
                    "claim starts; a claim not SUPPORTED climbs to the next tier, up to max_tier. What each costs "
                    "per claim: " + TIER_COSTS + " max_tier caps the climb (the cost), within the operator's "
                    "guard.max_tier (while a fresh install builds its vector index, checks run at the fast tier "
                    "only, which note says); deadline_s: seconds for the whole check (claims not decided by then "
                    "are unchecked), within the operator's cap. conversation: the messages before your reply "
                    "({role, content}, optional), so that a short answer or a follow-up is read in its context.",
}


class Tools:
    """The four tools over the operator's settings (``resolver``), the shared models and searches
    (``resources``) and the built-in index's preparation (``prepared``); each method is one tool."""

    def __init__(self, resolver: SettingsResolver, resources: ResourcePool, prepared: Preparation) -> None:
        self.resolver = resolver
        self.resources = resources
        self.prepared = prepared

    async def verify_claim(self, claim: str, context: Context, method: MethodName = None, agents: Agents = None,
                           rounds: Rounds = None, search: Search = None, k: K = None,
                           evidence: Evidence = None, evidence_mode: Mode = None) -> ClaimVerdict:
        with _tool_errors():
            options = VerifyOptions.model_validate(
                {"method": method, "agents": agents, "rounds": rounds, "search": search, "k": k})
            given_evidence = GivenEvidence.model_validate({"evidence": evidence, "evidence_mode": evidence_mode})
            settings, given = given_evidence.applied(self.resolver.resolve(options))
            text = settings.checked_claim(claim)
            await _index_ready(self.prepared, self.resources.needs_builtin(settings))
            async with reporting(context, "verifying the claim") as progress:
                verdict = await run_claim(text, settings, self.resources.get(settings), sinks=[progress], given=given)
        return summarize(verdict)

    async def search_evidence(self, query: str, k: int = 5,
                              tool: RetrievalTool = "search") -> Annotated[CallToolResult, list[Passage]]:
        if not query.strip():
            raise ToolError("the query is empty")
        try:
            checked_tree(query, what="query", limit=MAX_QUERY_CHARS)  # clean text, and short
        except InputError as exc:
            raise ToolError(str(exc)) from None
        if not 1 <= k <= 20:
            raise ToolError("k must be between 1 and 20")
        with _tool_errors():
            self.resolver.check_tools({"tool": tool})  # before anything starts: the same allow-list as verify_claim
            kind, searched, note = await _search_now(self.prepared, self.resolver.base, tool)
            engine = await asyncio.to_thread(self.resources.tool, kind, searched)
            documents = await engine.search(query.strip(), k)
        passages: list[Passage] = [{**_doc(d, 2000), "id": d.id, "tool": engine.name} for d in documents]
        for passage in passages if note else []:
            passage["note"] = note
        return _passages_result(passages, note)

    async def check_response(self, response: str, context: Context, question: str | None = None,
                             method: MethodName = None, k: K = None, evidence: Evidence = None,
                             evidence_mode: Mode = None) -> ResponseCheck:
        with _tool_errors():
            options = VerifyOptions.model_validate({"method": method, "k": k})
            given_evidence = GivenEvidence.model_validate({"evidence": evidence, "evidence_mode": evidence_mode})
            settings, given = given_evidence.applied(self.resolver.resolve(options))
            text, asked = settings.response.checked_answer(response, question)
            await _index_ready(self.prepared, self.resources.needs_builtin(settings))
            # The guard's one call, as check_answer makes it (guard_engine/call.py): the model cache scoped to the
            # API key that calls, the operator's addresses hidden in a failure's message.
            host = McpHost(self.resolver, self.resources, caller_of(context), settings=settings)
            async with reporting(context, "extracting the claims") as progress:
                verdict = await CheckCall((), GuardOptions(), asked).check_response(text, host, sinks=[progress],
                                                                                    given=given)
        return summarize_response(verdict)

    async def check_answer(self, answer: str, context: Context, question: str | None = None,
                           evidence: Evidence = None, evidence_mode: Mode = None, tier: StartTier = None,
                           max_tier: MaxTier = None, deadline_s: Deadline = None,
                           conversation: list[dict[str, Any]] | None = None) -> AnswerCheck:
        started = time.monotonic()
        with _tool_errors():
            options = GuardOptions.model_validate({"evidence": evidence, "evidence_mode": evidence_mode,
                                                   "tier": tier, "max_tier": max_tier, "deadline_s": deadline_s,
                                                   "policy": "annotate"})
            settings = self.resolver.base
            resolved = options.resolve(settings)  # the operator's caps: a refusal before any wait
            held = await _answer_tiers_now(self.prepared, settings, resolved.max_tier,
                                           resolved.evidence_mode == "given", min(INDEX_WAIT_S, resolved.deadline_s))
            left = resolved.deadline_s - (time.monotonic() - started)  # the wait counts against the deadline
            options = options.model_copy(update={"deadline_s": max(0.1, left)}
                                         | ({"tier": "fast", "max_tier": "fast"} if held else {}))
            # The guard's one call, as every door makes it (guard_engine/call.py): the caller's cache scope, the
            # operator's addresses hidden in the result and in a failure's message; the conversation before the
            # answer, when the agent gives it, is what the answer is read in (guard_engine/window.py).
            host = McpHost(self.resolver, self.resources, caller_of(context))
            async with reporting(context, "checking the reply"):  # seconds elapsed, every second
                call = CheckCall(conversation or (), options, question)
                [result] = await call.check_replies([Reply(answer)], host)
        summary = summarize_answer(result)
        summary["deadline_s"] = resolved.deadline_s  # the deadline that applied (the check ran on what was left)
        if held:
            summary["note"] = held
        return summary


def register_tools(server: MCPServer, config_file: str | Path | None = None, pool: ResourcePool | None = None,
                   allowed_mcp_tools: list[str] | None = None, index: Preparation | None = None) -> SettingsResolver:
    """Add the four tools to ``server``; the resolver of the operator's settings they use. ``index``: the
    preparation tools that search the built-in corpus wait for (none: ready)."""
    resolver = SettingsResolver({}, config_file, allowed_llms=[],
                                allowed_mcp_tools=[check_allow_entry(entry) for entry in allowed_mcp_tools or []])
    resources = pool if pool is not None else ResourcePool(size=4)  # an empty pool is falsy (it has a length)
    tools = Tools(resolver, resources, index or Preparation.finished())
    for name in TOOLS:
        server.add_tool(getattr(tools, name), annotations=READ_ONLY, description=DESCRIPTIONS[name])
    return resolver
