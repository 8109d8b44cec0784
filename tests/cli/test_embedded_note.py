"""The near-chance note that `verify` prints after an embedded model's verdict, printed by `check-response`
and by batches too (the scripted model stands in for the embedded one here: only the model names matter)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.cli import render
from factdebate.cli.main import run

PLAIN = ["--llm", "scripted:agree", "--method", "single", "--no-cache", "--no-scoring"]


@pytest.fixture
def scripted_is_embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "EMBEDDED_MODELS", (*render.EMBEDDED_MODELS, "scripted:agree"))


def test_check_response_prints_the_note_after_its_verdict(scripted_is_embedded: None,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["check-response", "Paris is the capital of France.", *PLAIN])
    out = capsys.readouterr().out
    assert code == 0, out
    last = out.strip().splitlines()[-1]
    assert last.startswith("note: the embedded model") and "near chance" in last and "the response" in last

    assert run(["check-response", "Paris is the capital of France.", "--json", *PLAIN]) == 0
    assert "near chance" not in capsys.readouterr().out  # JSON stays one object


def test_a_batch_prints_the_note_after_its_summary(scripted_is_embedded: None, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": "1", "claim": "Paris is the capital of France."}) + "\n", encoding="utf-8")
    code = run(["verify", "--input", str(claims), "--output", str(tmp_path / "out.jsonl"), *PLAIN])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err.strip().splitlines()[-1].startswith("note: the embedded model")
    assert "these verdicts" in captured.err and captured.out == ""


def test_no_note_for_a_model_that_is_not_embedded(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check-response", "Paris is the capital of France.", *PLAIN]) == 0
    assert "near chance" not in capsys.readouterr().out


def test_verify_leads_with_the_verdict_and_the_note_and_folds_the_paper_differences(
        scripted_is_embedded: None, capsys: pytest.CaptureFixture[str]) -> None:
    """The near-chance note came last, after about 46 lines of "differs from the paper"."""
    from factdebate.core.deviations import Deviation

    many = [Deviation(key=f"k{n}", here=f"setting {n}", paper=f"paper {n}", restore=f"--k{n}") for n in range(12)]
    original = render.render_verdict

    def with_deviations(verdict: object, console: object, **kw: object) -> None:
        original(verdict.model_copy(update={"deviations": many}), console, **kw)  # type: ignore[attr-defined]

    import factdebate.cli.render as module

    module.render_verdict = with_deviations  # type: ignore[assignment]
    try:
        assert run(["verify", "Paris is the capital of France.", *PLAIN]) == 0
        folded = capsys.readouterr().out.splitlines()
        assert run(["verify", "Paris is the capital of France.", "--deviations", *PLAIN]) == 0
        listed = capsys.readouterr().out.splitlines()
    finally:
        module.render_verdict = original
    verdict_at = next(n for n, line in enumerate(folded) if "Verdict:" in line)
    note_at = next(n for n, line in enumerate(folded) if line.startswith("note: the embedded model"))
    assert note_at <= verdict_at + 2, folded  # right under the verdict's panel
    assert not [line for line in folded if line.startswith("differs from the paper:")], folded
    summary = [line for line in folded if "12 settings differ from the paper" in line]
    assert summary and "--deviations" in summary[0], folded
    assert len([line for line in listed if line.startswith("differs from the paper:")]) == 12, listed
