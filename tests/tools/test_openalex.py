"""OpenAlexTool against a hand-written recorded response (see tests/fixtures/http/README.md)."""

from __future__ import annotations

import httpx
import pytest
import respx

from factdebate.core.errors import EndpointUnavailableError
from factdebate.tools import http
from factdebate.tools.base import Tool
from factdebate.tools.openalex import OpenAlexTool, rebuild_abstract
from factdebate.util.errors import FactDebateError
from tests.http_support import fixture
from tests.paths import FIXTURES

FIXTURES = FIXTURES / "http"
URL = "https://api.openalex.org/works"
QUERY = "vitamin C common cold"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENALEX_MAILTO", raising=False)
    monkeypatch.delenv("OPENALEX_API_KEY", raising=False)

    async def instant(delay: float) -> None:
        return None

    monkeypatch.setattr(http, "_sleep", instant)


async def test_request_shape_and_mapping(respx_mock: respx.MockRouter) -> None:
    route = respx_mock.get(URL).mock(return_value=httpx.Response(200, json=fixture("openalex_works.json")))
    tool = OpenAlexTool(base_delay=0)
    assert isinstance(tool, Tool) and tool.name == "openalex"

    docs = await tool.search(QUERY, 2)

    assert dict(route.calls.last.request.url.params) == {
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


async def test_mailto_from_environment(respx_mock: respx.MockRouter, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENALEX_MAILTO", "team@example.org")
    route = respx_mock.get(URL).mock(return_value=httpx.Response(200, json={"meta": {}, "results": []}))
    assert await OpenAlexTool().search(QUERY, 5) == []
    assert route.calls.last.request.url.params["mailto"] == "team@example.org"


async def test_per_page_capped_and_results_cut(respx_mock: respx.MockRouter) -> None:
    route = respx_mock.get(URL).mock(return_value=httpx.Response(200, json=fixture("openalex_works.json")))
    await OpenAlexTool().search(QUERY, 1000)
    assert route.calls.last.request.url.params["per-page"] == "200"
    assert len(await OpenAlexTool().search(QUERY, 1)) == 1


def test_rebuild_abstract_orders_positions_and_skips_gaps() -> None:
    assert rebuild_abstract({"b": [1, 3], "a": [0], "c": [5]}) == "a b b c"
    assert rebuild_abstract(None) == ""


async def test_429_then_success(respx_mock: respx.MockRouter) -> None:
    route = respx_mock.get(URL).mock(side_effect=[
        httpx.Response(429, headers={"Retry-After": "1"}),
        httpx.Response(200, json=fixture("openalex_works.json")),
    ])
    assert len(await OpenAlexTool(base_delay=0).search(QUERY, 2)) == 2
    assert route.call_count == 2


async def test_500_exhaustion_hides_key(respx_mock: respx.MockRouter) -> None:
    respx_mock.get(URL).mock(return_value=httpx.Response(500))
    with pytest.raises(EndpointUnavailableError) as info:
        await OpenAlexTool("oa-secret-key-42", attempts=2, base_delay=0).search(QUERY, 2)
    assert URL in str(info.value) and "oa-secret-key-42" not in str(info.value)


async def test_400_is_a_clear_error(respx_mock: respx.MockRouter) -> None:
    respx_mock.get(URL).mock(return_value=httpx.Response(
        400, json={"error": "Invalid query parameters error.", "message": "per-page must be 1-200"}))
    with pytest.raises(FactDebateError, match=r"HTTP 400.*per-page"):
        await OpenAlexTool().search(QUERY, 2)
