"""How often a run on a two-label dataset met a case whose answer is a choice rather than a reading of the
evidence, so that a reader can tell how much of a figure rests on it (issue: binary tasks, binary answers):

- ``ties``: DPD panels whose final outcome was a tie (``decided_by`` ``panel-tie``), answered with
  ``methods.dpd.binary_tie``;
- ``empty_extractions``: responses with no claim left to check (``no-claims``: nothing extracted, or only
  subjective content), answered SUPPORTS as no claim is false;
- ``outside_labels``: answers outside the two labels that a method still gave (kept in the record's
  ``outside_labels``, no prediction, counted wrong).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


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
    return {"ties": ties, "tied_samples": tied_samples, "empty_extractions": empty,
            "outside_labels": len(outside), "outside_label_ids": outside}


def line(found: dict[str, Any], tie_label: str | None) -> str:
    """The summary's line about them."""
    tie = f" (answered {tie_label})" if tie_label and found["ties"] else ""
    return (f"- two labels: ties {found['ties']}{tie} in {found['tied_samples']} sample(s); empty extractions "
            f"{found['empty_extractions']} (answered SUPPORTS: no claim is false); answers outside the two "
            f"labels {found['outside_labels']} (counted wrong)")
