"""The evidence memory through the method: recall before the loop and update after the verdict, across two
claims and across two processes; readonly and off; and the rule that neither the verdict nor a gold label
is ever stored."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from factdebate.cli.main import app
from factdebate.core.types import Label
from factdebate.llm.calls import CallInfo
from factdebate.memory import Evidence, EvidenceMemory, open_memory
from factdebate.methods.mermaid.settings import MermaidSettings, memory_settings
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.methods.mermaid.memory_worker import FACTS
from tests.methods.mermaid.policy import capital_policy
from tests.methods.mermaid.support import FactToolset, action, answer, decomposition, mermaid_resources
from tests.paths import ROOT

ROOT = ROOT
TOWER = {"eiffel": "The Eiffel Tower was completed in 1889 and stood 300 metres tall."}


async def run_all(claims: list[str], path: Path, **mermaid):  # type: ignore[no-untyped-def]
    toolset = FactToolset(FACTS)
    events: list[dict] = []
    resources, backend = await mermaid_resources(capital_policy, toolset, memory_path=path, **mermaid)
    async with resources:
        verdicts = [await run_claim(c, resources.settings, resources, sinks=[events.append]) for c in claims]
    return verdicts, toolset, events, backend


async def test_second_claim_about_the_same_entity_needs_no_search(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    verdicts, toolset, events, backend = await run_all(
        ["Paris is the capital of France", "Lyon is the capital of France"], path)
    assert [v.label for v in verdicts] == [Label.SUPPORTS, Label.REFUTES]
    assert [v.usage.tool_calls for v in verdicts] == [1, 0] and len(toolset.calls) == 1
    recalls = [e for e in events if e["event"] == "memory_recall"]
    assert recalls[0]["hits"] == [] and recalls[1]["hits"][0]["stored_entity"] == "France"
    assert "Paris is the capital of France" in recalls[1]["hits"][0]["text"]
    writes = [e for e in events if e["event"] == "memory_write"]
    assert writes[0]["added"] >= 1 and {r["entity"] for r in writes[0]["records"]} == {"Paris", "France"}
    # The recalled record is in the second executor's prompt and in its turn's evidence.
    second_steps = [m for c, m in backend.calls if c.prompt == "mermaid_step"][-1][0]["content"]
    assert "Evidence remembered" in second_steps and "search_facts" in second_steps
    assert verdicts[1].rounds[0].turns[0].evidence[0].id.startswith("memory:")
    stored = EvidenceMemory(path, namespace="builtin").show("France")
    assert stored and stored[0].tool == "search_facts" and stored[0].source == "https://facts.example/france"


async def test_only_evidence_naming_an_entity_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    await run_all(["Oslo is the capital of Norway"], path)
    memory = EvidenceMemory(path, namespace="builtin")
    assert {row["entity"] for row in memory.entities()} == {"Oslo", "Norway"}
    assert all("France" not in r["text"] for r in memory.export())


async def test_the_memory_never_stores_the_verdict_or_a_gold_label(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    verdicts, _, _, _ = await run_all(["Paris is the capital of France", "Oslo is the capital of Norway"], path)
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT text, source, query, tool FROM evidence").fetchall()
        columns = {r[1] for r in db.execute("PRAGMA table_info(evidence)")}
    assert rows and not ({"label", "verdict", "gold", "answer"} & columns)
    for text, source, query, tool in rows:
        assert tool == "search_facts"  # never "answer" or the forced answer
        for field in (text, source, query):
            assert "SUPPORTS" not in field and "REFUTES" not in field and field.strip() not in {"True", "False"}
    # The executor's answer (its response holds "answer": "True") is nowhere in the store.
    assert all(verdicts[0].rounds[0].turns[0].response not in r[0] for r in rows)


async def test_readonly_recalls_and_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    await run_all(["Paris is the capital of France"], path)
    before = list(EvidenceMemory(path, namespace="builtin").export())
    verdicts, _, events, _ = await run_all(["Lyon is the capital of France", "Oslo is the capital of Norway"],
                                                 path, memory="readonly")
    assert [v.usage.tool_calls for v in verdicts] == [0, 1]
    assert [e["skipped"] for e in events if e["event"] == "memory_write"] == ["read-only memory"] * 2
    assert list(EvidenceMemory(path, namespace="builtin").export()) == before


async def test_off_neither_recalls_nor_writes(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    verdicts, _, events, _ = await run_all(["Paris is the capital of France", "Lyon is the capital of France"],
                                           path, memory="off")
    assert [v.usage.tool_calls for v in verdicts] == [1, 1]
    assert not any(e["event"] in ("memory_recall", "memory_write") for e in events)
    assert not path.exists()


def test_memory_carries_across_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "memory.sqlite")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

    def worker(claim: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "tests.methods.mermaid.memory_worker", path, claim], cwd=ROOT,
                             env=env, capture_output=True, text=True, timeout=300, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    first = worker("Oslo is the capital of Norway")
    second = worker("Bergen is the capital of Norway")
    assert first == {"tool_calls": 1, "label": "SUPPORTS", "recalled": 0}
    assert second["tool_calls"] == 0 and second["label"] == "REFUTES" and second["recalled"] >= 1


async def test_an_eval_passes_each_claims_date_to_the_tools(tmp_path: Path) -> None:
    """AVeriTeC's claim_date (DD-MM-YYYY) reaches every call of a tool that takes search_before."""
    from factdebate.eval.runner import execute, make_plan

    rows = [{"claim": "Paris is the capital of France", "label": "Supported", "claim_date": "31-10-2020"},
            {"claim": "Oslo is the capital of Norway", "label": "Refuted", "claim_date": "2-1-2019"}]
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    toolset = FactToolset(FACTS)
    resources, _ = await mermaid_resources(capital_policy, toolset)
    plan = make_plan(resources.settings, f"averitec:{path}", tmp_path / "run", limit=None, seed=0)
    await execute(plan, resources, concurrency=1, progress=False)
    dates = {call[1]["query"]: call[1].get("search_before") for call in toolset.calls}
    assert dates == {"capital of France": "2020-10-31", "capital of Norway": "2019-01-02"}


