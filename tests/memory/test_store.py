"""The evidence memory: recall and update across claims and processes, concurrency, the no-label rule, TTL
and namespaces."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from factdebate.core.types import Document
from factdebate.memory import Evidence, EvidenceMemory, MemoryLeakError, MemorySettings, normalize_entity, open_memory
from factdebate.memory import store as store_module
from tests.memory.conftest import words_encode

EIFFEL = Evidence(text="The Eiffel Tower was completed in 1889 for the World's Fair.",
                  source="https://en.wikipedia.org/wiki/Eiffel_Tower", tool="search_wikipedia")


def test_entity_keys_ignore_case_articles_and_punctuation() -> None:
    assert normalize_entity("The Eiffel Tower") == normalize_entity("eiffel tower!") == "eiffel tower"
    assert normalize_entity("  Barack   Obama ") == "barack obama"
    assert normalize_entity("Müller") != normalize_entity("Muller")  # accents can tell people apart
    assert normalize_entity("...") == ""


def test_second_claim_recalls_what_the_first_stored(tmp_path: Path) -> None:
    memory = EvidenceMemory(tmp_path / "m.sqlite")
    # Claim 1: "The Eiffel Tower is in Paris" -> entities from the decomposer, evidence the trajectory used.
    assert memory.recall(["Eiffel Tower", "Paris"]) == []
    assert memory.update(["Eiffel Tower", "Paris"], [EIFFEL]) == 2
    # Claim 2 names one of the entities, written differently.
    hits = memory.recall(["the eiffel tower", "1889"])
    assert len(hits) == 1
    hit = hits[0]
    assert (hit.text, hit.source, hit.tool) == (EIFFEL.text, EIFFEL.source, EIFFEL.tool)
    assert hit.match == "exact" and hit.score == 1.0 and hit.stored_entity == "Eiffel Tower"
    assert hit.stored > 0
    # Storing the same evidence again refreshes it rather than duplicating it.
    assert memory.update("Eiffel Tower", [EIFFEL]) == 0
    assert len(memory.show("Eiffel Tower")) == 1


def test_documents_and_dicts_are_accepted_with_their_tool(tmp_path: Path) -> None:
    memory = EvidenceMemory(tmp_path / "m.sqlite")
    doc = Document(id="d", title="Honey", text="Honey in sealed jars keeps for millennia.", source="wiki/Honey")
    added = memory.update("honey", [doc, {"text": "Honey is made by bees.", "source": "s2"}], tool="search_local")
    assert added == 2
    assert {h.tool for h in memory.recall(["Honey"])} == {"search_local"}
    # A tool server's result dict goes in as it is; its title and score are not stored as evidence.
    result = {"title": "Honey", "text": "Honey never spoils.", "source": "https://example.org/h", "score": 0.7}
    assert memory.update("honey", [result], tool="search_wikipedia") == 1
    with pytest.raises(Exception, match="tool"):
        memory.update("honey", [{"text": "no tool given", "source": "x"}])
    # What the model searched for is not evidence: the memory has no place for it.
    with pytest.raises(ValueError, match="query"):
        memory.update("honey", [{"text": "Honey is sweet.", "tool": "search_web", "query": "is honey sweet"}])


@pytest.mark.parametrize("item", [
    {"text": "SUPPORTS", "tool": "search_wikipedia"},
    {"text": "Not enough info.", "tool": "search_web"},
    {"text": "true", "tool": "search_web"},
    {"text": "Final answer: the claim is false", "tool": "search_web"},
    {"text": "Verdict = REFUTES because the tower opened in 1889", "tool": "search_web"},
    {"text": '{"thought": "done", "answer": "False"}', "tool": "search_web"},
    {"text": "The tower is in Paris.", "tool": "answer"},
    {"text": "The tower is in Paris.", "tool": "forced_answer"},
    {"text": "The tower is in Paris.", "tool": "search_web", "label": "SUPPORTS"},
    {"text": "The tower is in Paris.", "tool": "search_web", "gold_label": "REFUTES"},
    {"text": "The tower is in Paris.", "tool": "search_web", "verdict": "SUPPORTS"},
])
def test_labels_and_verdicts_are_never_stored(tmp_path: Path, item: dict[str, str]) -> None:
    memory = EvidenceMemory(tmp_path / "m.sqlite")
    with pytest.raises(MemoryLeakError):
        memory.update("Eiffel Tower", [EIFFEL, item])
    # The whole update is refused: not even the valid item got in.
    assert list(memory.export()) == []


def test_evidence_nesting_json_past_the_parser_is_refused_with_its_reason(tmp_path: Path) -> None:
    """A search result nested 990 levels deep cannot be read for an answer field: refused, saying so."""
    memory = EvidenceMemory(tmp_path / "m.sqlite")
    deep = {"text": '{"answer": "False", "x": ' + "[" * 990 + "]" * 990 + "}", "tool": "search_web"}
    with pytest.raises(MemoryLeakError, match="nests JSON too deeply to be checked"):
        memory.update("Eiffel Tower", [EIFFEL, deep])
    assert list(memory.export()) == []


def test_evidence_model_has_no_label_field() -> None:
    with pytest.raises(ValueError):
        Evidence(text="x", tool="search_web", label="SUPPORTS")  # type: ignore[call-arg]


def test_ttl_expires_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = EvidenceMemory(tmp_path / "m.sqlite", ttl_days=1)
    memory.update("Eiffel Tower", [EIFFEL])
    memory.update("Paris", [EIFFEL], ttl_days=10)  # a per-update TTL overrides the store's
    assert len(memory.recall(["Eiffel Tower", "Paris"])) == 2
    now = store_module.time.time()
    monkeypatch.setattr(store_module.time, "time", lambda: now + 2 * 86_400)
    hits = memory.recall(["Eiffel Tower", "Paris"])
    assert [h.stored_entity for h in hits] == ["Paris"]
    assert [e["entity"] for e in memory.entities()] == ["Paris"]
    assert memory.clear(expired_only=True) == 1
    assert memory.clear() == 1


def test_namespaces_are_separate(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    wiki = EvidenceMemory(path, namespace="builtin")
    other = EvidenceMemory(path, namespace="project-b")
    wiki.update("Eiffel Tower", [EIFFEL])
    assert other.recall(["Eiffel Tower"]) == []
    assert len(wiki.recall(["Eiffel Tower"])) == 1
    other.update("Eiffel Tower", [EIFFEL])
    assert other.clear() == 1 and len(wiki.recall(["Eiffel Tower"])) == 1
    with pytest.raises(ValueError):
        EvidenceMemory(path, namespace="no spaces allowed")


def test_semantic_recall_is_threshold_gated_and_scored(tmp_path: Path) -> None:
    memory = EvidenceMemory(tmp_path / "m.sqlite", encode=words_encode, semantic_threshold=0.3)
    memory.update("Gustave Eiffel's tower", [EIFFEL])
    memory.update("Honey", [Evidence(text="Honey keeps for millennia in sealed jars.", tool="search_web")])
    hits = memory.recall(["Eiffel Tower in Paris"])
    assert [h.stored_entity for h in hits] == ["Gustave Eiffel's tower"]
    assert hits[0].match == "semantic" and 0.3 <= hits[0].score < 1.0
    strict = EvidenceMemory(tmp_path / "m.sqlite", encode=words_encode, semantic_threshold=0.95)
    assert strict.recall(["Eiffel Tower in Paris"]) == []
    # An exact key is found by key first and not repeated as a semantic match.
    both = memory.recall(["Honey", "Eiffel Tower in Paris"])
    assert [h.match for h in both] == ["exact", "semantic"]


def test_readonly_recalls_but_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    EvidenceMemory(path).update("Eiffel Tower", [EIFFEL])
    readonly = open_memory(MemorySettings(path=path, mode="readonly", semantic=False))
    assert readonly is not None
    assert readonly.update("Paris", [EIFFEL]) == 0
    assert len(readonly.recall(["Eiffel Tower"])) == 1 and readonly.recall(["Paris"]) == []
    assert open_memory(MemorySettings(path=path, mode="off")) is None
    with pytest.raises(MemoryLeakError):  # the rule holds even when nothing would be written
        readonly.update("Paris", [{"text": "REFUTES", "tool": "search_web"}])


_WRITER = textwrap.dedent("""
    import sys
    from factdebate.memory import EvidenceMemory
    memory = EvidenceMemory(sys.argv[1])
    tag = sys.argv[2]
    for i in range(int(sys.argv[3])):
        memory.update([f"entity {i % 5}", "shared"], [{"text": f"{tag} evidence {i}", "tool": "search_web",
                                                        "source": f"https://example.org/{tag}/{i}"}])
    print(len(memory.recall(["shared"], limit=100)))
