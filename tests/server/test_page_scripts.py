"""The page's reading of saved runs, run under Node (skipped without it): a schema-1 verdict is upgraded
as factdebate.core.schema does it, and a trace splits into runs that the page replays."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from factdebate.core.schema import upgrade
from tests.paths import ROOT

STATIC = ROOT / "src" / "factdebate" / "server" / "static"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="no Node.js to run the page's scripts")


def run_js(expression: str, data: Any) -> Any:
    script = ("global.window = { FactDebate: {} };\n" + (STATIC / "replay.js").read_text() +
              f"\nconst data = {json.dumps(data)};\nprocess.stdout.write(JSON.stringify({expression}));\n")
    out = subprocess.run([str(NODE), "-e", script], capture_output=True, text=True, check=True, timeout=30)
    return json.loads(out.stdout)


OLD = [
    {"claim": "c", "method": "vote", "label": "SUPPORTS", "decided_by": "consensus", "rounds": [],
     "judge": {"response": "votes: SUPPORTS 3", "label": "SUPPORTS"}},
    {"claim": "c", "method": "mad", "label": "REFUTES", "decided_by": "judge", "rounds": [{"round": 1, "turns": [
        {"agent": "affirmative", "tool": "none", "response": "yes\nSUPPORTS", "label": "SUPPORTS"},
        {"agent": "moderator", "tool": "none", "response": "Preference: no", "label": None}]}],
     "judge": {"response": "no\nREFUTES", "label": "REFUTES"}},
    {"claim": "c", "method": "tool-mad", "label": "SUPPORTS", "decided_by": "consensus", "rounds": [
        {"round": 1, "turns": [{"agent": "rag", "tool": "rag", "response": "r", "label": "SUPPORTS",
                                "faithfulness": 0.9, "answer_relevance": 0.8, "consistency": None}]}]},
]


@pytest.mark.parametrize("old", OLD, ids=lambda o: o["method"])
def test_old_verdicts_are_upgraded_like_the_python_reader(old: dict[str, Any]) -> None:
    page = run_js("window.FactDebate.upgradeVerdict(data)", old)
    python = upgrade(old)
    assert page["judges"] == [{k: j[k] for k in ("agent", "role", "response", "vote", "parsed")}
                              for j in python["judges"]]
    assert page.get("explanation", "") == python.get("explanation", "")
    for page_round, py_round in zip(page["rounds"], python["rounds"], strict=True):
        assert [t["agent"] for t in page_round["turns"]] == [t["agent"] for t in py_round["turns"]]
        assert [t["scores"] for t in page_round["turns"]] == [t["scores"] for t in py_round["turns"]]
        assert [j["vote"] for j in page_round.get("judges", [])] == [j["vote"] for j in py_round.get("judges", [])]


def test_a_trace_splits_into_its_runs() -> None:
    events = [{"event": "run_started", "run": "a", "claim": "A", "method": "cot", "t": 1},
              {"event": "answer", "run": "a", "agent": "cot", "round": 1, "label": "SUPPORTS", "t": 2},
              {"event": "run_started", "run": "b", "claim": "B", "method": "mad", "t": 2},
              {"event": "run_finished", "run": "a", "label": "SUPPORTS", "decided_by": "single", "t": 3}]
    rows = run_js("window.FactDebate.Replay.isTrace(data) && window.FactDebate.Replay.runs(data)", events)
    assert [(r["claim"], r["method"], r["label"], len(r["events"])) for r in rows] == [
        ("A", "cot", "SUPPORTS", 3), ("B", "mad", None, 1)]
