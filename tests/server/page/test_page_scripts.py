"""The page's reading of saved runs, run under Node as the ES module the page imports (skipped without
Node): a trace splits into the runs the page replays. (Old verdicts are upgraded by the server, in Python:
tests/server/test_api.py.)"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from tests.paths import ROOT
from tests.readiness import run

STATIC = ROOT / "src" / "factdebate" / "server" / "static"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="no Node.js to run the page's scripts")


def run_module(module: str, expression: str, data: Any) -> Any:
    script = (f"import * as m from {json.dumps((STATIC / module).as_uri())};\n"
              f"const data = {json.dumps(data)};\nprocess.stdout.write(JSON.stringify({expression}));\n")
    out = run([str(NODE), "--input-type=module", "-e", script], what=f"node on {module}")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_trace_splits_into_its_runs() -> None:
    events = [{"event": "run_started", "run": "a", "claim": "A", "method": "cot", "t": 1},
              {"event": "answer", "run": "a", "agent": "cot", "round": 1, "label": "SUPPORTS", "t": 2},
              {"event": "run_started", "run": "b", "claim": "B", "method": "mad", "t": 2},
              {"event": "run_finished", "run": "a", "label": "SUPPORTS", "decided_by": "single", "t": 3}]
    rows = run_module("replay.js", "m.isTrace(data) && m.runs(data)", events)
    assert [(r["claim"], r["method"], r["label"], len(r["events"])) for r in rows] == [
        ("A", "cot", "SUPPORTS", 3), ("B", "mad", None, 1)]
