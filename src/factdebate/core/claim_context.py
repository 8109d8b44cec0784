"""What one claim of a batch carries beside its text, as one :class:`ClaimContext` value: its date (a leakage
cut-off for search-like tools), its place in the run's order (for state kept across a run's claims), whether
its task has two labels (NOT ENOUGH INFO is then answered in them) or four (AVeriTeC's), and its evidence."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from factdebate.core.types import Document
from factdebate.util.context import bound


@dataclass(frozen=True, slots=True)
class ClaimContext:
    """Everything one claim carries beside its text (``evidence`` None: none came)."""

    date: str | None = None
    position: int | None = None
    two_labels: bool = False
    four_labels: bool = False
    given: tuple[Document, ...] | None = None


# The harness sets it around one claim; prompts, parsers and tools read it inside the method (tasks copy it).
_CONTEXT: ContextVar[ClaimContext] = ContextVar("factdebate_claim_context", default=ClaimContext())


def claim_context(**changes: Any) -> AbstractContextManager[ClaimContext]:
    """Within the block, the current claim's context with ``changes`` (fields of :class:`ClaimContext`)."""
    return bound(_CONTEXT, replace(_CONTEXT.get(), **changes))


# Room between two samples for the claims of one response (response.max_claims is at most 100).
PER_SAMPLE = 1000
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
    with claim_context(date=iso_day(value)):
        yield


def search_before(configured: str | None) -> str | None:
    """The earlier of the configured cut-off and the current claim's date."""
    days = [d for d in (configured, _CONTEXT.get().date) if d]
    return min(days) if days else None


@contextmanager
def claim_position(index: int) -> Iterator[None]:
    """Within the block, the claim is the ``index``-th (from 0) of its run's order."""
    with claim_context(position=index * PER_SAMPLE):
        yield


@contextmanager
def sub_claim(index: int) -> Iterator[None]:
    """Within the block, the ``index``-th claim of the current sample, ordered after what came before it."""
    base = _CONTEXT.get().position
    if base is None:
        yield
        return
    with claim_context(position=base + min(index, PER_SAMPLE - 1)):
        yield


def current_position() -> int | None:
    """The current claim's place in its run's order (smaller: earlier); ``None`` outside a run."""
    return _CONTEXT.get().position


@contextmanager
def two_labels(active: bool) -> Iterator[None]:
    """Within the block (``active``), the claim's task has two labels, SUPPORTS and REFUTES."""
    with claim_context(two_labels=active):
        yield


def binary_task() -> bool:
    """Whether the current claim's task has two labels only (False outside an evaluation)."""
    return _CONTEXT.get().two_labels


@contextmanager
def four_labels(active: bool) -> Iterator[None]:
    """Within the block (``active``), the claim's task has AVeriTeC's four labels."""
    with claim_context(four_labels=active):
        yield


def four_label_task() -> bool:
    """Whether the current claim's task has AVeriTeC's four labels (False outside an evaluation)."""
    return _CONTEXT.get().four_labels


@contextmanager
def given_evidence(documents: Sequence[Document] | None) -> Iterator[None]:
    """Within the block, ``documents`` came with the claim (tools/given.py serves them)."""
    with claim_context(given=tuple(documents) if documents is not None else None):
        yield


def current_evidence() -> list[Document] | None:
    """The evidence that came with the claim being checked; None when none was given."""
    given = _CONTEXT.get().given
    return list(given) if given is not None else None


# A third label in a two-label task (a model or method can still reach NOT ENOUGH INFO) is REFUTES: the claim was
# not verified as factual, as DPD's tie rule reads it. Its ``decided_by`` says so, and the summary counts it.
THIRD_LABEL_ANSWER = "REFUTES"
THIRD_LABEL_RULE = "two-labels"
THIRD_LABEL_READS = "NOT ENOUGH INFO answered REFUTES: the task has two labels and the claim was not verified"
