"""Whose model calls these are: on a service, the key a check was admitted for (a hash of it, never the key).

The queue of calls to a model server (llm/in_flight.py) serves the owners in turn, so that one key's calls do not
wait behind all of another's; and it adds up the seconds each owner's calls held its slots, which the service's
admission learns what a check of that key costs the checker from (server/ops/checker_slots.py). A ContextVar, set
where a check is admitted: the tasks and threads the check starts inherit it. Calls with no owner share one turn."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass(eq=False)
class CallOwner:
    """One check's owner, and the seconds its calls held each model server's slots (by the server's queue)."""

    who: str
    held_s: dict[object, float] = field(default_factory=dict)

    def held(self, queue: object, seconds: float) -> None:
        self.held_s[queue] = self.held_s.get(queue, 0.0) + seconds


_owner: ContextVar[CallOwner | None] = ContextVar("factdebate_call_owner", default=None)


def own_calls(owner: CallOwner) -> None:
    """The model calls made from now on in this context (a request's task) and the tasks it starts are
    ``owner``'s: for the rest of the request, which is one check."""
    _owner.set(owner)


def call_owner() -> CallOwner | None:
    """The owner of a call made now; None: no one's (a debate, a command line run)."""
    return _owner.get()
