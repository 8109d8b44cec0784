"""Tool names are validated against one registry; configurations written before it still load."""

from __future__ import annotations

import pytest

from factdebate.server.options import VerifyOptions
from factdebate.settings.load import load_settings
from factdebate.tools.registry import AGENT_TOOLS, agent_description, evidence_source, mcp_tool
from factdebate.util.errors import ConfigError


def test_tools_load_from_overrides_and_the_environment() -> None:
    settings = load_settings(overrides={"methods": {"tool-mad": {"agents": ["rag", "search", "none"]},
                                                    "madke": {"tools": ["search"]}},
                                        "retrieval": {"search": "wikipedia"}}, environ={})
    assert settings.methods["tool-mad"].agents == ["rag", "search", "none"] and settings.retrieval.search == "wikipedia"
    assert settings.methods["madke"].tools == ["search"]
    env = load_settings(environ={"FACTDEBATE_METHODS__TOOL_MAD__AGENTS": "[rag, none]"})
    assert env.methods["tool-mad"].agents == ["rag", "none"]


@pytest.mark.parametrize(("section", "value", "needle"), [
    ({"methods": {"tool-mad": {"agents": ["rag", "google"]}}}, "google", "unknown tool 'google'"),
    ({"methods": {"madke": {"tools": ["none"]}}}, "none", "'none' is not a retrieval tool"),
    ({"retrieval": {"search": "bing"}}, "bing", "unknown search engine 'bing'"),
])
def test_unknown_names_fail_with_the_known_ones(section: dict[str, object], value: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        load_settings(overrides=section, environ={})


def test_mcp_tools_and_registered_kinds_are_accepted() -> None:
    assert mcp_tool("mcp:wiki/search") == ("wiki", "search") and mcp_tool("mcp:wiki") is None
    assert "wiki" in agent_description("mcp:wiki/search")
    settings = load_settings(overrides={"methods": {"tool-mad": {"agents": ["mcp:wiki/search", "none"]}}}, environ={})
    assert settings.methods["tool-mad"].agents[0] == "mcp:wiki/search"
    AGENT_TOOLS["archive"] = "agent with a newspaper archive"
    try:
        assert VerifyOptions(agents=["archive", "rag"]).agents == ["archive", "rag"]
    finally:
        del AGENT_TOOLS["archive"]
    with pytest.raises(ValueError, match="unknown tool"):
        VerifyOptions(agents=["archive", "rag"])


def test_an_mcp_tool_of_an_unconfigured_server_is_a_config_error() -> None:
    from factdebate.run.build import make_tool

    settings = load_settings(overrides={"methods": {"tool-mad": {"agents": ["mcp:wiki/search", "none"]}}}, environ={})
    with pytest.raises(ConfigError, match="no configured MCP server"):
        make_tool("mcp:wiki/search", settings)


def test_what_each_tool_reads() -> None:
    local = {"engine": "local", "corpus": "builtin"}
    assert evidence_source("rag", **local) == evidence_source("search", **local) == "corpus:builtin"
    assert evidence_source("search", engine="tavily", corpus="builtin") == "tavily"
    assert evidence_source("search", engine="local", corpus="builtin", scholarly="openalex") == "openalex"
    assert evidence_source("none", **local) is None
    assert evidence_source("mcp:wiki/search", **local) == "mcp:wiki/search"
