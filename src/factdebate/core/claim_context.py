"""What one claim of a batch carries beside its text: today, the date a dataset gives it (AVeriTeC's
``claim_date``), which every search-like tool reads as a leakage cut-off for that claim alone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date

_CLAIM_DATE: ContextVar[str | None] = ContextVar("factdebate_claim_date", default=None)
_DMY = re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$")


def iso_day(value: str | None) -> str | None:
    """``YYYY-MM-DD`` (or an ISO timestamp) and ``DD-MM-YYYY`` (AVeriTeC's form) as ``YYYY-MM-DD``."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    match = _DMY.match(text)
    try:
        if match:
            return date(int(match.group(3)), int(match.group(2)), int(match.group(1))).isoformat()
        return date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        raise ValueError(f"not a date: {text!r} (use YYYY-MM-DD)") from None


@contextmanager
def claim_date(value: str | None) -> Iterator[None]:
    """Within the block, search tools cut evidence at ``value`` (combined with the configured date)."""
    token = _CLAIM_DATE.set(iso_day(value))
    try:
        yield
    finally:
        _CLAIM_DATE.reset(token)


def search_before(configured: str | None) -> str | None:
    """The earlier of the configured cut-off and the current claim's date."""
    days = [d for d in (configured, _CLAIM_DATE.get()) if d]
    return min(days) if days else None
