"""Planning a reproduction: the paper's draw of samples, the settings of each run (paper's, then the user's
flags, listed), and a dataset that cannot be had skipped with the reason and how to supply it."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.eval.datasets import BINARY_LABELS, FACT_LABELS, Dataset, Sample
from factdebate.eval.reproduce.cells import Request, draw, pairs, parse_data, plan_cells
from factdebate.eval.reproduce.spec import DatasetSpec, get_paper
from factdebate.util.errors import InputError


def _dataset(golds: list[str], groups: list[str] | None = None) -> Dataset:
    samples = [Sample(f"s{i}", f"claim {i}", gold, meta={"group": groups[i]} if groups else {})
               for i, gold in enumerate(golds)]
    return Dataset(kind="claims", labels=FACT_LABELS, samples=samples, spec="claims:x.jsonl")


def _spec(**fields: object) -> DatasetSpec:
    base: dict[str, object] = {"key": "d", "name": "d", "label": "D", "split": "dev", "n": 4, "supply": "claims:PATH"}
    return DatasetSpec.model_validate({**base, **fields})


def test_balanced_draw_takes_the_paper_quota_and_a_limit_takes_a_prefix_of_it() -> None:
    data = _dataset(["SUPPORTS"] * 10 + ["REFUTES"] * 3 + ["NOT ENOUGH INFO"] * 5)
    spec = _spec(draw="balanced", quota={"SUPPORTS": 4, "REFUTES": 4}, n=8)
    chosen, notes = draw(data, spec, seed=0, limit=None)
    assert sorted(s.gold for s in chosen) == ["REFUTES"] * 3 + ["SUPPORTS"] * 4
    assert notes == ["only 3 of the paper's 4 REFUTES samples"]
    again, _ = draw(data, spec, seed=0, limit=None)
    assert [s.id for s in again] == [s.id for s in chosen]  # seeded
    first, notes = draw(data, spec, seed=0, limit=2)
    assert [s.id for s in first] == [s.id for s in chosen[:2]] and "--limit 2: 2 of the paper's 8 samples" in notes


def test_random_draw_group_and_label_filters() -> None:
    data = _dataset(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO", "SUPPORTS", "REFUTES"],
                    groups=["2 hops", "2 hops", "2 hops", "3 hops", "3 hops"])
    chosen, notes = draw(data, _spec(group="2 hops", labels=list(BINARY_LABELS)), seed=1, limit=None)
    assert sorted(s.id for s in chosen) == ["s0", "s1"]
    assert notes == ["2 samples available, the paper used 4"]
    with pytest.raises(InputError, match=r"no sample of the group '4 hops'.*--data d=claims:PATH"):
        draw(data, _spec(group="4 hops"), seed=0, limit=None)
    with pytest.raises(InputError, match=r"checks responses here.*--data d="):
        draw(data, _spec(unit="response"), seed=0, limit=None)


def test_parse_data_wants_name_equals_spec() -> None:
    assert parse_data(["fever=fever:/x/dev.jsonl"]) == {"fever": "fever:/x/dev.jsonl"}
    with pytest.raises(InputError, match="expected DATASET=FORMAT:PATH"):
        parse_data(["fever:/x/dev.jsonl"])


def test_tables_that_share_a_run_share_its_folder() -> None:
    paper = get_paper("toolmad")
    request = Request(paper, [paper.table("table3"), paper.table("table4")], Path("out"))
    keys = [f"{d.key}/{r.name}" for r, d in pairs(request)]
    assert len(keys) == len(set(keys)) == 24  # Table IV's four Tool-MAD runs are Table III's
    request.rows = {"tool-mad"}
    assert [f"{d.key}/{r.name}" for r, d in pairs(request)] == [f"{c}/tool-mad" for c in
                                                                  ("fever", "feverous", "faviq", "averitec")]


def test_missing_datasets_are_skipped_with_the_reason_and_how_to_supply_them(tmp_path: Path) -> None:
    paper = get_paper("toolmad")
    request = Request(paper, [paper.table("table3")], tmp_path, rows={"cot"}, options={"llm": "scripted:agree"})
    cells = plan_cells(request)
    assert [c.status for c in cells] == ["skipped"] * 4
    fever = cells[0]
    assert fever.loaded is None and "cannot load 'fever'" in fever.reason
    assert "--data fever=fever:PATH" in fever.reason and "\n" not in fever.reason


def claims_file(path: Path, n: int = 6) -> Path:
    """A small dataset in the generic claims format, half true and half false."""
    rows = [f'{{"id": "c{i}", "claim": "Claim number {i}.", "label": "{"true" if i % 2 else "false"}"}}'
            for i in range(n)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_the_users_flags_go_over_the_papers_and_are_listed(tmp_path: Path) -> None:
    paper = get_paper("toolmad")
    data = {"faviq": f"claims:{claims_file(tmp_path / 'faviq.jsonl')}"}
    request = Request(paper, [paper.table("table3")], tmp_path / "out", limit=2, rows={"tool-mad"}, data=data,
                      options={"llm": "scripted:agree", "rounds": 2})
    cells = {c.key: c for c in plan_cells(request)}
    faviq = cells["faviq/tool-mad"]
    assert [c.status for c in cells.values()] == ["skipped", "skipped", "planned", "skipped"]
    assert faviq.plan is not None and len(faviq.plan.samples) == 2 and faviq.loaded == 6
    assert faviq.overrides == ["rounds: 3 (paper) -> 2"]
    section = faviq.plan.settings.methods["tool-mad"]
    assert (section.rounds, section.faithfulness_threshold, section.relevance_threshold) == (2, 0.7, 0.8)
    assert faviq.plan.settings.method == "tool-mad"
    assert faviq.folder == (tmp_path / "out").resolve() / "faviq" / "tool-mad"
    assert faviq.plan.split == "dev (not named by the paper)"