""")


def test_recall_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    out = subprocess.run([sys.executable, "-c", _WRITER, str(path), "p1", "3"], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "3"
    memory = EvidenceMemory(path)
    assert {h.text for h in memory.recall(["entity 1"])} == {"p1 evidence 1"}
    memory.update("entity 1", [Evidence(text="parent evidence", tool="search_web")])
    check = subprocess.run([sys.executable, "-c", "import sys, json\nfrom factdebate.memory import EvidenceMemory\n"
                            "print(json.dumps([h.text for h in EvidenceMemory(sys.argv[1]).recall(['Entity 1'])]))",
                            str(path)], capture_output=True, text=True, check=True)
    assert set(json.loads(check.stdout)) == {"p1 evidence 1", "parent evidence"}


def test_concurrent_writers_threads_tasks_and_processes(tmp_path: Path) -> None:
    """A batch at concurrency 32 (tasks through worker threads) while two other processes write too."""
    path = tmp_path / "m.sqlite"
    memory = EvidenceMemory(path)
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), f"proc{n}", "40"],
                              stdout=subprocess.PIPE, text=True) for n in range(2)]

    async def claim(n: int) -> None:
        for step in range(5):
            await memory.aupdate([f"entity {n}", "shared"], [
                {"text": f"task {n} step {step}", "tool": "search_web", "source": f"s{n}"}])
            await memory.arecall([f"entity {n}", "shared"])

    async def batch() -> None:
        await asyncio.gather(*(claim(n) for n in range(32)))

    asyncio.run(batch())
    for proc in procs:
        proc.wait(timeout=120)
        assert proc.returncode == 0
    rows = list(memory.export())
    shared = [r for r in rows if r["entity_key"] == "shared"]
    assert len(shared) == 32 * 5 + 2 * 40  # every write landed exactly once
    assert len({(r["entity_key"], r["text"]) for r in rows}) == len(rows)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_search_ranks_by_meaning_without_the_threshold(tmp_path: Path) -> None:
    memory = EvidenceMemory(tmp_path / "m.sqlite", encode=words_encode, semantic_threshold=0.99)
    memory.update("Eiffel Tower", [EIFFEL])
    memory.update("Honey", [Evidence(text="Honey keeps for millennia in sealed jars.", tool="search_web")])
    hits = memory.search("sealed jars of honey", k=2)
    assert [h.stored_entity for h in hits] == ["Honey", "Eiffel Tower"] and hits[0].score > hits[1].score
    assert memory.semantic_threshold == 0.99


@pytest.mark.slow
def test_semantic_recall_with_minilm(tmp_path: Path) -> None:
    """The default encoder and threshold: another name for a stored entity is recalled, an unrelated one not."""
    memory = open_memory(MemorySettings(path=tmp_path / "m.sqlite", semantic=True))  # keyword recall by default
    assert memory is not None and memory.semantic_threshold == 0.45
    memory.update("John F. Kennedy", [Evidence(
        text="John Fitzgerald Kennedy was the 35th president of the United States from 1961 until 1963.",
        tool="search_wikipedia")])
    memory.update("Honey", [Evidence(text="Honey is a sweet substance made by honey bees.", tool="search_web")])
    hits = memory.recall(["President Kennedy"])
    assert [h.stored_entity for h in hits] == ["John F. Kennedy"] and hits[0].match == "semantic"
    assert hits[0].score >= 0.45
    assert memory.recall(["Tokyo"]) == []


def test_a_runs_recall_sees_only_what_the_claims_before_it_stored(tmp_path: Path) -> None:
    memory = EvidenceMemory(tmp_path / "m.sqlite")
    seeded = Evidence(text="Paris has been the capital since 987.", tool="search_wikipedia")
    memory.update("Paris", [seeded])  # no position: what the memory started with, seen by every claim
    memory.update("Paris", [EIFFEL], position=2000)
    later = Evidence(text="Paris hosted the 2024 Olympics.", tool="search_wikipedia")
    memory.update("Paris", [later], position=5000)
    assert [h.text for h in memory.recall(["Paris"], before=2000)] == [seeded.text]
    assert [h.text for h in memory.recall(["Paris"], before=3000)] == [EIFFEL.text, seeded.text]
    assert [h.text for h in memory.recall(["Paris"], before=9000)] == [later.text, EIFFEL.text, seeded.text]
    # Claim 0 run again (a retry) stores the Eiffel passage too: it now counts from the earliest position.
    memory.update("Paris", [EIFFEL], position=0)
    assert [h.text for h in memory.recall(["Paris"], before=1000)] == [EIFFEL.text, seeded.text]
    assert len(memory.recall(["Paris"])) == 3  # single claims see everything, newest first


def test_a_memory_from_before_run_positions_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(store_module._SCHEMA.replace("    position INTEGER,\n", ""))
    assert "position" not in {r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(evidence)")}
    memory = EvidenceMemory(path)
    assert memory.update("Paris", [EIFFEL], position=0) == 1
    assert len(memory.recall(["Paris"], before=1000)) == 1
