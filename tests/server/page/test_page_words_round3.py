"""Small wordings of the page, run under Node as the ES modules the page imports (issue 40, item 9): a
retry's line says who in words and why with one full stop, and counts the seconds to the next try down."""

from __future__ import annotations

import json

from tests.readiness import run
from tests.server.page.test_page_scripts import NODE, STATIC, pytestmark, run_module  # noqa: F401

RETRY = {"agent": "rag", "role": "scorer", "prompt": "faithfulness_statements", "attempt": 2,
         "error": "APIConnectionError: Connection error.", "delay": 4.0}


def test_a_retry_speaks_words_and_counts_down() -> None:
    lines = run_module("progress.js", "[4, 2.2, 0.4, 0].map(s => m.retryText(data, s))", RETRY)
    why = "The model did not answer rag: APIConnectionError: Connection error."
    assert lines == [[why, " Try 3 in 4 s…"], [why, " Try 3 in 3 s…"], [why, " Try 3 in 1 s…"], [why, " Try 3 now…"]]
    assert "faithfulness_statements" not in str(lines) and ".." not in str(lines)
    assert run_module("progress.js", "m.caller(data)", {"role": "judge", "prompt": "judge:reask"}) == "the judge"


def test_a_trace_row_counts_its_steps_as_its_replay_does() -> None:
    """A MERMAID trace with one step: its row in the results table says "after 1 step", as the replay does
    (it said "after 0 steps": the row had no rounds to count them in)."""
    events = [{"event": "run_started", "run": "a", "claim": "A", "method": "mermaid", "t": 1},
              {"event": "step", "run": "a", "agent": "executor", "round": 1, "index": 1, "t": 2},
              {"event": "run_finished", "run": "a", "label": "SUPPORTS", "decided_by": "executor", "t": 3}]
    view = {"decisions": {"executor": "the executor's answer after {steps}"}}
    # views.js reads the page's saved state when imported: a store that holds nothing stands in for it.
    script = ("globalThis.localStorage = {getItem: () => null, setItem() {}, removeItem() {}};\n"
              f"const replay = await import({json.dumps((STATIC / 'replay.js').as_uri())});\n"
              f"const views = await import({json.dumps((STATIC / 'views.js').as_uri())});\n"
              f"const data = {json.dumps({'view': view, 'events': events})};\n"
              "process.stdout.write(JSON.stringify(views.describe(data.view, replay.runs(data.events)[0])));\n")
    done = run([str(NODE), "--input-type=module", "-e", script], what="node on views.js")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said == "the executor's answer after 1 step"
