"""The scifact-sr format: SciFact's SUPPORT/CONTRADICT claims only, as MERMAID's Table 2 (after FOLK) uses."""

from __future__ import annotations

import json
from pathlib import Path

from factdebate.eval.datasets.loader import load_dataset


def test_nei_claims_are_left_out_and_counted(tmp_path: Path) -> None:
    rows = [{"id": 1, "claim": "A causes B.", "evidence": {"d1": [{"label": "SUPPORT", "sentences": [0]}]}},
            {"id": 2, "claim": "C prevents D.", "evidence": {"d2": [{"label": "CONTRADICT", "sentences": [1]}]}},
            {"id": 3, "claim": "E is unrelated.", "evidence": {}}]
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    dataset = load_dataset(f"scifact-sr:{path}")
    assert [s.gold for s in dataset.samples] == ["SUPPORTS", "REFUTES"]
    assert dataset.labels == ("SUPPORTS", "REFUTES")
    assert "1 no evidence" in dataset.load_report()
