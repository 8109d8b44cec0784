"""An evaluation keeps a memory of its own, filled in the sample order: two identical runs give identical
verdicts and tool calls, a run recalls what another stored only from a copy it was told to start from
(``memory_from``, recorded with a checksum in run.json), a resumed run keeps its memory and a claim run again
recalls only what the claims before it stored, and concurrency does not change the order.

The executor's policy (tests/methods/mermaid/policy.py) searches until its evidence names the capital of
the claim's country, so a claim whose country an earlier claim searched for costs no tool call."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.runner import execute, make_plan
from factdebate.memory import EvidenceMemory
from factdebate.memory.seed import records_digest
from factdebate.methods.resources import RunScope
from factdebate.util.errors import ConfigError
from tests.methods.mermaid.memory_worker import FACTS
from tests.methods.mermaid.policy import capital_policy
from tests.methods.mermaid.support import FactToolset, mermaid_resources

CLAIMS = ["Paris is the capital of France", "Lyon is the capital of France", "Oslo is the capital of Norway",
          "Bergen is the capital of Norway", "Marseille is the capital of France", "Trondheim is the capital of Norway"]


class Interrupted(Exception):
    pass


def dataset(tmp_path: Path) -> str:
    path = tmp_path / "capitals.jsonl"
    path.write_text("".join(json.dumps({"id": f"c{n}", "claim": claim, "label": "SUPPORTS" if n in (0, 2) else
                                        "REFUTES"}) + "\n" for n, claim in enumerate(CLAIMS)), encoding="utf-8")
    return f"claims:{path}"


async def evaluate(tmp_path: Path, name: str, *, concurrency: int = 1, on_record: Any = None,
                   **mermaid: Any) -> tuple[dict[str, dict[str, Any]], FactToolset, Any, dict[str, Any]]:
    """One evaluation in tmp_path/name: its records by id, the toolset, the backend and run.json."""
    out = tmp_path / name
    toolset = FactToolset(FACTS)
    resources, backend = await mermaid_resources(capital_policy, toolset, run=RunScope(out),
                                                 **{"memory": "on", **mermaid})
    plan = make_plan(resources.settings, dataset(tmp_path), out, limit=None, seed=0)
    async with resources:
        await execute(plan, resources, concurrency=concurrency, progress=False, on_record=on_record)
    records = {r["id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    return records, toolset, backend, json.loads((out / "run.json").read_text())


def outcome(records: dict[str, dict[str, Any]]) -> dict[str, tuple[str, int, list[str]]]:
    """Per sample: the label, the tool calls and the recalled records' texts."""
    return {i: (r["label"], r["usage"]["tool_calls"],
                [e["text"] for e in r["rounds"][0]["turns"][0]["evidence"] if e["id"].startswith("memory:")])
            for i, r in records.items()}


async def test_two_identical_runs_give_identical_verdicts_and_tool_calls(tmp_path: Path) -> None:
    first, toolset_a, _, run = await evaluate(tmp_path, "a")
    second, toolset_b, _, _ = await evaluate(tmp_path, "b")
    assert outcome(first) == outcome(second)
    # Each run searched once per country: the second recalled nothing the first stored.
    assert len(toolset_a.calls) == len(toolset_b.calls) == 2
    assert sum(r["usage"]["tool_calls"] for r in second.values()) == 2
    assert run["run_state"]["memory"] == {"scope": "run", "file": "evidence_memory.sqlite", "mode": "on",
                                          "from": None}
    assert (tmp_path / "a" / "evidence_memory.sqlite").exists() and (tmp_path / "b" / "evidence_memory.sqlite").exists()


async def test_a_run_recalls_another_runs_memory_only_from_a_copy_it_was_given(tmp_path: Path) -> None:
    await evaluate(tmp_path, "a")
    source = tmp_path / "a" / "evidence_memory.sqlite"
    before = records_digest(EvidenceMemory(source))
    records, toolset, _, run = await evaluate(tmp_path, "seeded", memory_from=str(source))
    assert toolset.calls == [] and all(r["usage"]["tool_calls"] == 0 for r in records.values())
    assert run["run_state"]["memory"]["from"] == {"path": str(source.resolve()), "sha256": before[0],
                                                  "records": before[1]}
    assert records_digest(EvidenceMemory(source)) == before  # the source is read, never written


