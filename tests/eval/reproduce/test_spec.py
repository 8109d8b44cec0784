"""The papers' data file: it loads and names only what exists, and every number in it is the seed paper's
(each row's figures appear, in the paper's column order, on one line of the paper's text)."""

from __future__ import annotations

import re

import pytest

from factdebate.eval.reproduce.spec import Paper, get_paper, papers
from factdebate.util.errors import InputError
from tests.paths import SHARED

SEEDS = SHARED / "seeds"
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _numbers(line: str) -> list[float]:
    return [float(n) for n in _NUMBER.findall(line)]


def _contains(line: list[float], wanted: list[float]) -> bool:
    return any(line[i:i + len(wanted)] == wanted for i in range(len(line) - len(wanted) + 1))


def _flat(values: dict[str, float], ci: tuple[float, float] | None, metrics: list[str]) -> list[float]:
    return [values[m] for m in metrics if m in values] + (list(ci) if ci else [])


def test_the_three_papers_load_with_their_main_tables() -> None:
    loaded = papers()
    assert set(loaded) == {"toolmad", "toolmad-draft", "mermaid", "dpd"}
    assert loaded["toolmad"].main == ["table3", "table4"] and loaded["dpd"].main == ["table2", "table3"]
    assert "figure3" in loaded["mermaid"].main  # tool calls with and without memory
    tool_mad = loaded["toolmad"].runs["tool-mad"].options
    assert (tool_mad["rounds"], tool_mad["faithfulness_threshold"], tool_mad["relevance_threshold"], tool_mad["k"]) \
        == (3, 0.7, 0.8, 3)
    assert loaded["mermaid"].runs["mermaid"].options["mermaid_max_steps"] == 5


@pytest.mark.parametrize("key", ["toolmad", "toolmad-draft", "mermaid", "dpd"])
def test_every_figure_is_transcribed_from_the_seed_paper(key: str) -> None:
    paper: Paper = get_paper(key)
    seed = SEEDS / paper.seed_file
    if not seed.exists():
        pytest.skip(f"{seed} is not here")
    lines = [_numbers(line) for line in seed.read_text(encoding="utf-8").splitlines()]
    checked = 0
    for table in paper.tables:
        for row in table.rows:
            for model, figures in row.paper.items():
                whole = [v for c in table.columns if c in figures.values
                         for v in _flat(figures.values[c], figures.ci.get(c), table.metrics)]
                if any(_contains(line, whole) for line in lines):  # the row as one line of the table
                    checked += len(whole)
                    continue
                for column, values in figures.values.items():  # a table by dataset, or numbers in prose
                    part = _flat(values, figures.ci.get(column), table.metrics)
                    assert any(_contains(line, part) for line in lines), (key, table.name, row.run, model, column)
                    checked += len(part)
    assert checked > 20


def test_mermaid_tool_calls_add_up_to_the_totals_the_text_gives() -> None:
    figure = get_paper("mermaid").table("figure3")
    totals = {row.run: sum(v["tool_calls_total"] for v in row.paper["gpt-5-mini"].values.values())
              for row in figure.rows}
    assert totals == {"mermaid-no-memory": 1840, "mermaid": 1533}


def test_a_citation_names_paper_table_row_column_and_metric() -> None:
    paper = get_paper("toolmad")
    table = paper.table("table3")
    row = next(r for r in table.rows if r.run == "tool-mad")
    found = paper.figures(row, "gpt-4o-mini")
    assert found is not None
    assert paper.cite(table, found[1], "averitec", "accuracy") == \
        "Tool-MAD (journal), Table III, row 'GPT-4o-mini + Tool-MAD', column 'AVERITEC', accuracy"
    assert found[1].values["averitec"]["accuracy"] == 62.0
    baseline = next(r for r in get_paper("mermaid").table("table1").rows if r.run == "factool")
    assert get_paper("mermaid").figures(baseline, "gpt-5-mini") is not None  # its one backbone, GPT-4o


def test_unknown_paper_or_table_is_one_clear_error() -> None:
    with pytest.raises(InputError, match="papers: toolmad, toolmad-draft, mermaid, dpd"):
        get_paper("madke")
    with pytest.raises(InputError, match=r"tables: table3 \(Table III: .*\); table4 \(Table IV"):
        get_paper("toolmad").table("table9")


@pytest.mark.parametrize("key", ["toolmad", "toolmad-draft", "mermaid", "dpd"])
def test_the_report_prints_each_paper_figure_as_the_paper_does(key: str) -> None:
    """74.25 stays 74.25 (not 74.2), 62.0 stays 62.0, DPD's lone 65.0 stays 65.0: each figure, printed with
    the report's decimals, is a number written in the seed paper."""
    from factdebate.eval.reproduce.report import _digits, _num

    paper = get_paper(key)
    seed = SEEDS / paper.seed_file
    if not seed.exists():
        pytest.skip(f"{seed} is not here")
    written = set(_NUMBER.findall(seed.read_text(encoding="utf-8")))
    printed = [(table.name, row.run, column, metric,
                _num(value, _digits(table, metric, row.run, column)))
               for table in paper.tables for row in table.rows for figures in row.paper.values()
               for column, values in figures.values.items() for metric, value in values.items()]
    assert printed and [p for p in printed if p[-1] not in written] == []


def _class_sizes(n: int, accuracy: float, recall: float, precision: float) -> set[int]:
    """Sizes P of the measured class for which whole counts give the three figures (to the printed cent)."""
    sizes = set()
    for p in range(1, n):
        for tp in range(p + 1):
            if abs(100 * tp / p - recall) > 0.006:
                continue
            for fp in range(n - p + 1):
                if tp + fp and abs(100 * tp / (tp + fp) - precision) <= 0.006 \
                        and abs(100 * (tp + n - p - fp) / n - accuracy) <= 0.006:
                    sizes.add(p)
    return sizes


def test_the_dpd_draws_give_the_measured_class_the_size_table_3_needs() -> None:
    """Table 1 prints 80 positive / 70 negative for dialogue, but the Table 3 rows that
    resolve to whole counts measure a class of 70; on FacTool (23 factual responses, Table 1's 23
    positive) the measured class is the factual one. So SUPPORTS (factual) gets 70 dialogue samples; the
    balanced sets are the same either way. The "Ours" rows resolve to no whole counts and are left out."""
    paper = get_paper("dpd")
    table = paper.table("table3")
    for column in table.columns:
        spec = paper.datasets[column]
        resolved = []
        for row in table.rows:
            values = row.paper["chatgpt"].values[column]
            sizes = _class_sizes(spec.n, values["accuracy"], values["recall"], values["precision"])
            resolved += [sizes] if sizes else []
        assert len(resolved) >= 2, column  # both baselines resolve
        assert all(sizes == {spec.quota["SUPPORTS"]} for sizes in resolved), (column, resolved)
    response = paper.table("table2")
    for row in response.rows:
        values = row.paper["chatgpt"].values["factool-qa"]
        sizes = _class_sizes(50, values["response_accuracy"], values["response_recall"], values["response_precision"])
        assert sizes in (set(), {23}), row.run  # 23 factual responses (knowledge_qa.jsonl: label true)
