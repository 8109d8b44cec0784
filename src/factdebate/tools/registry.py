"""The names a configuration may give an agent's tool or the search engine, in one place. Config, the
HTTP options and the MCP server validate against these instead of repeating fixed lists.

An agent tool is a registered kind (``rag``, ``search``, ``none``) or ``mcp:<server>/<tool>``: a tool of an
MCP server configured under ``mcp_servers``, used as a retrieval tool (its query argument is ``query``)."""

from __future__ import annotations

import os
import re
from typing import Annotated

from pydantic import AfterValidator, Field

AGENT_TOOLS: dict[str, str] = {
    "rag": "RAG agent (evidence from a vector database)",
    "search": "search agent (evidence from a search engine)",
    "none": "agent without tools (own knowledge only)",
}
SEARCH_ENGINES: dict[str, str] = {
    "auto": "tavily when TAVILY_API_KEY is set, else local",
    "local": "BM25 over the indexed corpus (offline)",
    "tavily": "Tavily web search (TAVILY_API_KEY)",
    "wikipedia": "Wikipedia's search API",
}
_MCP_TOOL = re.compile(r"^mcp:([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)$")


def mcp_tool(kind: str) -> tuple[str, str] | None:
    """``(server, tool)`` for ``mcp:<server>/<tool>``, else ``None``."""
    match = _MCP_TOOL.fullmatch(kind)
    return (match.group(1), match.group(2)) if match else None


def agent_description(kind: str) -> str:
    found = mcp_tool(kind)
    if found:
        return f"agent with the {found[1]} tool of the {found[0]} MCP server"
    return AGENT_TOOLS[kind]


def check_agent_tool(kind: str) -> str:
    if kind in AGENT_TOOLS or mcp_tool(kind):
        return kind
    raise ValueError(f"unknown tool '{kind}'; use {', '.join(AGENT_TOOLS)} or mcp:<server>/<tool>")


def check_retrieval_tool(kind: str) -> str:
    if kind == "none":
        raise ValueError("'none' is not a retrieval tool")
    return check_agent_tool(kind)


def auto_search_engine() -> str:
    """What ``auto`` stands for here and now: Tavily with a key, else BM25 over the indexed corpus."""
    return "tavily" if os.environ.get("TAVILY_API_KEY") else "local"


def evidence_source(kind: str, *, engine: str, corpus: str, scholarly: str = "default") -> str | None:
    """What a tool of ``kind`` reads (``corpus:<name>`` for RAG and local search); None for no tool."""
    if kind == "none":
        return None
    if kind == "rag":
        return f"corpus:{corpus}"
    if kind == "search":
        if scholarly != "default":
            return scholarly
        return f"corpus:{corpus}" if engine == "local" else engine
    return kind  # an MCP tool: its own source


def check_search_engine(name: str) -> str:
    if name in SEARCH_ENGINES:
        return name
    raise ValueError(f"unknown search engine '{name}'; use {', '.join(SEARCH_ENGINES)}")


# "x-choices" lists the built-in values in the JSON schema so forms (the web page) can offer them as a
# select; validation still accepts mcp:<server>/<tool> names, which no fixed list can hold.
AgentTool = Annotated[str, AfterValidator(check_agent_tool),
                      Field(description="rag, search, none or mcp:<server>/<tool>",
                            json_schema_extra={"x-choices": list(AGENT_TOOLS)})]
RetrievalTool = Annotated[str, AfterValidator(check_retrieval_tool),
                          Field(description="rag, search or mcp:<server>/<tool>",
                                json_schema_extra={"x-choices": [k for k in AGENT_TOOLS if k != "none"]})]
SearchEngine = Annotated[str, AfterValidator(check_search_engine),
                         Field(description="auto, local, tavily or wikipedia",
                               json_schema_extra={"x-choices": list(SEARCH_ENGINES)})]
