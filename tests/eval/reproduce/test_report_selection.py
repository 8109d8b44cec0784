"""A reproduction narrowed by --rows/--datasets reports the cells it ran, not every cell of the table with
"not run (not selected)" (`--rows tool-mad --datasets fever` listed 24 cells, 23 not run)."""

from __future__ import annotations

from pathlib import Path

from tests.eval.reproduce.test_damaged_records import reproduction  # noqa: F401  (the module's one real run)


def test_the_report_lists_only_the_selected_cells_and_counts_the_rest(reproduction: Path) -> None:  # noqa: F811
    report = (reproduction / "report.md").read_text(encoding="utf-8")
    rows = [line for line in report.splitlines() if line.startswith("| ") and " | single | " in line]
    assert rows, report
    assert "not selected" not in report.replace("were not selected", ""), report
    assert all("feverous" in line.lower() for line in rows), rows
    assert "of this table were not selected (--rows/--datasets)" in report
