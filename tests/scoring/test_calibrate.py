"""Calibrating the answer-relevance threshold (issue 29, item 7): the threshold at which the asked share of
answers passes, measured with the encoder in use, and the command that prints it with the flags to use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.cli.main import run
from factdebate.eval.datasets import Sample
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.scoring.calibrate import calibrate_relevance, min_answers, threshold_for
from tests.helpers import resources_for


def test_the_threshold_lets_the_asked_share_pass() -> None:
    scores = [0.70, 0.74, 0.78, 0.80, 0.82, 0.84, 0.86, 0.88, 0.90, 0.92]
    threshold = threshold_for(scores, 0.8)
    assert sum(s >= threshold for s in scores) >= 8 and threshold == pytest.approx(0.78)
    with pytest.raises(ValueError):
        threshold_for([], 0.8)


async def test_calibration_answers_each_claim_then_scores_its_relevance() -> None:
    def script(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("relevance_questions"):
            claim = messages[0]["content"]
            return "1. Is Paris the capital of France?\n2. Which city is the capital of France?\n3. " \
                   "What is France's capital?" if "Paris" in claim else "1. Who won?\n2. When?\n3. Where?"
        return "Paris is the capital of France, as is well known.\nSUPPORTS"

    resources, backend, _ = resources_for(script)
    samples = [Sample(f"s{i}", "Paris is the capital of France.", "SUPPORTS") for i in range(4)]
    result = await calibrate_relevance(samples, resources, dataset="claims", pass_share=0.75)
    assert len(result.scores) == 4 and result.unscored == 0 and result.threshold is not None
    assert result.threshold == pytest.approx(min(result.scores), abs=1e-3)
    prompts = [info.prompt.split(":")[0] for info, _ in backend.calls]
    assert prompts.count("debate_answer") == 4 and prompts.count("relevance_questions") == 4
    assert "75% of them score at least" in result.note()


def test_the_command_prints_the_threshold_and_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "calibration.json"
    code = run(["calibrate", "relevance", "--dataset", "countries", "--limit", "5", "--llm", "scripted:agree",
                "--no-cache", "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "threshold for 80% to pass:" in captured.out and "--relevance-calibration" in captured.out
    record = json.loads(out.read_text())
    assert record["pass_share"] == 0.8 and len(record["scores"]) + record["unscored"] == 5
    code = run(["calibrate", "relevance", "--dataset", "nope:/none", "--llm", "scripted:agree"])
    assert code == 2


def test_too_few_claims_are_refused_before_any_model_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 35, item 9: a one-claim dataset gave a "threshold", that one answer's score."""
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"id": "1", "claim": "Paris is in France.", "label": "SUPPORTS"}) + "\n")
    out = tmp_path / "calibration.json"
    code = run(["calibrate", "relevance", "--dataset", f"fever:{one}", "--llm", "scripted:agree", "--no-cache",
                "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "calibrating on 1 claim(s)" in err and "needs at least 5 answers" in err and not out.exists()
    code = run(["calibrate", "relevance", "--dataset", "countries", "--limit", "5", "--pass-share", "0.9",
                "--llm", "scripted:agree", "--no-cache"])
    assert code == 2 and "lets 90% pass needs at least 10 answers" in capsys.readouterr().err
    assert [min_answers(share) for share in (0.5, 0.8, 0.9, 0.99, 0.01)] == [5, 5, 10, 100, 100]
