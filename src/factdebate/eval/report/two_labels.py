"""How often a two-label run's answer was a choice, not a reading: DPD ``ties``, ``empty_extractions``
(SUPPORTS), ``third_label`` answers and ``outside_labels`` records (REFUTES, core/claim_context.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from factdebate.core.claim_context import THIRD_LABEL_ANSWER, THIRD_LABEL_RULE


def _verdicts(record: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The claim verdicts in one results record: the record itself, or each checked claim's of a response."""
    if record.get("kind") == "response":
        for check in record.get("claims") or []:
            if isinstance(check, dict) and isinstance(check.get("verdict"), dict):
                yield check["verdict"]
    else:
        yield record


def counts(records: list[dict[str, Any]]) -> dict[str, Any]:
    ties = sum(verdict.get("decided_by") == "panel-tie" for record in records for verdict in _verdicts(record))
    tied_samples = sum(any(v.get("decided_by") == "panel-tie" for v in _verdicts(record)) for record in records)
    empty = sum(record.get("kind") == "response" and record.get("decided_by") == "no-claims" for record in records)
    outside = [record["id"] for record in records if record.get("outside_labels") is not None]
    third = sum(verdict.get("decided_by") == THIRD_LABEL_RULE for record in records for verdict in _verdicts(record))
    third += sum(record.get("kind") == "response" and record.get("decided_by") == "unverified" for record in records)
    third_samples = [record["id"] for record in records if record.get("outside_labels") is not None
                     or any(v.get("decided_by") == THIRD_LABEL_RULE for v in _verdicts(record))
                     or (record.get("kind") == "response" and record.get("decided_by") == "unverified")]
    return {"ties": ties, "tied_samples": tied_samples, "empty_extractions": empty,
            "third_label": third, "third_label_ids": third_samples,
            "outside_labels": len(outside), "outside_label_ids": outside}


def line(found: dict[str, Any], tie_label: str | None) -> str:
    """The summary's line about them."""
    tie = f" (answered {tie_label})" if tie_label and found["ties"] else ""
    return (f"- two labels: ties {found['ties']}{tie} in {found['tied_samples']} sample(s); empty extractions "
            f"{found['empty_extractions']} (answered SUPPORTS: no claim is false); NOT ENOUGH INFO answers "
            f"{found.get('third_label', 0) + found['outside_labels']} in {len(found.get('third_label_ids', []))} "
            f"sample(s) (answered {THIRD_LABEL_ANSWER}: not verified as factual)")
