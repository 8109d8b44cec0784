"""The newcomer's rough words of issue 61, item 6, each as the reader meets it: `factdebate methods`' columns,
`--help`'s mcp line, `docs` suggestions, a misspelt method, the role flags' help and the judge's heading."""

from __future__ import annotations

import re

import pytest

from factdebate.cli.main import run

pytestmark = pytest.mark.usefixtures("wide_enough")


@pytest.fixture
def wide_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # a common terminal; rich reads it for --help


def said(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_methods_lines_up_every_description_after_the_longest_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = said(capsys, "methods")
    assert code == 0
    named = [line for line in out.splitlines() if line and not line[0].isspace()]
    starts = {re.match(r"\S+\s+", line).end() for line in named}  # type: ignore[union-attr]
    assert len(starts) == 1, out  # halueval-fewshot's description started a column late
    assert any(line.startswith("halueval-fewshot  ") for line in named)


def test_help_shows_mcps_line_whole(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = said(capsys, "--help")
    assert code == 0
    at = out.index("│ mcp ")
    entry = out[at:out.index("│ mcp-tools")]
    assert "…" not in entry and "--http" in entry, entry


def test_docs_suggests_only_a_near_topic(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = said(capsys, "docs", "nosuchpage")
    assert code == 2 and "no documentation topic 'nosuchpage'" in err and "did you mean" not in err, err
    code, _, err = said(capsys, "docs", "gaurd")
    assert code == 2 and "did you mean guard" in err, err


@pytest.mark.parametrize("typed", ["toolmad", "tool_mad"])
def test_a_method_spelt_as_the_paper_does_is_offered_its_name(capsys: pytest.CaptureFixture[str], typed: str) -> None:
    code, _, err = said(capsys, "verify", "--method", typed, "The Eiffel Tower is in Rome.")
    assert code == 2 and "did you mean tool-mad?" in err, err


def test_the_role_flags_help_reads_as_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = said(capsys, "verify", "--help")
    assert code == 0
    text = re.sub(r"[│\s]+", " ", out)
    assert "Short for" not in text and "decides when the debaters do not agree" in text, text


def test_the_judge_after_the_last_round_is_headed_judge(capsys: pytest.CaptureFixture[str]) -> None:
    """A 2-round debate without consensus: "Round 1", "Round 2", then "Judge" (it was "Round 3")."""
    code, out, _ = said(capsys, "verify", "The Eiffel Tower is in Rome.", "--llm", "scripted:disagree",
                        "--agents", "none,none", "--rounds", "2")
    assert code == 0
    headings = re.findall(r"─ (Round \d+|Judge) ─", out)
    assert headings == ["Round 1", "Round 2", "Judge"], out
