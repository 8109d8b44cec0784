"""The scholar tool server: OpenAlex, arXiv and PubMed against recorded responses served on loopback (in-process,
so that each engine's base URL points there), and the subprocess itself on the paths that need no network."""

from __future__ import annotations

import json

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from factdebate.tools.arxiv import ArxivTool, parse_feed, search_query
from factdebate.tools.openalex import OpenAlexTool
from factdebate.tools.pubmed import PubMedTool
from factdebate.toolservers.scholar_server import build_scholar_server
from tests.http_support import no_sleep  # noqa: F401  (autouse fixture)
from tests.paths import FIXTURES
from tests.recorded_http import RecordedServer, answer
from tests.toolservers.helpers import error_text, tool_server

FIXTURES = FIXTURES / "http"
ARXIV = "/api/query"
EUTILS = "/entrez/eutils"


def text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def server(recorded: RecordedServer) -> MCPServer:
    return build_scholar_server(openalex=OpenAlexTool(api_key="oa-SECRET-KEY-1", base_url=recorded.url, base_delay=0),
                                arxiv=ArxivTool(base_url=f"{recorded.url}{ARXIV}", base_delay=0),
                                pubmed=PubMedTool(base_url=f"{recorded.url}{EUTILS}", base_delay=0))


async def test_openalex_with_publication_date_filter(recorded: RecordedServer) -> None:
    route = recorded.get("/works", answer(text=text("openalex_works.json")))
    result = await server(recorded).call_tool("search_scholar", {"query": "vitamin C common cold", "k": 2,
                                                         "search_before": "2015-01-01"})
    params = route.last.params
    assert params["filter"] == "has_abstract:true,to_publication_date:2014-12-31"
    data = result.structured_content
    assert data["results"][0]["title"] == "Vitamin C for preventing and treating the common cold"
    assert data["results"][0]["source"].startswith("https://doi.org/")
    assert "OpenAlex" in data["notes"][0]


async def test_pubmed_with_date_range(recorded: RecordedServer) -> None:
    search = recorded.get(f"{EUTILS}/esearch.fcgi", answer(text=text("pubmed_esearch.json")))
    recorded.get(f"{EUTILS}/efetch.fcgi", answer(text=text("pubmed_efetch.xml")))
    result = await server(recorded).call_tool("search_pubmed", {"query": "vitamin C common cold",
                                                        "search_before": "2016-07-01"})
    params = search.last.params
    assert (params["datetype"], params["mindate"], params["maxdate"]) == ("pdat", "1800/01/01", "2016/06/30")
    data = result.structured_content
    assert [r["source"] for r in data["results"]] == ["https://pubmed.ncbi.nlm.nih.gov/23440782/",
                                                      "https://pubmed.ncbi.nlm.nih.gov/29138001/"]


async def test_arxiv_query_dates_and_parsing(recorded: RecordedServer) -> None:
    route = recorded.get(ARXIV, answer(text=text("arxiv_query.xml")))
    result = await server(recorded).call_tool("search_arxiv", {"query": "transformer attention", "k": 2,
                                                       "search_before": "2019-01-01"})
    query = route.last.params["search_query"]
    assert query == "(all:transformer AND all:attention) AND submittedDate:[190001010000 TO 201901010000]"
    data = result.structured_content
    first = data["results"][0]
    assert first["title"] == "Attention Is All You Need (2017-06-12)"
    assert first["source"] == "http://arxiv.org/abs/1706.03762v7" and first["text"].startswith("A network")
    assert "arXiv" in data["notes"][0]


async def test_arxiv_falls_back_to_any_word(recorded: RecordedServer) -> None:
    route = recorded.get(ARXIV, [answer(text=text("arxiv_empty.xml")), answer(text=text("arxiv_query.xml"))])
    docs = await ArxivTool(base_url=f"{recorded.url}{ARXIV}", base_delay=0).search("self attention translation", 5)
    assert len(docs) == 2 and route.call_count == 2
    assert " OR " in route.last.params["search_query"]


def test_arxiv_error_entry_and_bad_xml() -> None:
    with pytest.raises(Exception, match="incorrect id format"):
        parse_feed(text("arxiv_error.xml"))
    with pytest.raises(Exception, match="unreadable XML"):
        parse_feed("<feed")
    assert search_query("AND or ()") == ""


async def test_upstream_failure_is_a_clean_tool_error(recorded: RecordedServer) -> None:
    recorded.get("/works", answer(503, text="down"))
    with pytest.raises(ToolError) as caught:
        await server(recorded).call_tool("search_scholar", {"query": "vitamin C"})
    message = str(caught.value)
    assert f"could not reach {recorded.url}/works" in message
    assert "oa-SECRET-KEY-1" not in message and "api_key" not in message


async def test_scholar_server_over_stdio() -> None:
    async with tool_server("scholar") as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {"search_scholar", "search_arxiv", "search_pubmed"}
        assert "Google Scholar" in (tools["search_scholar"].description or "")
        assert "search_before" in json.dumps(tools["search_pubmed"].input_schema)
        # Input checks happen before any request, so these need no network.
        assert "at least 1 character" in error_text(await session.call_tool("search_arxiv", {"query": ""}))
        bad_date = error_text(await session.call_tool("search_pubmed", {"query": "flu", "search_before": "May"}))
        assert "search_before" in bad_date and "pattern" in bad_date and "Traceback" not in bad_date
