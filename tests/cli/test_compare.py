"""``eval --method a,b`` and ``compare`` as a user runs them: the installed console script, a scripted
model, no network; a run whose point is only what it says, refuses or sets up is made in this process
(tests/cli/test_eval.py's ``here``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factdebate.cli.main import run as cli_run
from factdebate.eval.compare.cost import dollars_text
from tests.cli.test_eval import Here, here, run

__all__ = ["here"]  # the fixture, shared with tests/cli/test_eval.py

COMMON = ["--dataset", "countries", "--limit", "4", "--llm", "scripted:agree", "--no-cache"]


def test_several_methods_run_on_one_draw_and_are_compared(tmp_path: Path, here: Here) -> None:
    done = run("eval", "--method", "cot,mad", "--mad-rounds", "1", "-o", "out", *COMMON, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 methods on the same 4 samples (seed 0); shared options: --cache, --llm" in done.stderr
    out = tmp_path / "out"
    cot, mad = (json.loads((out / m / "run.json").read_text()) for m in ("cot", "mad"))
    # The method's own option went to its run only; the shared ones to both.
    assert mad["options"] == {"mad_rounds": 1, "llm": "scripted:agree", "cache": False}
    assert cot["options"] == {"llm": "scripted:agree", "cache": False}
    assert cot["provenance"]["dataset"]["samples_sha256"] == mad["provenance"]["dataset"]["samples_sha256"]
    text = (out / "compare.md").read_text()
    assert "the same draw in every run" in text and "| cot | mad | 4 |" in text
    assert "options given once and shared by every run: --cache, --llm" in text
    assert (out / "cost_vs_accuracy.png").exists() and (out / "paired_differences.svg").exists()
    lines = (out / "mad" / "results.jsonl").read_text()
    again = here("eval", "--method", "cot,mad", "--mad-rounds", "1", "-o", "out", *COMMON)
    assert again.returncode == 0, again.stderr
    assert (out / "mad" / "results.jsonl").read_text() == lines  # resumed per method: nothing ran again


def test_an_option_of_a_method_not_named_is_refused(tmp_path: Path) -> None:
    refused = run("eval", "--method", "cot,mad", "--rounds", "2", "-o", "out", *COMMON, cwd=tmp_path)
    assert refused.returncode == 2
    assert "--rounds belongs to tool-mad, which --method does not name (cot, mad)" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "out").exists()


def test_compare_gives_the_same_bytes_and_refuses_other_draws(tmp_path: Path, here: Here) -> None:
    assert here("eval", "--method", "cot,single", "-o", "out", *COMMON).returncode == 0
    for target in ("c1", "c2"):
        done = run("compare", "out/cot", "out/single", "-o", target, "--price", "scripted:agree=1,2", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in (tmp_path / "c1").iterdir())
    assert files == ["compare.json", "compare.md", "cost_vs_accuracy.png", "cost_vs_accuracy.svg",
                     "paired_differences.png", "paired_differences.svg"]
    for name in files:  # two processes, the same bytes (figures included)
        assert (tmp_path / "c1" / name).read_bytes() == (tmp_path / "c2" / name).read_bytes(), name
    assert "Cost axis: dollars per claim" in (tmp_path / "c1" / "compare.md").read_text()
    assert "warning" not in done.stderr
    said = done.stdout.splitlines()  # the verdict sentence first, as compare.json holds it, then the files
    assert said[0] == json.loads((tmp_path / "c2" / "compare.json").read_text())["verdict"] and said[0].strip()
    assert said[1:] == [str(Path("c2") / name) for name in ("compare.md", "compare.json")] + said[3:]
    other = ["--dataset", "countries", "--limit", "3", "--llm", "scripted:agree", "--no-cache"]
    assert here("eval", "--method", "single", "-o", "three", *other).returncode == 0
    refused = here("compare", "out/cot", "three", "-o", "c3")
    assert refused.returncode == 2 and "--intersection" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "c3").exists()
    shared = here("compare", "out/cot", "three", "-o", "c3", "--intersection")
    assert shared.returncode == 0, shared.stderr
    assert "compared on the intersection: the 3 samples" in (tmp_path / "c3" / "compare.md").read_text()
    bad = here("compare", "out/cot", "three", "-o", "c4", "--price", "nonsense")
    assert bad.returncode == 2 and "expected MODEL=IN,OUT" in bad.stderr


def test_compare_prices_each_model_at_its_own_rate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """MAD's judge on another model than its debaters: each model priced with its own --price (the console
    script for the run and the first comparison; the second, a message check, in process to save a start-up)."""
    two = ["--dataset", "countries", "--limit", "2", "--llm", "scripted:agree", "--judge-llm", "scripted:disagree",
           "--no-cache"]
    assert run("eval", "--method", "mad,cot", "--mad-rounds", "1", "-o", "out", *two, cwd=tmp_path).returncode == 0
    done = run("compare", "out/mad", "out/cot", "-o", "c", "--price", "agree=1,2", "--price", "disagree=3,4",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "out" / "mad" / "results.jsonl").read_text().splitlines()]
    used = {m: [sum(r["usage_by_model"][m][f] for r in rows) for f in ("prompt_tokens", "completion_tokens")]
            for m in ("scripted:agree", "scripted:disagree")}
    assert all(p > 0 for p, _ in used.values())  # both models were called
    by_model = json.loads((tmp_path / "out" / "mad" / "summary.json").read_text())["metrics"]["cost_by_model"]
    assert {m: [u["prompt_tokens"], u["completion_tokens"]] for m, u in by_model.items()} == used  # the run's own
    expected = (used["scripted:agree"][0] * 1 + used["scripted:agree"][1] * 2
                + used["scripted:disagree"][0] * 3 + used["scripted:disagree"][1] * 4) / 1e6
    mad = json.loads((tmp_path / "c" / "compare.json").read_text())["runs"][0]
    assert mad["cost"]["dollars"] == pytest.approx(expected)
    report = (tmp_path / "c" / "compare.md").read_text()
    assert f"- mad: ${dollars_text(mad['cost']['dollars'])} in all: scripted:agree $" in report
    monkeypatch.chdir(tmp_path)
    assert cli_run(["compare", "out/mad", "out/cot", "-o", "c1", "--price", "agree=1,2"]) == 0, capsys.readouterr().err
    text = (tmp_path / "c1" / "compare.md").read_text()
    assert "- mad: no dollars, no --price for scripted:disagree: " in text and "- cot: $" in text
    assert "warning" not in capsys.readouterr().err
    assert cli_run(["compare", "out/mad", "out/cot", "-o", "c2", "--price", "gpt-4o=1,2"]) == 0
    assert "--price gpt-4o: no compared run used this model (they used scripted:agree, scripted:disagree); it " \
           "prices nothing" in capsys.readouterr().err  # It said nothing
