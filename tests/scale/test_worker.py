"""A Ray worker's resources serve the run the pool was started for: workers of one evaluation that reads a
seeded memory open the same copy in the run's folder (made once, whichever worker comes first). Built
in-process: the actor class is plain Python until Ray wraps it."""

from __future__ import annotations

from pathlib import Path

from factdebate.memory import Evidence, EvidenceMemory
from factdebate.methods.resources import RunScope
from factdebate.scale.worker import ClaimWorker
from factdebate.settings.load import load_settings


def test_the_workers_of_one_run_share_its_seeded_memory(tmp_path: Path) -> None:
    source = tmp_path / "earlier.sqlite"
    EvidenceMemory(source).update("Paris", [Evidence(text="Paris is the capital of France.", tool="search_local")])
    settings = load_settings(overrides={"method": "mermaid", "llm": {"debater": "scripted:agree", "cache": False},
                                        "methods": {"mermaid": {"memory": "readonly", "memory_from": str(source)}}},
                             environ={})
    run = RunScope(tmp_path / "run")
    workers = [ClaimWorker(settings.model_dump(mode="json"), index, None, None, False, run) for index in range(2)]
    assert [worker.start_error for worker in workers] == [None, None]
    states = [worker.resources.run_state for worker in workers]
    assert states[0] == states[1] and states[0] is not None
    assert states[0]["memory"]["from"]["records"] == 1 and states[0]["memory"]["mode"] == "readonly"
    assert [worker.resources.run for worker in workers] == [run, run]
    assert len(EvidenceMemory(run.file("evidence_memory.sqlite")).recall(["Paris"], before=0)) == 1
