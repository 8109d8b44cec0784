"""Failed tries shared by every model call of one piece of work (a guard's reply), so that a server that fails
every call is given up on once for the reply, not once for each of its calls (each retrying alone in its own
task). Code enters :func:`sharing` with one :class:`FailureBudget`; ``llm/model.py`` spends it."""

from __future__ import annotations

from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass

from factdebate.util.context import bound


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


def sharing(budget: FailureBudget) -> AbstractContextManager[FailureBudget]:
    """The model calls made inside (this task and the tasks it starts) spend ``budget``."""
    return bound(_current, budget)
