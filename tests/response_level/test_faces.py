"""check-response through its faces: the installed CLI (argument, file, stdin), the HTTP service (JSON and
SSE) and the MCP server over stdio, each with the scripted models."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.cli.test_main import assert_clean_error, run_here
from tests.readiness import run as run_to_end
from tests.server.conftest import AUTH, AppFactory, parse_sse

TEXT = "Paris is the capital of France. The Eiffel Tower is in Paris."
PLAIN = ["--llm", "scripted:agree", "--method", "single", "--no-cache"]


def test_cli_checks_an_argument_and_prints_json() -> None:
    result = run_here("check-response", TEXT, "--json", "--question", "Tell me about Paris.", *PLAIN)
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["kind"] == "response" and verdict["question"] == "Tell me about Paris."
    assert [c["claim"] for c in verdict["claims"]] == ["Paris is the capital of France.",
                                                       "The Eiffel Tower is in Paris."]
    assert verdict["label"] == "SUPPORTS" and verdict["decided_by"] == "all-true"
    assert all(c["verdict"]["method"] == "single" for c in verdict["claims"])


def test_cli_reads_a_file_and_stdin_and_renders_a_table(tmp_path: Path) -> None:
    file = tmp_path / "answer.txt"
    file.write_text(TEXT, encoding="utf-8")
    shown = run_here("check-response", "--file", str(file), *PLAIN)
    assert shown.returncode == 0, shown.stderr
    assert "Eiffel Tower" in shown.stdout and "SUPPORTS" in shown.stdout and "all-true" in shown.stdout

    from tests.cli.test_main import EXE

    piped = run_to_end([EXE, "check-response", "-", "--json", *PLAIN], input=TEXT, env=dict(os.environ),
                       what="check-response from standard input")
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout)["response"] == TEXT


def test_cli_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    assert_clean_error(run_here("check-response", "   ", *PLAIN), "empty")
    assert_clean_error(run_here("check-response", "--file", str(tmp_path / "nope.txt"), *PLAIN), "no such file")
    assert_clean_error(run_here("check-response", "x", "--method", "nonesuch", "--llm", "scripted:agree"),
                       "nonesuch")


def test_service_json_and_stream(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        body = {"response": TEXT, "question": "Paris?", "method": "single"}
        verdict = client.post("/v1/check-response", json=body, headers=AUTH).json()
        assert verdict["kind"] == "response" and len(verdict["claims"]) == 2 and verdict["label"] == "SUPPORTS"
        bad = client.post("/v1/check-response", json={"response": " "}, headers=AUTH)
        assert bad.status_code == 422 and "empty" in bad.text
        unknown = client.post("/v1/check-response", json={"response": TEXT, "nonesuch": 1}, headers=AUTH)
        assert unknown.status_code == 422
        stream = client.post("/v1/check-response/stream", json=body, headers=AUTH)
    events = parse_sse(stream.text)
    kinds = [name for name, _ in events]
    assert kinds[0] == "response_started" and "claims_extracted" in kinds and kinds.count("run_started") == 2
    assert kinds[-1] == "result" and json.loads(json.dumps(events[-1][1]))["kind"] == "response"


def _payload(result: Any) -> Any:
    assert not result.is_error, result.content
    content = result.structured_content
    if content is not None:
        return content.get("result", content) if isinstance(content, dict) and set(content) == {"result"} else content
    return json.loads(result.content[0].text)


async def test_mcp_check_response_tool(tmp_path: Path) -> None:
    mcp = pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path), "FACTDEBATE_LLM": "scripted:agree",
           "FACTDEBATE_METHOD": "single", "FACTDEBATE_LLM__CACHE": "false"}
    params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "factdebate.server.mcp.server"], env=env)
    client = mcp.stdio_client(params, errlog=sys.__stderr__)  # stderr as it is now, not at mcp's import
    async with client as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        assert "check_response" in {tool.name for tool in (await session.list_tools()).tools}
        result = _payload(await session.call_tool("check_response", {"response": TEXT}))
        assert result["label"] == "SUPPORTS" and result["factual"] is True and len(result["claims"]) == 2
        failed = await session.call_tool("check_response", {"response": ""})
        assert failed.is_error and "empty" in failed.content[0].text
