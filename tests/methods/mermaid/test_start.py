"""A MERMAID tool server that fails to start: the failure is recorded once per run, every claim it affects
is an error naming the server and the cause (counted as errored, no model call spent), and the start is
tried again only as the policy allows."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Self

import pytest

from factdebate.eval.runner import execute, make_plan
from factdebate.methods.mermaid.start import StartPolicy, ToolboxUnavailable
from factdebate.methods.mermaid.toolbox import Toolbox
from factdebate.settings.load import load_settings
from factdebate.tools.toolset import ToolResult, ToolSchema
from factdebate.util.errors import FactDebateError
from tests.helpers import resources_for
from tests.methods.mermaid.support import SEARCH_SCHEMA, answer, decomposition, script

pytest.importorskip("mcp")


def broken_server(marker: Path) -> dict[str, Any]:
    """A stdio command that notes each start in ``marker``, complains and exits before the handshake."""
    code = (f"import sys; open({str(marker)!r}, 'a').write('start\\n'); "
            "print('no index here', file=sys.stderr); sys.exit(3)")
    return {"command": sys.executable, "args": ["-c", code]}


def replies(call: Any, text: str) -> str:
    return decomposition("Paris", "France") if call.prompt == "mermaid_decompose" else answer("True")


async def test_a_failed_start_is_recorded_once_and_every_claim_is_an_error(tmp_path: Path) -> None:
    marker = tmp_path / "starts.txt"
    overrides: dict[str, Any] = {"mcp_servers": {"broken": broken_server(marker)},
                                 "methods": {"mermaid": {"servers": [], "memory": "off"}}}
    rows = [{"id": f"c{i}", "claim": f"Paris is in France ({i}).", "label": "SUPPORTS"} for i in range(3)]
    (tmp_path / "claims.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    settings = load_settings(overrides={"method": "mermaid", "llm": {"cache": False}, **overrides}, environ={})
    plan = make_plan(settings, f"claims:{tmp_path / 'claims.jsonl'}", tmp_path / "run", limit=None, seed=0)
    resources, backend, _ = resources_for(script(replies), method="mermaid", tools={}, **overrides)

    summary = await execute(plan, resources, concurrency=1, progress=False)

    errored = summary["metrics"]["errored"]
    assert sorted(errored) == ["c0", "c1", "c2"]
    for message in errored.values():
        assert "'broken'" in message and "Connection closed" in message, message
        assert "start 1 of 3 failed" in message
    assert marker.read_text().splitlines() == ["start"]  # started once for the whole run
    assert backend.calls == []  # no claim spent a model call on tools it could not have
    records = [json.loads(line) for line in (plan.output / "results.jsonl").read_text().splitlines()]
    assert all(r["predicted"] is None and r["correct"] is False for r in records)
    await resources.aclose()


class FlakyToolset:
    """Fails its first ``failures`` starts, then opens with one search tool."""

    name = "flaky"

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.starts = 0

    async def __aenter__(self) -> Self:
        self.starts += 1
        if self.starts <= self.failures:
            raise FactDebateError("MCP server 'flaky' did not start within 900 s")
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_tools(self) -> list[ToolSchema]:
        return [ToolSchema("search_flaky", "Search.", SEARCH_SCHEMA)]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult("nothing")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_retries_wait_and_stop_after_the_policys_attempts() -> None:
    clock, toolset = Clock(), FlakyToolset(failures=10)
    toolbox = Toolbox([toolset], StartPolicy(attempts=3, wait=10), clock)
    await toolbox.aopen()  # the service's first start: recorded, not raised
    assert toolset.starts == 1
    for now, starts, says in [(5, 1, "next try in 5 s"), (10, 2, "start 2 of 3 failed; next try in 20 s"),
                              (29, 2, "next try in 1 s"), (30, 3, "no more tries in this run"),
                              (10_000, 3, "no more tries in this run")]:
        clock.now = now
        with pytest.raises(ToolboxUnavailable) as caught:
            await toolbox.ready()
        assert toolset.starts == starts
        assert says in str(caught.value) and "'flaky' did not start within 900 s" in str(caught.value)


async def test_a_later_start_that_succeeds_serves_the_claims_after_it() -> None:
    clock, toolset = Clock(), FlakyToolset(failures=1)
    toolbox = Toolbox([toolset], StartPolicy(attempts=3, wait=10), clock)
    await toolbox.aopen()
    clock.now = 10
    await toolbox.ready()
    await toolbox.ready()
    assert toolset.starts == 2 and list(toolbox.routes) == ["search_flaky"]
    await toolbox.aclose()
