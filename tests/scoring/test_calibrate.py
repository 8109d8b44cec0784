"""Calibrating the answer-relevance threshold: the threshold at which the
asked share of Tool-MAD's round-1 debate answers (with their evidence) passes, measured with the encoder in
use and never rounded past that share; the command that prints it and writes the settings recording dataset,
encoder and share; the warning a run on another encoder carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.cli.main import run
from factdebate.core.deviations import keys
from factdebate.eval.datasets import Sample
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.base import Method
from factdebate.methods.toolmad.calibrate import calibrate_relevance
from factdebate.scoring.calibrate import min_answers, threshold_for
from factdebate.settings.load import load_settings
from tests.helpers import resources_for


def test_the_threshold_lets_the_asked_share_pass() -> None:
    scores = [0.70, 0.74, 0.78, 0.80, 0.82, 0.84, 0.86, 0.88, 0.90, 0.92]
    threshold = threshold_for(scores, 0.8)
    assert sum(s >= threshold for s in scores) >= 8 and threshold == pytest.approx(0.78)
    with pytest.raises(ValueError):
        threshold_for([], 0.8)


def test_the_shown_threshold_is_rounded_down_never_past_the_share() -> None:
    """0.7786 rounded to 0.779 would let 7 of 10 pass where 8 were asked for."""
    scores = [0.7786, 0.70, 0.74, 0.80, 0.82, 0.84, 0.86, 0.88, 0.90, 0.92]
    shown = threshold_for(scores, 0.8, digits=3)
    assert shown == 0.778 and sum(s >= shown for s in scores) >= 8
    assert threshold_for([0.57] * 5, 0.8, digits=3) == 0.57  # exact already: not lowered
    # Tool-MAD passes a score only above its threshold: then the share must pass ">" too.
    assert threshold_for([0.57] * 5, 0.8, digits=3, strict=True) == 0.569
    assert threshold_for(scores, 0.8, digits=3, strict=True) == 0.778


async def test_calibration_scores_round_one_debate_answers_with_their_evidence() -> None:
    def script(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("relevance_questions"):
            claim = messages[0]["content"]
            return "1. Is Paris the capital of France?\n2. Which city is the capital of France?\n3. " \
                   "What is France's capital?" if "Paris" in claim else "1. Who won?\n2. When?\n3. Where?"
        if call.prompt.startswith("query_select"):
            return "[Paris France capital]"
        assert "Paris is the capital of France." in messages[-1]["content"]  # the documents retrieved
        return "Paris is the capital of France, as the document says.\nSUPPORTS"

    resources, backend, tools = resources_for(script)
    samples = [Sample(f"s{i}", "Paris is the capital of France.", "SUPPORTS") for i in range(4)]
    result = await calibrate_relevance(samples, resources, dataset="claims", pass_share=0.75)
    assert len(result.scores) == 8 and result.unscored == 0 and result.threshold is not None  # two debaters each
    assert result.threshold <= min(result.scores)
    prompts = [info.prompt.split(":")[0] for info, _ in backend.calls]
    assert prompts.count("debate_answer") == 8 and prompts.count("relevance_questions") == 8
    # Round 1 as a run plays it: each debater writes its query from the claim.
    assert "faithfulness_statements" not in prompts and prompts.count("query_select") == 8
    assert tools["rag"].queries == tools["search"].queries == ["Paris France capital"] * 4
    assert result.settings() == {"methods": {"tool-mad": {
        "relevance_threshold": result.threshold, "relevance_calibrated_dataset": "claims",
        "relevance_calibrated_encoder": "all-MiniLM-L6-v2 (int8)", "relevance_calibrated_share": 0.75}}}


def calibrated_deviations(calibrated_with: str, **retrieval: str) -> dict[str, str]:
    settings = load_settings(overrides={"method": "tool-mad", "retrieval": retrieval, "methods": {"tool-mad": {
        "relevance_threshold": 0.612, "relevance_calibrated_dataset": "fever:dev.jsonl",
        "relevance_calibrated_encoder": calibrated_with, "relevance_calibrated_share": 0.8}}}, environ={})
    return {d.key: d.here for d in Method.named("tool-mad").paper_deviations(settings)}


def test_a_run_on_another_encoder_than_the_calibrations_is_warned() -> None:
    same = calibrated_deviations("all-MiniLM-L6-v2 (int8)")
    assert "relevance_calibration_encoder" not in same and "thresholds" not in same
    assert "80% of round-1 debate answers on fever:dev.jsonl pass" in same["relevance_encoder"]
    other = calibrated_deviations("all-MiniLM-L6-v2 (int8)", encoder="fp32")
    assert other["relevance_calibration_encoder"].startswith("WARNING: the threshold 0.612 was calibrated with "
                                                             "all-MiniLM-L6-v2 (int8)")
    with pytest.raises(Exception, match="dataset, encoder and share together"):
        load_settings(overrides={"methods": {"tool-mad": {"relevance_calibrated_dataset": "fever"}}}, environ={})
    with pytest.raises(Exception, match="run `factdebate calibrate relevance` again"):
        load_settings(overrides={"methods": {"tool-mad": {"relevance_calibration": "a note"}}}, environ={})
    assert keys(Method.named("tool-mad").paper_deviations(load_settings(  # an older run's empty note still loads
        overrides={"methods": {"tool-mad": {"relevance_calibration": ""}}}, environ={})))


@pytest.mark.usefixtures("builtin_index")
def test_the_command_prints_the_threshold_and_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # Round 1 retrieves: from the built-in corpus cut to 40 articles, indexed once for the run (the whole
    # corpus took 226 s here; tests/conftest.py's builtin_index), as the other tests that search it do.
    out = tmp_path / "calibration.json"
    code = run(["calibrate", "relevance", "--dataset", "countries", "--limit", "5", "--llm", "scripted:agree",
                "--no-cache", "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "threshold for 80% to pass:" in captured.out and "--relevance-calibrated-encoder" in captured.out
    record = json.loads(out.read_text())
    assert record["pass_share"] == 0.8 and len(record["scores"]) + record["unscored"] == 10  # 5 claims, 2 debaters
    config = tmp_path / "calibrated.yaml"
    assert run(["calibrate", "relevance", "--dataset", "countries", "--limit", "5", "--llm", "scripted:agree",
                "--no-cache", "--write-config", str(config)]) == 0
    settings = load_settings(config_file=config, environ={})
    cfg = settings.methods["tool-mad"]
    assert cfg.relevance_calibrated_dataset == "countries" and cfg.relevance_calibrated_share == 0.8
    assert "relevance_calibration_encoder" not in keys(Method.named("tool-mad").paper_deviations(settings))
    code = run(["calibrate", "relevance", "--dataset", "nope:/none", "--llm", "scripted:agree"])
    assert code == 2


def test_too_few_claims_are_refused_before_any_model_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A one-claim dataset gave a "threshold", that one answer's score."""
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


def test_limit_below_the_least_any_share_needs_is_a_usage_error_that_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50: `--limit 4` failed after loading, while --help said the minimum was 2."""
    from factdebate.scoring.calibrate import MIN_ANSWERS

    assert run(["calibrate", "relevance", "--dataset", "countries", "--limit", "4", "--llm", "scripted:agree"]) == 2
    assert "--limit': Input should be greater than or equal to 5" in capsys.readouterr().err
    assert run(["calibrate", "relevance", "--help"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert f"at least {MIN_ANSWERS}," in said and f"(0.9 needs {min_answers(0.9)})" in said
