"""MCP server over stdio: a chatbot calls ``verify_claim`` and ``search_evidence`` as tools.

Run with ``factdebate mcp`` or ``python -m factdebate.server.mcp_server``. The models and the search
settings are the operator's (``--config`` / environment, as for ``factdebate verify``); a tool call only
picks among the options a request to the HTTP API may set. Nothing may be written to stdout but protocol
messages, so logs go to stderr."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from factdebate.core.errors import FactDebateError
from factdebate.core.textsafe import unsafe_reason
from factdebate.core.types import Document, ResponseVerdict, Verdict
from factdebate.guard.types import EvidenceMode, GuardEvidence
from factdebate.run.claim import run_claim, validate_claim
from factdebate.server.evidence import EvidenceChoice, with_evidence
from factdebate.server.options import SettingsResolver, VerifyOptions
from factdebate.server.resources import ResourcePool
from factdebate.server.tool_allowlist import check_allow_entry
from factdebate.tools.given import given_evidence
from factdebate.tools.registry import AgentTool, RetrievalTool, SearchEngine

EXCERPT_CHARS = 400
MAX_QUERY_CHARS = 500
INSTRUCTIONS = ("Check factual claims. verify_claim runs a debate between retrieval agents and returns a label "
                "(SUPPORTS, REFUTES or NOT ENOUGH INFO) with the evidence and reasoning; search_evidence "
                "returns passages for a query without judging anything; check_response checks a long answer claim by "
                "claim. verify_claim and check_response take the passages you already have as evidence "
                "([{title, text, url}]), read before (evidence_mode both) or instead of (given) retrieval.")


def _doc(doc: Document, chars: int = EXCERPT_CHARS) -> dict[str, Any]:
    text = doc.text if len(doc.text) <= chars else doc.text[:chars] + "…"
    return {"title": doc.title, "source": doc.source, "text": text, "score": round(doc.score, 4)}


def summarize(verdict: Verdict) -> dict[str, Any]:
    """What a chatbot needs to answer with: label, how it was reached, the reasons and the evidence."""
    rounds = []
    for rnd in verdict.rounds:
        rounds.append({"round": rnd.round, "turns": [
            {"agent": t.agent, "tool": t.tool, "query": t.query, "label": t.label, "answer": t.response,
             "faithfulness": t.faithfulness, "answer_relevance": t.answer_relevance,
             "evidence": [_doc(d) for d in t.evidence]} for t in rnd.turns]})
    return {"claim": verdict.claim, "label": verdict.label, "decided_by": verdict.decided_by,
            "reasons": verdict.reasons, "method": verdict.method, "rounds": rounds,
            "usage": verdict.usage.model_dump(include={"llm_calls", "tool_calls", "seconds"})}


def summarize_response(verdict: ResponseVerdict) -> dict[str, Any]:
    claims = [{"claim": c.claim, "label": c.label, "error": c.error,
               "span": c.span.model_dump() if c.span else None, "span_note": c.span_note,
               "decided_by": c.verdict.decided_by if c.verdict else None,
               "reasons": c.verdict.reasons if c.verdict else ""} for c in verdict.claims]
    return {"label": verdict.label, "factual": verdict.factual, "decided_by": verdict.decided_by,
            "method": verdict.method, "claims_extracted": verdict.extraction.parsed, "claims": claims,
            "usage": verdict.usage.model_dump(include={"llm_calls", "tool_calls", "seconds"})}


def describe_errors(exc: ValidationError) -> str:
    """``field: problem`` pairs, without pydantic's documentation links or the input echoed back."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors())


def _strict_arguments(server: MCPServer, name: str) -> None:
    """Unknown arguments are refused (the SDK would drop them silently) and argument errors read as
    ``field: problem`` (pydantic's own text carries documentation URLs and the input)."""
    tool = server._tool_manager.get_tool(name)
    if tool is None:  # pragma: no cover - registered just above
        raise RuntimeError(f"tool {name} is not registered")
    base: type[BaseModel] = tool.fn_metadata.arg_model

    class Arguments(base):  # type: ignore[valid-type, misc]
        model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

        @model_validator(mode="wrap")
        @classmethod
        def _plain_errors(cls, data: Any, handler: Any) -> Any:
            try:
                return handler(data)
            except ValidationError as exc:
                raise PydanticCustomError("invalid_arguments", describe_errors(exc).replace("{", "(")
                                          .replace("}", ")")) from None

    tool.fn_metadata.arg_model = Arguments
    tool.parameters = Arguments.model_json_schema(by_alias=True)


