"""Every reply a parser had to read in a run, by what was asked: asked, re-asked, recovered and lost.

A labelled verdict may have lost replies, so every report shows these counts, and warns of a role that lost
more than :data:`LOST_WARNING`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from factdebate.core.types import ReplyCounts, add_reply_counts

LOST_WARNING = 0.05  # a share of one role's replies lost beyond which the run is warned about


def _record_counts(record: dict[str, Any]) -> dict[str, ReplyCounts]:
    """The counts a record carries (``parse_counts``: verdicts, responses, DPD's task modes, choices)."""
    counts: dict[str, ReplyCounts] = {}
    raw = record.get("parse_counts")
    if isinstance(raw, dict):
        add_reply_counts(counts, {str(k): ReplyCounts.model_validate(v) for k, v in raw.items()
                                  if isinstance(v, dict)})
    return counts


def reply_counts(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """The counts summed over ``records``, by what was asked (sorted by name)."""
    total: dict[str, ReplyCounts] = {}
    for record in records:
        add_reply_counts(total, _record_counts(record))
    return {what: total[what].model_dump() for what in sorted(total)}


def lost_warning(counts: dict[str, dict[str, int]]) -> str | None:
    """A sentence naming each role that lost more than 5% of its replies; None when none did."""
    over = [f"{what} {row['lost']}/{row['asked']}" for what, row in counts.items()
            if row.get("asked") and row.get("lost", 0) / row["asked"] > LOST_WARNING]
    if not over:
        return None
    return (f"more than {LOST_WARNING:.0%} of some roles' replies could not be read even after a re-ask "
            f"({', '.join(over)} lost): the results rest on fewer answers than asked for")


def counts_text(counts: dict[str, dict[str, int]]) -> str:
    """``label 40 asked, 2 re-asked, 1 recovered, 1 lost; query ...`` (``none`` when no parser ran)."""
    if not counts:
        return "none read"
    return "; ".join(f"{what} {row['asked']} asked, {row['reasked']} re-asked, {row['recovered']} recovered, "
                     f"{row['lost']} lost" + (f", {row['cut']} cut at the token limit" if row.get("cut") else "")
                     for what, row in counts.items())


def short_text(counts: dict[str, dict[str, int]]) -> str:
    """The terminal's form: ``re-asked/recovered/lost label 2/1/1, query 0/0/0``, then, where replies
    stopped at their token limit, ``; cut at the token limit: dpd_analyst 18/50`` (cut of asked)."""
    if not counts:
        return "replies: none read"
    cut = [f"{what} {row['cut']}/{row['asked']}" for what, row in counts.items() if row.get("cut")]
    return "replies re-asked/recovered/lost: " + ", ".join(
        f"{what} {row['reasked']}/{row['recovered']}/{row['lost']}" for what, row in counts.items()) + \
        (f"; cut at the token limit: {', '.join(cut)}" if cut else "")
