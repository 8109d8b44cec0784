"""Failed tries shared by every model call of one piece of work (a guard's reply), so that a server that fails
every call is given up on once for the reply, not once for each of its calls (each retrying alone in its own
task). Code enters :func:`sharing` with one :class:`FailureBudget`; ``llm/model.py`` spends it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class FailureBudget:
    tries: int  # failed tries the work may spend in all
    failed: int = 0

    @property
    def spent(self) -> bool:
        return self.failed >= self.tries


_current: ContextVar[FailureBudget | None] = ContextVar("factdebate_failure_budget", default=None)


def current_budget() -> FailureBudget | None:
    return _current.get()


@contextmanager
def sharing(budget: FailureBudget) -> Iterator[FailureBudget]:
    """The model calls made inside (this task and the tasks it starts) spend ``budget``."""
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)
