"""The golden check: every method's verdicts on five ``countries`` claims (scripted backend) and three
``eval --limit 5`` runs are unchanged, record by record (see record.py for what is compared and how to
refresh expected.json when a change of behaviour is intended)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.golden.record import EXPECTED, diff, record, records, stored_records, summary

# About 25 command-line runs in their own processes: 3 minutes on an idle 2-core machine, more than the
# suite's 5-minute default when the machine is shared.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_every_method_answers_as_recorded(tmp_path: Path) -> None:
    record(tmp_path / "out")
    found = summary(tmp_path / "out")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(expected)
    changed = [(name, key) for name, rows in found.items() for key, value in rows.items()
               if expected[name].get(key) != value]
    missing = [f"{name} {key}: not recorded now" for name, rows in expected.items() for key in rows
               if key not in found[name]]
    if changed or missing:
        pytest.fail("behaviour changed:\n" + "\n".join([*explained(changed, expected, found, tmp_path), *missing]))


def explained(changed: list[tuple[str, str]], expected: dict[str, Any], found: dict[str, Any],
              tmp_path: Path, limit: int = 40) -> list[str]:
    """Per changed record: its brief before and after, then the fields that differ (from records.json.gz)."""
    before, now = stored_records(), records(tmp_path / "out")
    lines: list[str] = []
    for name, key in changed[:limit]:
        lines.append(f"{name} {key}: {expected[name].get(key)} -> {found[name][key]}")
        old = before.get(name, {}).get(key)
        if old is None:
            lines.append("  (not in records.json.gz: re-record it with record.py --expected)")
        else:
            lines.extend(f"  {line}" for line in diff(old, now[name][key]))
    if len(changed) > limit:
        lines.append(f"… and {len(changed) - limit} more changed record(s)")
    lines.append(f"the full records: {tmp_path / 'out'}; refresh with tests/golden/record.py OUT --expected")
    return lines


def test_a_changed_record_is_shown_field_by_field() -> None:
    before = {"label": "SUPPORTS", "rounds": [{"evidence": [{"id": "a#0"}, {"id": "b#0"}]}], "usage": {"llm_calls": 3}}
    after = {"label": "SUPPORTS", "rounds": [{"evidence": [{"id": "b#0"}, {"id": "a#0"}]}], "usage": {"llm_calls": 4},
             "warnings": ["x" * 200]}
    lines = diff(before, after, limit=3)
    assert lines[:3] == ['rounds[0].evidence[0].id: "a#0" -> "b#0"', 'rounds[0].evidence[1].id: "b#0" -> "a#0"',
                         "usage.llm_calls: 3 -> 4"]
    assert lines[3] == "… and 1 more field(s)"
    assert diff(before, after)[3].startswith('warnings[0]: (none) -> "xxx') and "(202 chars)" in diff(before, after)[3]


def test_scores_that_kernels_move_are_left_out_and_the_passages_kept() -> None:
    from tests.golden.record import normalised

    row = {"rounds": [{"evidence": [{"id": "a#0", "score": 0.2005671}], "scores": {"answer_relevance": 0.896499,
                                                                                    "faithfulness": 0.3333333}}]}
    assert normalised(row) == {"rounds": [{"evidence": [{"id": "a#0"}],
                                           "scores": {"answer_relevance": 0.9, "faithfulness": 0.333333}}]}