async def test_memory_commands_see_what_the_method_stored_without_namespace_flags() -> None:
    """The method and `factdebate memory` share one default namespace (the corpus name) and one default
    file: clearing before an evaluation clears what the method stored."""
    toolset = FactToolset(FACTS)
    resources, _ = await mermaid_resources(capital_policy, toolset, memory="on", memory_semantic=False)
    async with resources:
        await run_claim("Paris is the capital of France", resources.settings, resources)
    runner = CliRunner()
    listed = runner.invoke(app, ["memory", "ls", "--json"])
    assert listed.exit_code == 0, listed.output
    assert {row["entity"] for row in json.loads(listed.stdout)} == {"Paris", "France"}
    assert "namespace 'builtin'" in listed.stderr
    cleared = runner.invoke(app, ["memory", "clear", "--yes"])
    assert cleared.exit_code == 0 and "removed 2 record(s)" in cleared.stderr, cleared.output
    assert json.loads(runner.invoke(app, ["memory", "ls", "--json"]).stdout) == []


async def test_a_claim_with_a_long_subject_stores_its_evidence_under_its_entities(tmp_path: Path) -> None:
    """The paper keys what the trajectory retrieved by the claim's entities (Update(M, E_c, ΔM)), whether or
    not a passage spells them out: a long subject used to store nothing."""
    subject = "The wrought-iron lattice tower built for the 1889 World's Fair"
    obj = "the tallest structure in Paris until 1930"

    def replies(call: CallInfo, text: str) -> str:
        if call.prompt == "mermaid_decompose":
            return decomposition(subject, obj)
        return action("search_facts", "eiffel tower") if "(none yet)" in text else answer("True")

    path = tmp_path / "memory.sqlite"
    resources, _ = await mermaid_resources(replies, FactToolset(TOWER), memory_path=path)
    async with resources:
        verdict = await run_claim(f"{subject} was {obj}.", resources.settings, resources)
    assert verdict.usage.tool_calls == 1
    memory = EvidenceMemory(path, namespace="builtin")
    assert {row["entity"] for row in memory.entities()} == {subject, obj}
    assert [hit.source for hit in memory.show(obj)] == ["https://facts.example/eiffel"]
    assert "completed in 1889" in memory.show(subject)[0].text


def test_recall_is_the_papers_keyword_recall_unless_semantic_recall_is_asked(tmp_path: Path) -> None:
    assert MermaidSettings.model_fields["memory_semantic"].title == "Semantic recall"
    chosen = memory_settings(load_settings(environ={})).model_copy(update={"path": tmp_path / "m.sqlite"})
    memory = open_memory(chosen)
    assert memory is not None and chosen.semantic is False
    memory.update("John F. Kennedy", [Evidence(text="Kennedy was the 35th president.", tool="search_facts")])
    assert memory.recall(["JFK"]) == []  # no encoder: keys only
    assert [hit.stored_entity for hit in memory.recall(["john f. kennedy"])] == ["John F. Kennedy"]
    asked = load_settings(overrides={"methods": {"mermaid": {"memory_semantic": True}}}, environ={})
    assert memory_settings(asked).semantic is True
