"""OpenAlexTool against a hand-written recorded response (see tests/fixtures/http/README.md), served on
loopback."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.core.errors import EndpointUnavailableError
from factdebate.tools import http
from factdebate.tools.base import Tool
from factdebate.tools.openalex import OpenAlexTool, rebuild_abstract
from factdebate.util.errors import FactDebateError
from tests.http_support import fixture
from tests.paths import FIXTURES
from tests.recorded_http import RecordedServer, answer

FIXTURES = FIXTURES / "http"
WORKS = "/works"
QUERY = "vitamin C common cold"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENALEX_MAILTO", raising=False)
    monkeypatch.delenv("OPENALEX_API_KEY", raising=False)

    async def instant(delay: float) -> None:
        return None

    monkeypatch.setattr(http, "_sleep", instant)


def openalex(server: RecordedServer, *args: Any, **options: Any) -> OpenAlexTool:
    return OpenAlexTool(*args, base_url=server.url, **options)


async def test_request_shape_and_mapping(recorded: RecordedServer) -> None:
    route = recorded.get(WORKS, answer(json=fixture("openalex_works.json")))
    tool = openalex(recorded, base_delay=0)
    assert isinstance(tool, Tool) and tool.name == "openalex"
    assert OpenAlexTool().base_url == "https://api.openalex.org"

    docs = await tool.search(QUERY, 2)

    assert route.last.params == {
        "search": QUERY, "per-page": "2", "filter": "has_abstract:true",
    }
    cochrane, zinc = docs
    assert cochrane.id == "https://openalex.org/W2100837269"
    assert cochrane.title == "Vitamin C for preventing and treating the common cold"
    assert cochrane.source == "https://doi.org/10.1002/14651858.cd000980.pub4"
    assert cochrane.text == (
        "Regular vitamin C supplementation did not reduce the incidence of colds; however, vitamin C "
        "shortened their duration."
    )
    assert cochrane.score == pytest.approx(812.4)
    # No DOI: the OpenAlex id is the source.
    assert zinc.source == "https://openalex.org/W3000000001"
    assert zinc.text == "Zinc lozenges may shorten colds."


async def test_mailto_from_environment(recorded: RecordedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENALEX_MAILTO", "team@example.org")
    route = recorded.get(WORKS, answer(json={"meta": {}, "results": []}))
    assert await openalex(recorded).search(QUERY, 5) == []
    assert route.last.params["mailto"] == "team@example.org"


async def test_per_page_capped_and_results_cut(recorded: RecordedServer) -> None:
    route = recorded.get(WORKS, answer(json=fixture("openalex_works.json")))
    await openalex(recorded).search(QUERY, 1000)
    assert route.last.params["per-page"] == "200"
    assert len(await openalex(recorded).search(QUERY, 1)) == 1


def test_rebuild_abstract_orders_positions_and_skips_gaps() -> None:
    assert rebuild_abstract({"b": [1, 3], "a": [0], "c": [5]}) == "a b b c"
    assert rebuild_abstract(None) == ""


async def test_429_then_success(recorded: RecordedServer) -> None:
    route = recorded.get(WORKS, [answer(429, headers={"Retry-After": "1"}),
                                 answer(json=fixture("openalex_works.json"))])
    assert len(await openalex(recorded, base_delay=0).search(QUERY, 2)) == 2
    assert route.call_count == 2


async def test_500_exhaustion_hides_key(recorded: RecordedServer) -> None:
    recorded.get(WORKS, answer(500))
    with pytest.raises(EndpointUnavailableError) as info:
        await openalex(recorded, "oa-secret-key-42", attempts=2, base_delay=0).search(QUERY, 2)
    assert f"{recorded.url}{WORKS}" in str(info.value) and "oa-secret-key-42" not in str(info.value)


async def test_400_is_a_clear_error(recorded: RecordedServer) -> None:
    recorded.get(WORKS, answer(400, json={"error": "Invalid query parameters error.",
                                          "message": "per-page must be 1-200"}))
    with pytest.raises(FactDebateError, match=r"HTTP 400.*per-page"):
        await openalex(recorded).search(QUERY, 2)
