"""How often a run on a two-label dataset met a case whose answer is a choice rather than a reading of the
evidence, so that a reader can tell how much of a figure rests on it (issue: binary tasks, binary answers):

- ``ties``: DPD panels whose final outcome was a tie (``decided_by`` ``panel-tie``), answered with
  ``methods.dpd.binary_tie``;
- ``empty_extractions``: responses with no claim left to check (``no-claims``: nothing extracted, or only
  subjective content), answered SUPPORTS as no claim is false;
- ``third_label``: verdicts a method still answered NOT ENOUGH INFO (``decided_by`` ``two-labels``; a
  response with a NOT ENOUGH INFO claim and none false, ``unverified``), answered REFUTES by the rule of
  core/claim_context.py: not verified as factual; ``outside_labels``: those that reached a record as a third
  label all the same (kept in the record's ``outside_labels``, answered by the same rule).
"""

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
