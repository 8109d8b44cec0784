"""The search tool server: the local engine as a subprocess; Tavily in-process against recorded responses served
on loopback."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from factdebate.tools.leakage import FACT_CHECK_DOMAINS, LeakagePolicy
from factdebate.tools.tavily import TavilyTool
from factdebate.toolservers.search_server import build_search_server
from tests.http_support import no_sleep  # noqa: F401  (autouse fixture)
from tests.paths import FIXTURES, ROOT
from tests.readiness import run
from tests.recorded_http import RecordedServer, answer
from tests.toolservers.helpers import error_text, payload, tool_server

FIXTURES = FIXTURES / "http"
KEY = "tvly-SECRET-0123456789"


def tavily_payload(dated: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "tavily_search.json").read_text(encoding="utf-8"))
    if dated:
        data["results"][0]["published_date"] = "2024-05-01"
        data["results"][1]["published_date"] = "2019-03-02"
    return data


@pytest.mark.usefixtures("builtin_index")  # the 40-article index and the encoder, made once per run
async def test_local_search_over_stdio_with_leakage_notes() -> None:
    env = {"FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": "40", "FACTDEBATE_DATA_DIR": os.environ["FACTDEBATE_DATA_DIR"]}
    async with tool_server("search", "--engines", "local", env=env) as session:
        assert {t.name for t in (await session.list_tools()).tools} == {"search_local"}  # no key: no web tool
        found = payload(await session.call_tool("search_local", {"query": "Angkor Wat temple", "k": 2}))
        assert found["results"][0]["title"] == "Angkor Wat" and found["notes"] == []
        dated = payload(await session.call_tool("search_local", {"query": "Angkor Wat", "search_before": "2010-01-01"}))
        assert "NOT applied" in dated["notes"][0] and dated["results"]
        dropped = payload(await session.call_tool("search_local", {"query": "Angkor Wat",
                                                                    "exclude_domains": ["wikipedia.org"]}))
        assert dropped["results"] == [] and "excluded domains removed" in dropped["notes"][0]
        too_many = error_text(await session.call_tool("search_local", {"query": "Angkor", "k": 50}))
        assert "less than or equal to 10" in too_many


async def test_unknown_engine_is_a_clear_startup_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = run([sys.executable, "-m", "factdebate.cli.main", "mcp-tools", "search", "--engines", "bing"],
               stdin=subprocess.DEVNULL, what="factdebate mcp-tools search --engines bing")
    assert done.returncode != 0 and "unknown engine" in done.stderr and "Traceback" not in done.stderr


async def test_tavily_gets_domain_and_date_filters(recorded: RecordedServer) -> None:
    route = recorded.post("/search", answer(json=tavily_payload(dated=True)))
    server = build_search_server(tavily=TavilyTool(api_key=KEY, base_url=recorded.url, base_delay=0),
                                 policy=LeakagePolicy(domains=("nasa.gov",)))
    result = await server.call_tool("search_web", {"query": "Great Wall visible from space", "k": 5,
                                                   "search_before": "2020-01-01", "exclude_fact_checkers": True})
    body = route.last.json()
    assert body["end_date"] == "2019-12-31"  # Tavily's end date is inclusive
    assert "nasa.gov" in body["exclude_domains"] and "snopes.com" in body["exclude_domains"]
    assert not any("/" in d for d in body["exclude_domains"])  # path entries are filtered afterwards
    data = result.structured_content
    assert data is not None
    # The result dated after the cut-off is dropped even though the API returned it.
    assert [r["title"] for r in data["results"]] == ["Can you see the Great Wall of China from space? | "
                                                     "Scientific American", "Great Wall of China - Wikipedia"]
    assert any("dated on or after 2020-01-01" in n for n in data["notes"])


async def test_a_call_cannot_loosen_the_operators_cutoff(recorded: RecordedServer) -> None:
    route = recorded.post("/search", answer(json=tavily_payload()))
    server = build_search_server(tavily=TavilyTool(api_key=KEY, base_url=recorded.url, base_delay=0),
                                 policy=LeakagePolicy(before=__import__("datetime").date(2018, 6, 1)))
    await server.call_tool("search_web", {"query": "Great Wall", "search_before": "2024-01-01"})
    assert route.last.json()["end_date"] == "2018-05-31"
    await server.call_tool("search_web", {"query": "Great Wall"})
    assert "exclude_domains" not in route.last.json()  # fact-checkers off by default


async def test_tavily_failure_is_a_tool_error_without_the_key(recorded: RecordedServer) -> None:
    recorded.post("/search", answer(401, json={"detail": f"bad key {KEY}"}))
    server = build_search_server(tavily=TavilyTool(api_key=KEY, base_url=recorded.url, base_delay=0))
    with pytest.raises(ToolError) as caught:
        await server.call_tool("search_web", {"query": "Great Wall"})
    message = str(caught.value)
    assert "401" in message and KEY not in message and "Traceback" not in message


def test_fact_check_list_is_documented() -> None:
    doc = (ROOT / "docs" / "methods" / "mermaid-tools.md").read_text(encoding="utf-8")
    missing = [d for d in FACT_CHECK_DOMAINS if d not in doc]
    assert not missing, missing