async def test_a_resumed_run_keeps_its_memory_and_ends_as_an_uninterrupted_one(tmp_path: Path) -> None:
    whole, _, _, _ = await evaluate(tmp_path, "whole")
    seen: list[str] = []

    def stop_after_three(record: dict[str, Any]) -> None:
        seen.append(record["id"])
        if len(seen) == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        await evaluate(tmp_path, "cut", on_record=stop_after_three)
    resumed, toolset, _, _ = await evaluate(tmp_path, "cut")
    assert outcome(resumed) == outcome(whole)
    assert len(toolset.calls) == sum(whole[i]["usage"]["tool_calls"] for i in whole if i not in seen)


async def test_a_claim_run_again_recalls_only_what_the_claims_before_it_stored(tmp_path: Path) -> None:
    """A crash after a claim's memory write but before its record: the re-run must not recall its own
    evidence (nor anything stored after it)."""
    whole, _, _, _ = await evaluate(tmp_path, "run")
    results = tmp_path / "run" / "results.jsonl"
    searched = [json.loads(line) for line in results.read_text().splitlines()]
    first_search = next(r["id"] for r in searched if r["usage"]["tool_calls"] == 1)
    results.write_text("".join(json.dumps(r) + "\n" for r in searched if r["id"] != first_search))
    again, toolset, _, _ = await evaluate(tmp_path, "run")
    assert again[first_search]["usage"]["tool_calls"] == 1 and len(toolset.calls) == 1
    assert outcome(again) == outcome(whole)


async def test_the_memory_is_filled_in_sample_order_even_with_concurrency(tmp_path: Path) -> None:
    one, _, backend_one, _ = await evaluate(tmp_path, "one")
    four, _, backend_four, _ = await evaluate(tmp_path, "four", concurrency=4)
    order = [json.loads(line)["id"] for line in (tmp_path / "four" / "results.jsonl").read_text().splitlines()]
    plan_order = [json.loads(line)["id"] for line in (tmp_path / "one" / "results.jsonl").read_text().splitlines()]
    assert order == plan_order and outcome(four) == outcome(one)

    def decomposed(backend: Any) -> list[str]:
        return [m[-1]["content"].split("Claim: ")[1].splitlines()[0] for c, m in backend.calls
                if c.prompt == "mermaid_decompose"]

    assert decomposed(backend_four) == decomposed(backend_one)
    with sqlite3.connect(tmp_path / "four" / "evidence_memory.sqlite") as db:
        positions = [row[0] for row in db.execute("SELECT position FROM evidence ORDER BY id")]
    assert positions == sorted(positions) and None not in positions


async def test_a_shared_memory_is_read_and_written_as_it_stands(tmp_path: Path) -> None:
    shared = tmp_path / "shared.sqlite"
    await evaluate(tmp_path, "a", memory_path=str(shared), memory_semantic=False)
    _, toolset, _, run = await evaluate(tmp_path, "b", memory_path=str(shared), memory_semantic=False)
    assert toolset.calls == []  # b recalls what a stored: the user named one file for both
    assert run["run_state"]["memory"] == {"scope": "shared", "path": str(shared), "mode": "on"}
    assert not (tmp_path / "b" / "evidence_memory.sqlite").exists()
    assert "memory_shared" in [d["key"] for d in run["deviations"]]


async def test_contradicting_memory_choices_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not both"):
        await evaluate(tmp_path, "x", memory_from=str(tmp_path / "m.sqlite"), memory_path=str(tmp_path / "n.sqlite"))
    with pytest.raises(ConfigError, match="--memory-from PATH"):
        await evaluate(tmp_path, "y", memory="readonly")


async def test_a_responses_claims_are_checked_in_order_in_a_run(tmp_path: Path) -> None:
    from factdebate.core.claim_context import claim_position
    from factdebate.guard_engine.response_check import run_response

    toolset = FactToolset(FACTS)
    resources, _ = await mermaid_resources(capital_policy, toolset, memory="on", run=RunScope(tmp_path / "run"))
    async with resources:
        with claim_position(0):
            checked = await run_response(" ".join(CLAIMS[:4]), resources.settings, resources,
                                         given_claims=CLAIMS[:4])
    # In order, each country is searched once; the second claim about it recalls the first one's evidence.
    assert [c.verdict.usage.tool_calls for c in checked.claims if c.verdict] == [1, 0, 1, 0]
