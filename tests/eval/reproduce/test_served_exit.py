"""A served-model ``reproduce`` ends cleanly. Each cell runs in its own ``asyncio.run``; the
OpenAI-compatible client of a finished cell was left open for the garbage collector, whose transports outlived
their event loop: served-model runs ended with dozens of "Event loop is closed" tracebacks. The backend is now
closed on its own loop with the cell's resources (``OpenAIBackend.aclose``). Python reports a transport that
outlived its loop as ``ResourceWarning: unclosed transport`` (4 in this run before the fix), so the run is made
with those warnings shown and its stderr must hold none, and no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.server.conftest import LiveServer
from tests.server.guard_support import Upstream, upstream_app

CLAIMS = [("Paris is in France.", "SUPPORTS"), ("The Eiffel Tower is in Rome.", "REFUTES")]


def test_a_served_model_reproduce_leaves_no_connection_to_a_closed_loop(tmp_path: Path) -> None:
    data = tmp_path / "claims.jsonl"
    data.write_text("".join(json.dumps({"claim": c, "label": g}) + "\n" for c, g in CLAIMS), encoding="utf-8")
    with LiveServer(upstream_app(Upstream(answer="Verdict: SUPPORTS"))) as server:
        env = {**os.environ, "OPENAI_BASE_URL": f"{server.url}/v1", "OPENAI_API_KEY": "test-key-0123456789",
               "FACTDEBATE_DATA_DIR": str(tmp_path / "data"), "PYTHONWARNINGS": "always::ResourceWarning"}
        done = subprocess.run([sys.executable, "-m", "factdebate.cli.main", "reproduce", "toolmad", "--table",
                               "table3", "--rows", "single,cot", "--datasets", "faviq", "--limit", "2", "--data",
                               f"faviq=claims:{data}", "--llm", "openai:m", "--no-cache", "-o",
                               str(tmp_path / "out")],
                              env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 run(s) done, 0 skipped, 0 failed" in done.stdout + done.stderr
    for leftover in ("unclosed transport", "Event loop is closed", "Traceback"):
        assert leftover not in done.stderr, done.stderr[-3000:]
