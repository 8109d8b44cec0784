"""``method=dpd`` through every face: the Python API (real MiniLM encoder), the CLI (``--dry-run`` bounds and a
JSON verdict), the service's stream (the panel event and judges' scores) and the MCP server over stdio."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import factdebate
from factdebate.cli.main import app
from tests.server.conftest import AUTH, AppFactory, parse_sse

QUICK = {"dpd_min_rounds": 0, "dpd_max_rounds": 0, "dpd_tools": [], "cache": False}


def test_the_api_runs_dpd_with_the_real_encoder() -> None:
    verdict = factdebate.verify("The Eiffel Tower is in Paris.", method="dpd", llm="scripted:disagree", **QUICK)
    assert verdict.method == "dpd" and verdict.decided_by == "panel" and verdict.label is not None
    assert verdict.consensus == pytest.approx(0.75)  # 0.9 + 0.9 agree, 0.6 dissents
    summaries = [t for t in verdict.rounds[1].turns if t.role == "summarizer"]
    confidence = summaries[0].scores["confidence"]
    assert confidence is not None and confidence == pytest.approx(1.0, abs=1e-3)  # three identical samples


def test_the_cli_prints_bounds_and_a_json_verdict(tmp_path: Any) -> None:
    runner = CliRunner()
    dry = runner.invoke(app, ["eval", "--method", "dpd", "--dataset", "countries", "--limit", "2", "--dry-run",
                              "--dpd-min-rounds", "1", "-o", str(tmp_path / "dry")])
    assert dry.exit_code == 0, dry.output
    # Fewest: 2 query calls + analyst, then 2 judged rounds of 2×(1+3) + 3; most: re-asks, 4 rounds.
    assert "LLM calls per sample: 25 to 61" in dry.output
    result = runner.invoke(app, ["verify", "--method", "dpd", "--llm", "scripted:agree", "--json", "--no-cache",
                                 "--dpd-min-rounds", "0", "--dpd-max-rounds", "0", "--dpd-tools", "",
                                 "Water boils at 100 C."])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output[result.output.index("{"):])
    assert verdict["method"] == "dpd" and verdict["consensus"] == 1.0 and len(verdict["judges"]) == 3


def test_the_service_streams_the_panel(make_app: AppFactory) -> None:
    defaults = {"llm": "scripted:disagree", "method": "dpd", **QUICK}
    with TestClient(make_app(defaults=defaults)) as client, client.stream(
            "POST", "/v1/verify/stream", json={"claim": "Water boils at 100 C.", "method": "dpd"},
            headers=AUTH) as r:
        assert r.status_code == 200
        events = parse_sse("".join(r.iter_text()))
    panels = [data for name, data in events if name == "panel"]
    assert len(panels) == 1 and panels[0]["outcome"] == "affirmative" and panels[0]["stop"]
    ballots = [data for name, data in events if name == "judgement"]
    assert len(ballots) == 3 and all(len(b["scores"]) == 8 for b in ballots)
    assert events[-1][0] == "result" and events[-1][1]["consensus"] == pytest.approx(0.75)


async def test_mcp_verify_claim_with_dpd(tmp_path: Any) -> None:
    mcp = pytest.importorskip("mcp")
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path), "FACTDEBATE_LLM": "scripted:agree",
           "FACTDEBATE_METHOD": "dpd", "FACTDEBATE_METHODS__DPD__TOOLS": "[]", "FACTDEBATE_LLM__CACHE": "false",
           "FACTDEBATE_METHODS__DPD__MIN_ROUNDS": "0", "FACTDEBATE_METHODS__DPD__MAX_ROUNDS": "0"}
    params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "factdebate.server.mcp.server"], env=env)
    client = mcp.stdio_client(params, errlog=sys.__stderr__)  # stderr as it is now, not at mcp's import
    async with client as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("verify_claim", {"claim": "The Eiffel Tower is in Paris."})
        assert not result.is_error, result.content
        content = result.structured_content or json.loads(result.content[0].text)
        verdict = content.get("result", content)
        assert verdict["method"] == "dpd" and verdict["decided_by"] == "panel" and verdict["label"] == "SUPPORTS"
