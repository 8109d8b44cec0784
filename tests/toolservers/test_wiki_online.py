"""The Wikipedia tool server in online mode against recorded MediaWiki responses served on loopback
(in-process, so that its base URL points there). Every tool is called once; dated reads go through the
revision before the date."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from factdebate.toolservers.wiki_html import html_sections
from factdebate.toolservers.wiki_online import OnlineWikipedia
from factdebate.toolservers.wikipedia_server import build_wikipedia_server
from tests.http_support import fixture, no_sleep  # noqa: F401  (autouse fixture)
from tests.memory.conftest import words_encode
from tests.paths import FIXTURES
from tests.recorded_http import Answer, Call, RecordedServer, Route, answer

FIXTURES = FIXTURES / "http"
API = "/w/api.php"


def action_api(call: Call) -> Answer:
    """The Action API by its parameters, as the real one dispatches them."""
    params = call.params
    if params.get("list") == "search":
        return answer(json=fixture("wikipedia_search.json"))
    if params.get("prop") == "revisions":
        name = "wikipedia_revisions_none.json" if params["titles"] == "Some New Article" else \
            "wikipedia_revisions_before.json"
        return answer(json=fixture(name))
    if params.get("action") == "parse":
        if params.get("page") == "No Such Page":
            return answer(json=fixture("wikipedia_parse_missing.json"))
        return answer(json=fixture("wikipedia_parse_great_wall.json"))
    return answer(400, json={"error": {"code": "badparams", "info": "unexpected request"}})


@pytest.fixture
def api(recorded: RecordedServer) -> Route:
    return recorded.get(API, action_api)


def data(result: Any) -> Any:
    assert not result.is_error
    return result.structured_content


def test_html_becomes_clean_sections() -> None:
    sections = html_sections(fixture("wikipedia_parse_great_wall.json")["parse"]["text"])
    assert [s.heading for s in sections] == ["Lead", "History", "Visibility from space"]
    lead = sections[0].text
    assert lead.startswith("The Great Wall of China is a series") and "[1]" not in lead
    assert "21,196" not in lead and "For other uses" not in lead  # infobox and hatnote dropped
    assert "Yang Liwei" in sections[2].text and "Navigation" not in sections[2].text


async def test_every_wikipedia_tool_online(recorded: RecordedServer, api: Route) -> None:
    server = build_wikipedia_server(OnlineWikipedia(base_url=recorded.url, base_delay=0), encode=words_encode)

    found = data(await server.call_tool("search_wikipedia", {"query": "Great Wall visible from space", "k": 2}))
    params = api.last.params
    assert (params["list"], params["srlimit"], params["format"]) == ("search", "2", "json")
    assert found["results"][0]["title"] == "Great Wall of China" and found["results"][0]["text"]
    assert api.last.headers["User-Agent"].startswith("factdebate/")

    summary = data(await server.call_tool("get_summary", {"title": "Great Wall of China"}))
    params = api.last.params
    assert (params["action"], params["page"], params["redirects"]) == ("parse", "Great Wall of China", "1")
    assert summary["summary"].startswith("The Great Wall of China") and summary["notes"] == []
    assert summary["source"] == f"{recorded.url}/wiki/Great_Wall_of_China"

    article = data(await server.call_tool("get_article", {"title": "Great Wall of China",
                                                          "search_before": "2010-01-01"}))
    revisions, parse = (call.params for call in api.calls[-2:])
    assert revisions["rvstart"] == "2010-01-01T00:00:00Z" and revisions["rvdir"] == "older"
    assert parse["oldid"] == "334000111" and "page" not in parse
    assert article["source"] == f"{recorded.url}/w/index.php?oldid=334000111"
    assert article["revision"] == "334000111 saved 2009-12-30T18:22:05Z"
    assert "History\nThe Ming dynasty" in article["text"]

    sections = data(await server.call_tool("get_sections", {"title": "Great Wall of China"}))
    assert [s["heading"] for s in sections["sections"]] == ["Lead", "History", "Visibility from space"]

    related = data(await server.call_tool("get_related_topics", {"title": "Great Wall of China", "k": 2,
                                                                 "search_before": "2010-01-01"}))
    assert api.last.params["srsearch"] == "morelike:Great Wall of China"
    assert all(r["text"] == "" for r in related["related"])  # today's snippets withheld for a dated call
    assert "NOT applied" in related["notes"][0]

    part = data(await server.call_tool("summarize_article_section", {
        "title": "Great Wall of China", "section": "history", "sentences": 1, "focus": "Ming dynasty brick"}))
    assert part["summary"] == "The Ming dynasty rebuilt much of the wall in brick and stone between 1368 and 1644."

    facts = data(await server.call_tool("extract_key_facts", {"title": "Great Wall of China", "count": 2,
                                                              "focus": "astronaut orbit"}))
    assert any("Yang Liwei" in fact for fact in facts["facts"])


async def test_missing_pages_are_tool_errors(recorded: RecordedServer, api: Route) -> None:
    server = build_wikipedia_server(OnlineWikipedia(base_url=recorded.url, base_delay=0), encode=words_encode)
    with pytest.raises(ToolError, match="no such page"):
        await server.call_tool("get_summary", {"title": "No Such Page"})
    with pytest.raises(ToolError, match="did not exist before 2005-01-01"):
        await server.call_tool("get_summary", {"title": "Some New Article", "search_before": "2005-01-01"})