def build_server(config_file: str | Path | None = None, pool: ResourcePool | None = None,
                 allowed_mcp_tools: list[str] | None = None) -> MCPServer:
    """``allowed_mcp_tools``: the operator's MCP servers and tools this server's callers may reach (as the
    service's setting of that name); none by default, so MERMAID uses only the shipped tool servers."""
    resolver = SettingsResolver({}, config_file, allowed_llms=[],
                                allowed_mcp_tools=[check_allow_entry(entry) for entry in allowed_mcp_tools or []])
    resources = pool if pool is not None else ResourcePool(size=4)  # an empty pool is falsy (it has a length)
    server: MCPServer = MCPServer(name="factdebate", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(description="Verify a factual claim by a debate between agents that retrieve evidence. "
                             "Returns the label (SUPPORTS, REFUTES, NOT ENOUGH INFO), whether agents agreed "
                             "or a judge decided, the reasons, and each round's queries and evidence.")
    async def verify_claim(claim: str, method: str | None = None,
                           agents: list[AgentTool] | None = None,
                           rounds: int | None = None, search: SearchEngine | None = None,
                           k: int | None = None, evidence: list[GuardEvidence] | None = None,
                           evidence_mode: EvidenceMode | None = None) -> dict[str, Any]:
        try:
            options = VerifyOptions.model_validate(
                {"method": method, "agents": agents, "rounds": rounds, "search": search, "k": k})
            settings, given = with_evidence(resolver.resolve(options),
                                            EvidenceChoice(evidence=evidence, evidence_mode=evidence_mode))
            text = validate_claim(claim, settings)
            with given_evidence(given):
                verdict = await run_claim(text, settings, resources.get(settings))
        except ValidationError as exc:
            raise ToolError(f"invalid arguments: {describe_errors(exc)}") from exc
        except FactDebateError as exc:
            raise ToolError(str(exc)) from exc
        return summarize(verdict)

    @server.tool(description="Search for evidence passages about a query. tool='search' uses the configured "
                             "search engine, tool='rag' the vector database over the indexed corpus.")
    async def search_evidence(query: str, k: int = 5,
                              tool: RetrievalTool = "search") -> list[dict[str, Any]]:
        if not query.strip():
            raise ToolError("the query is empty")
        if reason := unsafe_reason(query):
            raise ToolError(f"the query cannot be used: {reason}")
        if len(query) > MAX_QUERY_CHARS:
            raise ToolError(f"the query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}")
        if not 1 <= k <= 20:
            raise ToolError("k must be between 1 and 20")
        settings = resolver.base
        try:
            resolver.check_tools({"tool": tool})  # before anything starts: the same allow-list as verify_claim
            engine = await asyncio.to_thread(resources.tool, tool, settings)
            documents = await engine.search(query.strip(), k)
        except FactDebateError as exc:
            raise ToolError(str(exc)) from exc
        return [_doc(d, 2000) | {"id": d.id, "tool": engine.name} for d in documents]

    @server.tool(description="Check a long answer (an LLM's response) claim by claim: it is split into atomic "
                             "claims, each is verified, and the answer is false if any claim is false. Returns "
                             "the answer's label and each claim's own label and reasons.")
    async def check_response(response: str, question: str | None = None, method: str | None = None,
                             k: int | None = None, evidence: list[GuardEvidence] | None = None,
                             evidence_mode: EvidenceMode | None = None) -> dict[str, Any]:
        from factdebate.run.response import run_response, validate_question, validate_response

        try:
            settings, given = with_evidence(resolver.resolve(VerifyOptions.model_validate({"method": method, "k": k})),
                                            EvidenceChoice(evidence=evidence, evidence_mode=evidence_mode))
            text = validate_response(response, settings)
            asked = validate_question(question, settings)
            with given_evidence(given):
                verdict = await run_response(text, settings, resources.get(settings), question=asked)
        except ValidationError as exc:
            raise ToolError(f"invalid arguments: {describe_errors(exc)}") from exc
        except FactDebateError as exc:
            raise ToolError(str(exc)) from exc
        return summarize_response(verdict)

    for name in ("verify_claim", "search_evidence", "check_response"):
        _strict_arguments(server, name)
    return server


def run_stdio(config_file: str | Path | None = None, allowed_mcp_tools: list[str] | None = None) -> None:
    from factdebate.run.build import ensure_indexes
    from factdebate.settings.load import settings_from

    ensure_indexes(settings_from({}, config_file))  # progress goes to stderr; stdout is the protocol's
    build_server(config_file, allowed_mcp_tools=allowed_mcp_tools).run("stdio")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m factdebate.server.mcp_server", description=__doc__)
    parser.add_argument("--config", "-c", help="verification settings YAML")
    parser.add_argument("--allow-mcp-tool", action="append", default=[], metavar="mcp:SERVER/TOOL")
    args = parser.parse_args(argv)
    run_stdio(args.config, args.allow_mcp_tool)


if __name__ == "__main__":
    main()
