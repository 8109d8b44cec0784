"""TavilyTool against a hand-written recorded response (see tests/fixtures/http/README.md), served on loopback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from factdebate.core.errors import EndpointUnavailableError, MissingKeyError
from factdebate.core.runtime import RunRecorder, recording
from factdebate.tools.base import Tool
from factdebate.tools.tavily import TAVILY_DEFAULT_URL, TavilyTool
from factdebate.util.errors import FactDebateError
from tests.http_support import fixture, no_sleep  # noqa: F401  (autouse fixture)
from tests.recorded_http import RecordedServer, answer

KEY = "tvly-test-KEY-abcdef123456"
QUERY = "Is the Great Wall of China visible from space with the naked eye?"


def tool(server: RecordedServer, key: str | None = KEY, **options: Any) -> TavilyTool:
    return TavilyTool(key, base_url=server.url, **options)


async def test_request_shape_and_mapping(recorded: RecordedServer) -> None:
    route = recorded.post("/search", answer(json=fixture("tavily_search.json")))
    searcher = tool(recorded, base_delay=0)
    assert isinstance(searcher, Tool) and searcher.name == "tavily"
    assert TavilyTool(KEY).base_url == TAVILY_DEFAULT_URL == "https://api.tavily.com"

    docs = await searcher.search(QUERY, 3)

    request = route.last
    assert request.method == "POST"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.json() == {
        "query": QUERY, "max_results": 3, "search_depth": "basic", "include_answer": False,
    }
    assert [d.id for d in docs] == [
        "https://www.nasa.gov/image-article/great-wall/",
        "https://www.scientificamerican.com/article/is-chinas-great-wall-visible-from-space/",
        "https://en.wikipedia.org/wiki/Great_Wall_of_China",
    ]
    first = docs[0]
    assert first.title == "Great Wall - NASA"
    assert first.source == first.id
    assert first.text.startswith("The Great Wall of China is frequently billed")
    assert first.score == pytest.approx(0.91)


async def test_results_are_cut_to_k_and_max_results_is_capped(recorded: RecordedServer) -> None:
    route = recorded.post("/search", answer(json=fixture("tavily_search.json")))
    docs = await tool(recorded).search(QUERY, 2)
    assert len(docs) == 2
    await tool(recorded).search(QUERY, 100)
    assert route.last.json()["max_results"] == 20


async def test_key_from_environment(recorded: RecordedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-from-env")
    route = recorded.post("/search", answer(json={"results": []}))
    assert await tool(recorded, None).search("q", 5) == []
    assert route.last.headers["Authorization"] == "Bearer tvly-from-env"


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(MissingKeyError) as info:
        TavilyTool()
    assert info.value.variable == "TAVILY_API_KEY"
    assert "TAVILY_API_KEY" in str(info.value) and "tavily" in str(info.value)


def test_repr_hides_key() -> None:
    assert KEY not in repr(TavilyTool(KEY))


async def test_429_with_retry_after_then_success(recorded: RecordedServer) -> None:
    route = recorded.post("/search", [
        answer(429, headers={"Retry-After": "1"}, json={"detail": {"error": "rate limited"}}),
        answer(json=fixture("tavily_search.json")),
    ])
    docs = await tool(recorded, base_delay=0).search(QUERY, 3)
    assert len(docs) == 3 and route.call_count == 2


async def test_500_exhaustion_hides_key(recorded: RecordedServer) -> None:
    route = recorded.post("/search", answer(500, text=f"upstream failed ({KEY})"))
    with pytest.raises(EndpointUnavailableError) as info:
        await tool(recorded, attempts=3, base_delay=0).search(QUERY, 3)
    assert route.call_count == 3
    assert f"{recorded.url}/search" in str(info.value) and KEY not in str(info.value)


async def test_401_is_a_clear_error(recorded: RecordedServer) -> None:
    recorded.post("/search", answer(401, json={"detail": {"error": "Unauthorized: missing or invalid API key."}}))
    with pytest.raises(FactDebateError, match=r"HTTP 401.*invalid API key") as info:
        await tool(recorded, base_delay=0).search(QUERY, 3)
    assert KEY not in str(info.value)


async def test_emits_tool_call_event(recorded: RecordedServer) -> None:
    recorded.post("/search", answer(json=fixture("tavily_search.json")))
    events: list[dict[str, Any]] = []
    searcher = TavilyTool(KEY, base_url=f"{recorded.url}/")
    with recording(RunRecorder(sinks=[events.append])):
        await searcher.search(QUERY, 3)
    (event,) = events
    assert event["event"] == "web_search"
    assert (event["tool"], event["query"], event["k"], event["results"]) == ("tavily", QUERY, 3, 3)
    assert event["seconds"] >= 0
    assert KEY not in json.dumps(event)


async def test_unexpected_payload(recorded: RecordedServer) -> None:
    recorded.post("/search", answer(json={"results": "nope"}))
    with pytest.raises(FactDebateError, match="unexpected Tavily response"):
        await tool(recorded).search(QUERY, 3)
