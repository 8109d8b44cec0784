"""WikipediaTool against hand-written recorded responses (see tests/fixtures/http/README.md), served on
loopback."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.core.errors import EndpointUnavailableError
from factdebate.core.runtime import RunRecorder, recording
from factdebate.tools.base import Tool
from factdebate.tools.wikipedia import WikipediaTool, strip_html, summary_path
from factdebate.util.errors import FactDebateError
from tests.http_support import fixture, no_sleep  # noqa: F401  (autouse fixture)
from tests.paths import FIXTURES
from tests.recorded_http import Answer, Call, RecordedServer, Route, answer

FIXTURES = FIXTURES / "http"
SEARCH = "/w/api.php"
SUMMARY_PREFIX = "/api/rest_v1/page/summary/"
QUERY = "Great Wall of China visible from space"

SUMMARIES = {
    "Great_Wall_of_China": "wikipedia_summary_great_wall.json",
    "Yang_Liwei": "wikipedia_summary_yang_liwei.json",
}


def serve_summaries(call: Call) -> Answer:
    """Known pages get their summary; anything else gets the REST API's 404 body."""
    name = SUMMARIES.get(call.path.removeprefix(SUMMARY_PREFIX))
    if name is None:
        return answer(404, json=fixture("wikipedia_summary_not_found.json"))
    return answer(json=fixture(name))


def mock_wikipedia(server: RecordedServer) -> tuple[Route, Route]:
    search = server.get(SEARCH, answer(json=fixture("wikipedia_search.json")))
    summary = server.get(SUMMARY_PREFIX, serve_summaries, prefix=True)
    return search, summary


def wikipedia(server: RecordedServer, **options: Any) -> WikipediaTool:
    return WikipediaTool(base_url=server.url, **options)


async def test_search_request_shape(recorded: RecordedServer) -> None:
    search, summary = mock_wikipedia(recorded)
    tool = wikipedia(recorded, base_delay=0)
    assert isinstance(tool, Tool) and tool.name == "wikipedia"

    await tool.search(QUERY, 3)

    request = search.last
    assert request.params == {
        "action": "query", "list": "search", "srsearch": QUERY, "srlimit": "3",
        "format": "json", "formatversion": "2",
    }
    assert request.headers["User-Agent"].startswith("factdebate/")
    paths = sorted(call.path for call in summary.calls)
    # Spaces become underscores and non-ASCII is percent-encoded, as the REST API expects.
    expected = ["Great_Wall_of_China", "Yang_Liwei", "K%C3%A1rm%C3%A1n_line"]
    assert paths == sorted(SUMMARY_PREFIX + p for p in expected)
    assert all(call.headers["User-Agent"].startswith("factdebate/") for call in summary.calls)


async def test_summaries_become_documents_in_search_order(recorded: RecordedServer) -> None:
    mock_wikipedia(recorded)
    docs = await wikipedia(recorded, base_delay=0).search(QUERY, 3)

    assert [d.title for d in docs] == ["Great Wall of China", "Yang Liwei", "Kármán line"]
    wall, yang, karman = docs
    assert wall.id == "5094570"
    assert wall.source == "https://en.wikipedia.org/wiki/Great_Wall_of_China"
    assert wall.text.startswith("The Great Wall of China is a series of fortifications")
    assert "<" not in wall.text
    assert yang.id == "1012764" and "had not seen the Great Wall" in yang.text
    assert wall.score > yang.score > karman.score > 0


async def test_failed_summary_falls_back_to_clean_snippet(recorded: RecordedServer) -> None:
    mock_wikipedia(recorded)
    docs = await wikipedia(recorded, base_delay=0).search(QUERY, 3)
    karman = docs[2]
    assert karman.id == "579532"
    assert karman.text == (
        "The Kármán line is an attempt to define a boundary between Earth's atmosphere and outer space"
    )
    assert karman.source == f"{recorded.url}/wiki/K%C3%A1rm%C3%A1n_line"


async def test_summary_server_errors_do_not_sink_the_search(recorded: RecordedServer) -> None:
    recorded.get(SEARCH, answer(json=fixture("wikipedia_search.json")))
    summary = recorded.get(SUMMARY_PREFIX, answer(503), prefix=True)
    docs = await wikipedia(recorded, attempts=2, base_delay=0).search(QUERY, 2)
    assert summary.call_count == 4  # two hits, two attempts each
    assert [d.text for d in docs] == [
        "The Great Wall of China is a series of fortifications",
        "first Chinese astronaut; he said he could not see the Great Wall",
    ]


async def test_k_limits_hits_and_language_picks_host(recorded: RecordedServer) -> None:
    search, summary = mock_wikipedia(recorded)
    docs = await wikipedia(recorded, lang="de").search(QUERY, 1)
    assert len(docs) == 1 and summary.call_count == 1
    assert search.last.params["srlimit"] == "1"
    assert WikipediaTool(lang="de").base_url == "https://de.wikipedia.org"


async def test_search_api_error_object(recorded: RecordedServer) -> None:
    recorded.get(SEARCH, answer(json={"error": {"code": "nosrsearch",
                                                "info": "The \"srsearch\" parameter must be set."}}))
    with pytest.raises(FactDebateError, match="nosrsearch"):
        await wikipedia(recorded).search(QUERY, 3)


async def test_search_429_then_success(recorded: RecordedServer) -> None:
    recorded.get(SEARCH, [
        answer(429, headers={"Retry-After": "2"}),
        answer(json={"batchcomplete": True, "query": {"search": []}}),
    ])
    assert await wikipedia(recorded, base_delay=0).search(QUERY, 3) == []


async def test_search_500_exhaustion(recorded: RecordedServer) -> None:
    route = recorded.get(SEARCH, answer(500))
    events: list[dict[str, Any]] = []
    with recording(RunRecorder(sinks=[events.append])), pytest.raises(EndpointUnavailableError) as info:
        await wikipedia(recorded, attempts=3, base_delay=0).search(QUERY, 3)
    assert route.call_count == 3
    assert f"{recorded.url}{SEARCH}" in str(info.value) and "srsearch" not in str(info.value)
    assert events[0]["event"] == "web_search" and events[0]["results"] == 0 and "error" in events[0]


def test_helpers() -> None:
    assert summary_path("AC/DC") == "AC%2FDC"
    assert summary_path("What? (film)") == "What%3F_%28film%29"
    assert strip_html('a <span class="searchmatch">b</span> &amp; c') == "a b & c"
