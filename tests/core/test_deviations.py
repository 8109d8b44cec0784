"""A method's paper deviations reach every verdict, an evaluation's run.json and summary, and the terminal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

import factdebate
from factdebate.cli.main import app
from factdebate.core.deviations import Deviation
from factdebate.methods.base import register, unregister
from factdebate.methods.parrot.method import Parrot
from factdebate.settings.model import Settings

CLAIM = "Paris is the capital of France."


class StrayParrot(Parrot):
    """The example method, with one deviation that depends on its settings."""

    name: ClassVar[str] = "stray-parrot"
    option_prefix: ClassVar[str | None] = "parrot_"

    def paper_deviations(self, settings: Settings) -> list[Deviation]:
        answers = self.cfg(settings).answers
        if answers == 1:
            return []
        return [Deviation(key="answers", paper="one answer", here=f"{answers} answers", restore="--parrot-answers 1")]


@pytest.fixture
def stray() -> Iterator[None]:
    register(StrayParrot)
    yield
    unregister("stray-parrot")


def test_the_verdict_carries_the_deviations_its_settings_make(stray: None) -> None:
    verdict = factdebate.verify(CLAIM, method="stray-parrot", parrot_answers=2, llm="scripted:agree", cache=False)
    assert [d.key for d in verdict.deviations] == ["answers"]
    assert verdict.deviations[0].here == "2 answers"
    same = factdebate.verify(CLAIM, method="stray-parrot", parrot_answers=1, llm="scripted:agree", cache=False)
    assert same.deviations == []


def test_an_evaluation_writes_them_once_and_the_terminal_prints_them(stray: None, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "run"
    result = runner.invoke(app, ["eval", "--method", "stray-parrot", "--parrot-answers", "3", "--dataset", "countries",
                                 "--limit", "1", "--llm", "scripted:agree", "--output", str(out)])
    assert result.exit_code == 0, result.output
    run: dict[str, Any] = json.loads((out / "run.json").read_text())
    assert [d["key"] for d in run["deviations"]] == ["answers"]
    record = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    assert "deviations" not in record  # once per run, in run.json
    assert "differs from the paper:" in (out / "summary.md").read_text()
    assert "3 answers (paper: one answer); paper's way: --parrot-answers 1" in (out / "summary.md").read_text()
    shown = runner.invoke(app, ["verify", CLAIM, "--method", "stray-parrot", "--parrot-answers", "2",
                                "--llm", "scripted:agree", "--no-cache"])
    assert shown.exit_code == 0, shown.output
    assert "differs from the paper: 2 answers" in shown.output
