"""Where evidence comes from, for the service (see facade/__init__.py): corpus names and the built-in
corpus, search engines, retrieval and agent tools (an MCP server's too), and the caller's given passages."""

from factdebate.corpus.builtin import BUILTIN_CORPUS
from factdebate.corpus.names import PATTERN, check_corpus_name
from factdebate.tools.base import Tool
from factdebate.tools.given import given_evidence
from factdebate.tools.mcp_config import MCPServerConfig
from factdebate.tools.registry import AgentTool, RetrievalTool, SearchEngine, mcp_tool

__all__ = [
    "BUILTIN_CORPUS", "PATTERN", "AgentTool", "MCPServerConfig", "RetrievalTool", "SearchEngine", "Tool",
    "check_corpus_name", "given_evidence", "mcp_tool",
]
