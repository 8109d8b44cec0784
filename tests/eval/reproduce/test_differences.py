"""Every run of papers.toml declares its differences from the paper (the hook, not the base's empty list),
and docs/reproduce.md's table is generated from those declarations, never kept by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.eval.reproduce.differences import END, START, cell_deviations, cell_settings, cells, section
from factdebate.eval.reproduce.spec import papers
from factdebate.methods.base import Method

RUNS = [(paper.key, run.name, run.method) for paper in papers().values() for run in paper.runs.values()]
PAGE = Path(__file__).parents[3] / "docs" / "reproduce.md"


@pytest.mark.parametrize(("paper", "run", "method"), RUNS, ids=[f"{p}/{r}" for p, r, _ in RUNS])
def test_every_run_of_the_papers_declares_its_deviations(paper: str, run: str, method: str) -> None:
    assert type(Method.named(method)).paper_deviations is not Method.paper_deviations, (
        f"{paper}/{run}: method '{method}' runs in a paper's table but declares no paper_deviations")


def test_offline_every_cell_that_searches_says_where_its_evidence_comes_from() -> None:
    """No search on the local index goes undeclared, whichever method runs it (MERMAID's tool servers
    always declare their toolset)."""
    checked = 0
    for paper in papers().values():
        for run, dataset in cells(paper):
            settings = cell_settings(paper, run, dataset)
            method = Method.named(settings.method)
            found = {d["key"] for d in cell_deviations(paper, run, dataset)}
            if settings.method == "mermaid":
                assert "toolset" in found
            elif "search" in method.tools(settings) and settings.retrieval.evidence == "retrieved" \
                    and settings.medical.search == "default":
                assert "search_engine" in found, f"{paper.key} {run} on {dataset}: {sorted(found)}"
                checked += 1
    assert checked >= 10  # Tool-MAD's, DPD's, FacTool's and WeCheck's searching cells


def test_the_pages_table_is_the_declarations() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert text[text.index(START):text.index(END) + len(END)] == section(), (
        "docs/reproduce.md is stale: python -m factdebate.eval.reproduce.differences docs/reproduce.md")
