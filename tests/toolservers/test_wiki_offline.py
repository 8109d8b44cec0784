"""The Wikipedia tool server in offline mode as a subprocess, over the builtin corpus cut to 40 articles:
every tool is called once, plus the failures an agent will make."""

from __future__ import annotations

import os

import pytest

from tests.toolservers.helpers import error_text, payload, tool_server

pytest.importorskip("mcp")
pytest.importorskip("tantivy")

TOOLS = {"search_wikipedia", "get_summary", "get_article", "get_sections", "get_related_topics",
         "summarize_article_section", "extract_key_facts"}


@pytest.mark.slow
@pytest.mark.usefixtures("builtin_index")  # the 40-article index and the encoder, made once per run
async def test_every_wikipedia_tool_offline() -> None:
    env = {"FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": "40", "FACTDEBATE_DATA_DIR": os.environ["FACTDEBATE_DATA_DIR"]}
    async with tool_server("wikipedia", env=env) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(listed) == TOOLS
        schema = listed["search_wikipedia"].input_schema["properties"]
        assert schema["query"]["maxLength"] == 300 and schema["k"]["maximum"] == 10
        assert "nearest" in (listed["get_related_topics"].description or "")
        assert "Extractive" in (listed["extract_key_facts"].description or "")

        found = payload(await session.call_tool("search_wikipedia", {"query": "temple complex in Cambodia", "k": 3}))
        assert found["results"][0]["title"] == "Angkor Wat"
        assert found["results"][0]["source"] == "https://en.wikipedia.org/wiki/Angkor_Wat"
        assert len({r["title"] for r in found["results"]}) == len(found["results"])  # one hit per article

        summary = payload(await session.call_tool("get_summary", {"title": "Angkor Wat"}))
        assert summary["title"] == "Angkor Wat" and "Cambodia" in summary["summary"]

        article = payload(await session.call_tool("get_article", {"title": "angkor wat",
                                                                   "search_before": "2001-01-01"}))
        assert article["title"] == "Angkor Wat" and "Cambodia" in article["text"]
        assert any("NOT applied" in note and "2001-01-01" in note for note in article["notes"])

        sections = payload(await session.call_tool("get_sections", {"title": "Academic art"}))
        assert sections["sections"][0]["number"] == 0 and sections["sections"][0]["heading"] == "Passage 0"

        related = payload(await session.call_tool("get_related_topics", {"title": "Ancient Greek architecture",
                                                                         "k": 3}))
        titles = [r["title"] for r in related["related"]]
        assert len(titles) == 3 and "Ancient Greek architecture" not in titles
        assert any(t.startswith("Ancient") for t in titles)
        assert "no link graph" in related["notes"][0]

        part = payload(await session.call_tool("summarize_article_section", {
            "title": "Academic art", "section": "0", "sentences": 2, "focus": "French Academy"}))
        assert 0 < len(part["summary"]) < len(sections["sections"][0]["preview"]) + 2000
        assert part["section"] == {"number": 0, "heading": "Passage 0"}

        facts = payload(await session.call_tool("extract_key_facts", {"title": "Academy Awards", "count": 2}))
        awards = payload(await session.call_tool("get_summary", {"title": "Academy Awards"}))["summary"]
        assert len(facts["facts"]) == 2 and all(fact in awards for fact in facts["facts"])  # extractive

        # What an agent gets wrong comes back as a readable tool error, never a traceback.
        assert "no section" in error_text(await session.call_tool("summarize_article_section",
                                                                  {"title": "Angkor Wat", "section": "History"}))
        too_long = error_text(await session.call_tool("search_wikipedia", {"query": "x" * 301}))
        assert "300" in too_long and "Traceback" not in too_long
        bad_date = error_text(await session.call_tool("get_summary", {"title": "Angkor Wat",
                                                                      "search_before": "last year"}))
        assert "search_before" in bad_date
        close = payload(await session.call_tool("get_summary", {"title": "Angkor temple"}))
        assert close["title"] == "Angkor Wat" and "closest match" in close["notes"][0]
