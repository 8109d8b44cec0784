"""PubMedTool against hand-written recorded E-utilities responses (see tests/fixtures/http/README.md),
served on loopback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from factdebate.core.errors import EndpointUnavailableError
from factdebate.core.runtime import RunRecorder, recording
from factdebate.tools import http
from factdebate.tools.base import Tool
from factdebate.tools.pubmed import PubMedTool, parse_efetch
from factdebate.util.errors import FactDebateError
from tests.paths import FIXTURES
from tests.recorded_http import RecordedServer, Route, answer

FIXTURES = FIXTURES / "http"
ESEARCH = "/entrez/eutils/esearch.fcgi"
EFETCH = "/entrez/eutils/efetch.fcgi"
QUERY = "vitamin c common cold"
KEY = "ncbi-key-0123456789abcdef"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NCBI_API_KEY", raising=False)

    async def instant(delay: float) -> None:
        return None

    monkeypatch.setattr(http, "_sleep", instant)


def pubmed(server: RecordedServer, *args: Any, **options: Any) -> PubMedTool:
    return PubMedTool(*args, base_url=f"{server.url}/entrez/eutils", **options)


def mock_eutils(server: RecordedServer) -> tuple[Route, Route]:
    found = json.loads((FIXTURES / "pubmed_esearch.json").read_text(encoding="utf-8"))
    esearch = server.get(ESEARCH, answer(json=found))
    efetch = server.get(EFETCH, answer(text=(FIXTURES / "pubmed_efetch.xml").read_text(encoding="utf-8"),
                                       headers={"Content-Type": "text/xml; charset=UTF-8"}))
    return esearch, efetch


async def test_request_shape(recorded: RecordedServer) -> None:
    esearch, efetch = mock_eutils(recorded)
    tool = pubmed(recorded, KEY, base_delay=0)
    assert isinstance(tool, Tool) and tool.name == "pubmed"
    assert PubMedTool().base_url == "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"

    await tool.search(QUERY, 2)

    search_params = esearch.last.params
    assert {k: search_params[k] for k in ("db", "term", "retmax", "retmode", "api_key")} == {
        "db": "pubmed", "term": QUERY, "retmax": "2", "retmode": "json", "api_key": KEY,
    }
    fetch_params = efetch.last.params
    assert {k: fetch_params[k] for k in ("db", "id", "rettype", "retmode", "api_key")} == {
        "db": "pubmed", "id": "23440782,29138001", "rettype": "abstract", "retmode": "xml", "api_key": KEY,
    }


async def test_no_key_no_api_key_param(recorded: RecordedServer) -> None:
    esearch, efetch = mock_eutils(recorded)
    await pubmed(recorded).search(QUERY, 2)
    assert "api_key" not in esearch.last.params
    assert "api_key" not in efetch.last.params


async def test_key_from_environment(recorded: RecordedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NCBI_API_KEY", "env-key-xyz")
    esearch, _ = mock_eutils(recorded)
    await pubmed(recorded).search(QUERY, 2)
    assert esearch.last.params["api_key"] == "env-key-xyz"


async def test_mapping_keeps_esearch_order_and_labels(recorded: RecordedServer) -> None:
    mock_eutils(recorded)
    events: list[dict[str, Any]] = []
    with recording(RunRecorder(sinks=[events.append])):
        docs = await pubmed(recorded).search(QUERY, 2)

    cochrane, zinc = docs  # EFetch answered in the other order
    assert cochrane.id == "23440782"
    assert cochrane.title == "Vitamin C for preventing and treating the common cold."
    assert cochrane.source == "https://pubmed.ncbi.nlm.nih.gov/23440782/"
    assert cochrane.text.splitlines() == [
        "BACKGROUND: Vitamin C has been proposed for the common cold since the 1940s.",
        "MAIN RESULTS: Regular supplementation had no consistent effect on incidence (RR 0.97) but shortened "
        "duration by 8% in adults.",
        "AUTHORS' CONCLUSIONS: Routine supplementation is not justified for the general population.",
    ]
    assert zinc.id == "29138001"
    assert zinc.text == "Zinc acetate lozenges shortened the duration of colds by about a third."
    assert cochrane.score > zinc.score
    assert events[0]["tool"] == "pubmed" and events[0]["results"] == 2


async def test_no_hits_skips_efetch(recorded: RecordedServer) -> None:
    recorded.get(ESEARCH, answer(json={"header": {}, "esearchresult": {"count": "0", "retmax": "0", "idlist": []}}))
    efetch = recorded.get(EFETCH)
    assert await pubmed(recorded).search("zzzz nothing", 3) == []
    assert not efetch.called


async def test_esearch_error_field(recorded: RecordedServer) -> None:
    recorded.get(ESEARCH, answer(json={"esearchresult": {"ERROR": "Invalid query"}}))
    with pytest.raises(FactDebateError, match="Invalid query"):
        await pubmed(recorded).search(QUERY, 3)


async def test_429_then_success(recorded: RecordedServer) -> None:
    _, efetch = mock_eutils(recorded)
    efetch.answers = [
        answer(429, headers={"Retry-After": "1"}, json={"error": "API rate limit exceeded", "count": "4"}),
        answer(text=(FIXTURES / "pubmed_efetch.xml").read_text(encoding="utf-8")),
    ]
    assert len(await pubmed(recorded, base_delay=0).search(QUERY, 2)) == 2
    assert efetch.call_count == 2


async def test_500_exhaustion_hides_key(recorded: RecordedServer) -> None:
    route = recorded.get(ESEARCH, answer(500, text="Internal error"))
    with pytest.raises(EndpointUnavailableError) as info:
        await pubmed(recorded, KEY, attempts=4, base_delay=0).search(QUERY, 2)
    assert route.call_count == 4
    assert f"{recorded.url}{ESEARCH}" in str(info.value) and KEY not in str(info.value)


async def test_400_is_a_clear_error(recorded: RecordedServer) -> None:
    recorded.get(ESEARCH, answer(400, json={"error": "API key invalid", "api-key": KEY, "type": "invalid"}))
    with pytest.raises(FactDebateError, match=r"HTTP 400.*API key invalid") as info:
        await pubmed(recorded, KEY).search(QUERY, 2)
    assert KEY not in str(info.value)


def test_bad_xml() -> None:
    with pytest.raises(FactDebateError, match="unreadable XML"):
        parse_efetch("<PubmedArticleSet><oops")
