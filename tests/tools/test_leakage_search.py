"""Leakage controls on the search agent's engine (Tool-MAD and the other search-agent methods): excluded
domains and fact-checkers dropped, dates applied where the engine can and said plainly where it cannot,
per-claim dates (AVeriTeC's DD-MM-YYYY) combined with the configured one."""

from __future__ import annotations

import pytest

from factdebate.core.claim_context import claim_date, iso_day, search_before
from factdebate.core.runtime import RunRecorder, recording
from factdebate.core.types import Document
from factdebate.run.build import make_tool
from factdebate.settings.load import load_settings
from factdebate.tools.leakage_search import LeakageSearch
from factdebate.util.errors import ConfigError
from tests.helpers import StaticTool

DOCS = [Document(id="1", title="Snopes", text="Rated false.", source="https://www.snopes.com/fact-check/x"),
        Document(id="2", title="Blog", text="The tower opened in 1889.", source="https://blog.example.org/a"),
        Document(id="3", title="News", text="It opened in 1889.", source="https://news.example.com/b")]


def test_dates_are_read_in_both_forms_and_the_earlier_wins() -> None:
    assert iso_day("31-10-2020") == "2020-10-31" and iso_day("2020-10-31T12:00:00") == "2020-10-31"
    assert iso_day(None) is None and iso_day(" ") is None
    with pytest.raises(ValueError, match="not a date"):
        iso_day("last year")
    assert search_before("2021-01-01") == "2021-01-01"
    with claim_date("31-10-2020"):
        assert search_before("2021-01-01") == "2020-10-31" and search_before(None) == "2020-10-31"
    assert search_before(None) is None


def test_settings_take_and_check_the_controls() -> None:
    settings = load_settings(overrides={"retrieval": {"search_before": "1-2-2019", "exclude_domains": ["a.org"]}},
                             environ={})
    assert settings.retrieval.search_before == "2019-02-01"
    with pytest.raises(ConfigError, match="search_before"):
        load_settings(overrides={"retrieval": {"search_before": "soon"}}, environ={})


async def test_excluded_domains_and_fact_checkers_are_dropped_with_a_note() -> None:
    tool = LeakageSearch(StaticTool("web", DOCS), domains=("news.example.com",), fact_checkers=True)
    recorder = RunRecorder()
    events: list[dict] = []
    recorder.sinks.append(events.append)
    with recording(recorder):
        found = await tool.search("tower", 3)
    assert [d.id for d in found] == ["2"]
    note = next(e for e in events if e["event"] == "leakage")
    assert note["tool"] == "web" and any("2 result(s) from excluded domains removed" in n for n in note["notes"])


async def test_a_claim_date_is_said_not_applied_where_the_engine_has_no_dates() -> None:
    tool = LeakageSearch(StaticTool("wikipedia", DOCS))
    events: list[dict] = []
    recorder = RunRecorder([events.append])
    with recording(recorder), claim_date("31-10-2020"):
        found = await tool.search("tower", 2)
    assert len(found) == 2
    assert "search_before=2020-10-31 was NOT applied" in events[0]["notes"][0]
    assert await tool.search("tower", 1) == DOCS[:1]  # no control active: the engine untouched


def test_the_search_agent_is_built_with_the_controls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    settings = load_settings(overrides={"retrieval": {"search": "tavily", "search_before": "2020-01-01",
                                                      "exclude_fact_checkers": True}}, environ={})
    tool = make_tool("search", settings)
    assert isinstance(tool, LeakageSearch) and tool.name == "tavily"
    assert str(tool.policy.before) == "2020-01-01" and tool.policy.fact_checkers


async def test_an_mcp_search_agent_gets_the_date_where_its_tool_takes_one() -> None:
    from factdebate.tools.retrieval_toolset import ToolsetSearch
    from factdebate.tools.toolset import ToolSchema
    from tests.methods.mermaid.support import FactToolset

    toolset = FactToolset({"tower": "The tower opened in 1889."})
    dated = ToolsetSearch(toolset, "search_facts", search_before="2021-05-01")
    with claim_date("2020-01-02"):
        await dated.search("tower", 2)
    assert toolset.calls[-1] == ("search_facts", {"query": "tower", "k": 2, "search_before": "2020-01-02"})

    async def plain_tools() -> list[ToolSchema]:
        return [ToolSchema("search_facts", "no dates", {"type": "object", "properties": {"query": {"type": "string"}}})]

    toolset.list_tools = plain_tools  # type: ignore[method-assign]
    undated = ToolsetSearch(toolset, "search_facts", search_before="2021-05-01")
    events: list[dict] = []
    with recording(RunRecorder([events.append])):
        await undated.search("tower", 2)
    assert toolset.calls[-1] == ("search_facts", {"query": "tower"})
    assert "NOT applied" in events[0]["notes"][0] and events[0]["tool"] == "facts/search_facts"
