"""MERMAID's tool faults are errors, never verdicts: a tool server that crashes or hangs on every call, a
toolbox with no tools, an unindexed corpus and an empty server list; a claim where only some calls failed
still gets its verdict; a batch retries the failed claim on resume; a tool server that died (or hangs) is
started again, within the start budget, in a batch and in the service."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from factdebate.cli.main import run
from factdebate.core.errors import IndexError_
from factdebate.core.types import Label
from factdebate.llm.calls import CallInfo
from factdebate.methods.mermaid.start import ToolCallsFailed
from factdebate.run.claim import run_claim
from factdebate.util.errors import ConfigError, FactDebateError
from tests.helpers import resources_for
from tests.methods.mermaid.support import FactToolset, action, answer, decomposition, mermaid_resources, script

pytest.importorskip("mcp")

FAULTY = str(Path(__file__).with_name("faulty_mcp_server.py"))
CLAIM = "Paris is the capital of France."


def faulty_server(starts: Path, crash_while: Path | None = None, timeout: float = 30.0) -> dict[str, Any]:
    args = [FAULTY, "--starts", str(starts)] + (["--crash-while", str(crash_while)] if crash_while else [])
    return {"command": sys.executable, "args": args, "timeout": timeout, "connect_timeout": 60}


def plan(*tools: str) -> Any:
    """The executor calls ``tools`` in turn (each with the claim's subject, worded anew each step: an executor
    that repeats an identical action is stopped), then answers True."""

    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition("Paris", "France")
        if call.prompt == "mermaid_step" and call.round <= len(tools):
            return action(tools[call.round - 1], "Paris France" + " again" * (call.round - 1))
        return answer("True")

    return replies


async def verify(replies: Any, server: dict[str, Any]) -> Any:
    resources, backend, _ = resources_for(script(replies), method="mermaid", tools={},
                                          mcp_servers={"faulty": server},
                                          methods={"mermaid": {"servers": [], "memory": "off", "max_steps": 4}})
    async with resources:
        return await run_claim(CLAIM, resources.settings, resources), backend


def starts(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


async def test_a_tool_server_that_crashes_on_every_call_makes_the_claim_an_error(tmp_path: Path) -> None:
    with pytest.raises(ToolCallsFailed) as caught:
        await verify(plan("crash", "crash"), faulty_server(tmp_path / "starts"))
    message = str(caught.value)
    assert "'faulty'" in message and "Connection closed" in message and "2 tool call(s)" in message, message
    assert len(starts(tmp_path / "starts")) >= 3  # started, then again after each death


async def test_a_tool_server_that_hangs_makes_the_claim_an_error_and_is_started_again(tmp_path: Path) -> None:
    with pytest.raises(ToolCallsFailed) as caught:
        await verify(plan("hang", "hang"), faulty_server(tmp_path / "starts", timeout=1.0))
    message = str(caught.value)
    assert "'faulty'" in message and "timed out after 1 s" in message, message
    assert len(starts(tmp_path / "starts")) == 3  # a hung server does not answer a ping: it is replaced


async def test_some_failed_calls_beside_one_with_evidence_still_give_a_verdict(tmp_path: Path) -> None:
    verdict, _ = await verify(plan("hang", "search_facts"), faulty_server(tmp_path / "starts", timeout=1.0))
    assert verdict.label == Label.SUPPORTS
    hung, looked_up, _ = verdict.rounds[0].turns[0].steps
    assert hung.observation.startswith("error:") and "timed out" in hung.observation
    assert "capital and largest city of France" in looked_up.observation  # served by the restarted server
    assert len(starts(tmp_path / "starts")) == 2


async def test_a_toolbox_with_no_tools_is_an_error_before_any_model_call() -> None:
    class Empty(FactToolset):
        async def list_tools(self) -> list[Any]:
            return []

    resources, backend = await mermaid_resources(plan(), Empty({}, name="empty"))
    async with resources:
        with pytest.raises(FactDebateError, match="'empty' offers no tools"):
            await run_claim(CLAIM, resources.settings, resources)
    assert backend.calls == []


async def test_the_model_may_answer_without_calling_the_tools_it_has() -> None:
    resources, _ = await mermaid_resources(plan(), FactToolset({}))
    async with resources:
        verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.label == Label.SUPPORTS and verdict.usage.tool_calls == 0


async def test_an_unindexed_corpus_and_an_empty_server_list_fail_before_any_model_call() -> None:
    resources, backend, _ = resources_for(script(plan()), method="mermaid", tools={},
                                          retrieval={"corpus": "nosuch"}, methods={"mermaid": {"servers": ["search"]}})
    with pytest.raises(IndexError_, match="no local search index for corpus 'nosuch'"):
        await run_claim(CLAIM, resources.settings, resources)
    resources, backend, _ = resources_for(script(plan()), method="mermaid", tools={},
                                          methods={"mermaid": {"servers": []}})
    with pytest.raises(ConfigError, match="MERMAID has no tool servers"):
        await run_claim(CLAIM, resources.settings, resources)
    assert backend.calls == []


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.err


MERMAID = ["--method", "mermaid", "--llm", "scripted:agree", "--no-cache", "--mermaid-memory", "off"]


@pytest.mark.parametrize("flags, says", [
    (["--corpus", "nosuch", "--mermaid-servers", "search"], "no local search index for corpus 'nosuch'"),
    (["--mermaid-servers", ""], "MERMAID has no tool servers"),
])
def test_usage_errors_exit_2_with_one_line(flags: list[str], says: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, err = cli(capsys, "verify", *MERMAID, *flags, CLAIM)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": "c1", "claim": CLAIM}) + "\n")
    code, err = cli(capsys, "verify", *MERMAID, *flags, "--input", str(claims), "--output", str(tmp_path / "o.jsonl"))
    assert code == 2 and says in err, err
    assert not (tmp_path / "o.jsonl").exists() or not (tmp_path / "o.jsonl").read_text().strip()
    code, err = cli(capsys, "eval", *MERMAID, *flags, "--dataset", "countries", "--limit", "1",
                    "--output", str(tmp_path / "run"))
    assert code == 2 and says in err, err
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_a_batch_records_the_failed_claim_as_an_error_and_retries_it_on_resume(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crash = tmp_path / "crash-while"
    crash.touch()
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"mcp_servers": {"faulty": faulty_server(tmp_path / "starts", crash)},
                                      "methods": {"mermaid": {"servers": []}}}))
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": "c1", "claim": CLAIM}) + "\n")
    out = tmp_path / "out.jsonl"
    args = ["verify", *MERMAID, "--config", str(config), "--input", str(claims), "--output", str(out)]

    code, err = cli(capsys, *args)
    assert code == 1 and "1 errors" in err, err
    record = json.loads(out.read_text())
    assert record.get("label") is None and "'faulty'" in record["error"] and "Connection closed" in record["error"]

    crash.unlink()  # the cause went away: the re-run retries the claim and it gets its verdict
    code, err = cli(capsys, *args)
    assert code == 0 and "1 verified, 0 already done, 0 errors" in err, err
    record = json.loads(out.read_text())
    assert record["label"] == "SUPPORTS" and not record.get("error")
    assert "capital and largest city" in record["rounds"][0]["turns"][0]["steps"][0]["observation"]


def test_the_service_starts_a_tool_server_that_died_again(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from factdebate.server.app import create_app

    config = tmp_path / "settings.yaml"
    config.write_text(yaml.safe_dump({"method": "mermaid",
                                      "mcp_servers": {"faulty": faulty_server(tmp_path / "starts")},
                                      "methods": {"mermaid": {"servers": [], "memory": "off"}}}))
    # The operator offers the server to callers (an unlisted one is not in a caller's run at all).
    app = create_app(api_keys=["k" * 20], db_path=tmp_path / "service.sqlite", config_file=config,
                     defaults={"llm": "scripted:agree", "cache": False}, allowed_mcp_tools=["mcp:faulty/*"])
    auth = {"Authorization": "Bearer " + "k" * 20}
    with TestClient(app) as client:
        first = client.post("/v1/verify", json={"claim": "Paris is the capital of France."}, headers=auth)
        assert first.status_code == 200, first.text
        [pid] = starts(tmp_path / "starts")
        os.kill(int(pid), signal.SIGKILL)  # the tool server dies between two requests
        second = client.post("/v1/verify", json={"claim": "Oslo is the capital of Norway."}, headers=auth)
    assert second.status_code == 200, second.text
    step = second.json()["rounds"][0]["turns"][0]["steps"][0]
    assert "Oslo is the capital of Norway" in step["observation"] and not step["observation"].startswith("error")
    assert len(starts(tmp_path / "starts")) == 2
