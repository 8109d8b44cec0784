"""The golden check: every method's verdicts on five ``countries`` claims (scripted backend) and three
``eval --limit 5`` runs are unchanged, record by record (see record.py for what is compared and how to
refresh expected.json when a change of behaviour is intended)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden.record import EXPECTED, record, summary

# About 25 command-line runs in their own processes: 3 minutes on an idle 2-core machine, more than the
# suite's 5-minute default when the machine is shared.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_every_method_answers_as_recorded(tmp_path: Path) -> None:
    record(tmp_path / "out")
    found = summary(tmp_path / "out")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(expected)
    changed = [f"{name} {key}: {expected[name].get(key)} -> {value}"
               for name, rows in found.items() for key, value in rows.items() if expected[name].get(key) != value]
    missing = [f"{name} {key}" for name, rows in expected.items() for key in rows if key not in found[name]]
    assert not changed and not missing, "behaviour changed:\n" + "\n".join(changed + missing)
