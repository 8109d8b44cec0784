"""The MCP client toolset against real MCP server subprocesses: a small third-party-style server over
stdio and streamable HTTP, and factdebate's own ``factdebate mcp`` used by Tool-MAD as a search tool."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from factdebate.tools.mcp_client import MCPToolset
from factdebate.tools.mcp_config import MCPServerConfig
from factdebate.tools.retrieval_toolset import ToolsetSearch
from factdebate.tools.toolset import Toolset
from factdebate.util.errors import FactDebateError
from tests.readiness import wait_until_ready

pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")

TOY = str(Path(__file__).with_name("mcp_toy_server.py"))


def toy_stdio(timeout: float = 30.0) -> MCPToolset:
    return MCPToolset("toy", MCPServerConfig(command=sys.executable, args=[TOY], timeout=timeout))


async def test_stdio_server_lists_and_calls_tools() -> None:
    async with toy_stdio() as toolset:
        assert isinstance(toolset, Toolset)
        tools = {tool.name: tool for tool in await toolset.list_tools()}
        assert set(tools) == {"lookup", "broken", "slow"}
        assert tools["lookup"].description and tools["lookup"].parameters["properties"]["query"]["type"] == "string"
        result = await toolset.call_tool("lookup", {"query": "Where is Paris?"})
        assert not result.is_error and result.text == "Paris is the capital of France."


async def test_tool_errors_and_timeouts_come_back_as_observations() -> None:
    async with toy_stdio(timeout=1.0) as toolset:
        failed = await toolset.call_tool("broken", {"query": "x"})
        assert failed.is_error and "archive is closed" in failed.text
        unknown = await toolset.call_tool("missing", {})
        assert unknown.is_error
        late = await toolset.call_tool("slow", {"seconds": 5})
        assert late.is_error and "timed out after 1 s" in late.text
        # The session survives all three.
        assert (await toolset.call_tool("lookup", {"query": "oslo"})).text == "Oslo is the capital of Norway."


async def test_a_server_that_cannot_start_is_a_clear_error() -> None:
    broken = MCPToolset("nothing", MCPServerConfig(command=sys.executable, args=["-c", "raise SystemExit(3)"],
                                                   connect_timeout=20))
    with pytest.raises(FactDebateError, match="MCP server 'nothing'"):
        await broken.__aenter__()


def test_config_needs_exactly_one_transport() -> None:
    with pytest.raises(ValueError, match="either 'command'"):
        MCPServerConfig()
    with pytest.raises(ValueError, match="either 'command'"):
        MCPServerConfig(command="x", url="http://127.0.0.1:1/mcp")


@pytest.fixture
def toy_http_url(tmp_path: Path) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = (tmp_path / "toy.log").open("w")
    process = subprocess.Popen([sys.executable, TOY, "http", str(port)], stdout=log, stderr=subprocess.STDOUT)
    def listening() -> bool:
        try:
            httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
            return True
        except httpx.TransportError:
            return False

    try:
        wait_until_ready(listening, process, "the toy MCP server", log=Path(log.name))
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


async def test_streamable_http_server(toy_http_url: str) -> None:
    async with MCPToolset("toy-http", MCPServerConfig(url=toy_http_url)) as toolset:
        assert {t.name for t in await toolset.list_tools()} == {"lookup", "broken", "slow"}
        assert (await toolset.call_tool("lookup", {"query": "paris"})).text == "Paris is the capital of France."


async def test_factdebate_mcp_search_feeds_a_retrieval_tool(tmp_path: Path) -> None:
    """factdebate's own MCP server, started from config as a user would, searched through the adapter
    that Tool-MAD's agents use."""
    indexing = pytest.importorskip("factdebate.corpus.indexing")
    from factdebate.core.types import Document

    data = tmp_path / "data"
    env = {"FACTDEBATE_DATA_DIR": str(data), "FACTDEBATE_SEARCH": "local", "FACTDEBATE_RETRIEVAL__CORPUS": "mini",
           "FACTDEBATE_LLM": "scripted:agree", "HF_HUB_OFFLINE": "1"}
    old = os.environ.get("FACTDEBATE_DATA_DIR")
    os.environ["FACTDEBATE_DATA_DIR"] = str(data)
    try:
        indexing.index_corpus([Document(id="e", title="Eiffel Tower", text="The Eiffel Tower was completed in 1889."),
                               Document(id="h", title="Honey", text="Honey keeps for years.")],
                              "mini", engines=["local"], progress=False)
    finally:
        if old is not None:
            os.environ["FACTDEBATE_DATA_DIR"] = old
    exe = str(Path(sys.executable).with_name("factdebate"))
    search = ToolsetSearch(MCPToolset("factdebate", MCPServerConfig(command=exe, args=["mcp"], env=env)),
                           "search_evidence")
    try:
        documents = await search.search("When was the Eiffel Tower completed?", 1)
    finally:
        await search.aclose()
    assert len(documents) == 1 and documents[0].title == "Eiffel Tower" and "1889" in documents[0].text


async def test_tool_mad_agent_searches_through_a_configured_mcp_server() -> None:
    from factdebate.llm.scripted import ScriptedBackend
    from factdebate.run.build import build_resources
    from factdebate.run.claim import run_claim
    from factdebate.settings.load import load_settings
    from tests.helpers import BagOfWordsEncoder, debate_script

    settings = load_settings(overrides={
        "llm": {"cache": False},
        "methods": {"tool-mad": {"agents": ["mcp:toy/lookup", "none"], "rounds": 1, "scoring": False}},
        "mcp_servers": {"toy": {"command": sys.executable, "args": [TOY]}}}, environ={})
    script = debate_script({("mcp:toy/lookup", 1): "SUPPORTS", ("none", 1): "SUPPORTS"})
    backend = ScriptedBackend(script)
    resources = build_resources(settings, backends={"debater": backend, "judge": backend, "scorer": backend},
                                encoder_factory=BagOfWordsEncoder)
    try:
        verdict = await run_claim("Paris is the capital of France", settings, resources)
    finally:
        tool = resources.tool("mcp:toy/lookup")
        assert isinstance(tool, ToolsetSearch)
        await tool.aclose()
    evidence = verdict.rounds[0].turns[0].evidence
    assert verdict.label is not None and verdict.rounds[0].turns[0].tool == "toy/lookup"
    assert [d.text for d in evidence] == ["Paris is the capital of France."]
