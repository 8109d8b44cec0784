"""Off a terminal, a long batch or eval prints a progress line at a steady interval, whether or not a claim
finished in between (a 177 s eval wrote one line, at the end)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from rich.console import Console

from factdebate.eval.progress import Progress
from factdebate.util import progress as shown
from tests.cli.test_exits import call
from tests.fake_openai import FakeOpenAI

OPENAI = ["--llm", "openai:x", "--agents", "none,none", "--no-cache", "--no-scoring"]


def _wait_for_lines(out: io.StringIO, count: int, limit_s: float = 5.0) -> list[str]:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and len(out.getvalue().splitlines()) < count:
        time.sleep(0.02)
    return out.getvalue().splitlines()


def test_the_eval_progress_prints_lines_at_an_interval_off_a_terminal() -> None:
    out = io.StringIO()
    with Progress(3, [], console=Console(file=out, width=300), every=0.05, label="countries") as bar:
        bar.add({"correct": True, "predicted": "SUPPORTS", "usage": {"llm_calls": 4, "prompt_tokens": 100}})
        lines = _wait_for_lines(out, 2)
    assert len(lines) >= 2, lines
    assert lines[-1].startswith("countries: 1 of 3 samples, acc 1.000 (1/1)") and "elapsed" in lines[-1], lines
    assert "\x1b" not in out.getvalue()  # plain lines, no bar redraws


def test_a_batch_off_a_terminal_prints_lines_while_a_claim_is_still_running(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shown, "EVERY_S", 0.1)
    claims = tmp_path / "c.jsonl"
    claims.write_text(json.dumps({"id": "a", "claim": "Paris is in France."}) + "\n", encoding="utf-8")
    with FakeOpenAI(delay=0.4) as server:  # each call 0.4 s: the one claim takes several intervals
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, err = call(capsys, "verify", "--input", str(claims), "--output", str(tmp_path / "out.jsonl"),
                         *OPENAI)
    assert code == 0, err
    ticks = [line for line in err.splitlines() if line.startswith("verifying: 0 of 1 claims")]
    assert len(ticks) >= 2, err
