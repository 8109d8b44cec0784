"""Who is asking: role, agent, round and prompt of the LLM call in progress, and the evaluation sample it
serves (set once per sample by ``eval``, so every ``llm_call`` of a run's trace names its sample)."""

from __future__ import annotations

import hashlib
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass

from factdebate.util.context import bound


@dataclass(frozen=True)
class CallInfo:
    role: str = ""
    agent: str = ""
    round: int = 0
    prompt: str = ""
    sample: str = ""  # the evaluation sample served: not part of what is asked (no cache key)
    draw: str = ""  # which of several independent draws of one call (DPD's summaries): part of the cache key

    def as_dict(self) -> dict[str, object]:
        # Written out by hand: dataclasses.asdict deep-copies and was a hot spot under load.
        return {"role": self.role, "agent": self.agent, "round": self.round, "prompt": self.prompt,
                "sample": self.sample, "draw": self.draw}


# ContextVars, not arguments (these and those below): set where a claim's work starts, read in the backend many
# layers down, and each concurrent claim's task has its own values.
_call: ContextVar[CallInfo] = ContextVar("factdebate_call", default=CallInfo())
_sample: ContextVar[str] = ContextVar("factdebate_sample", default="")


def current_sample() -> str:
    return _sample.get()


def evaluating(sample_id: str) -> AbstractContextManager[str]:
    """The calls made inside (and by the tasks started inside) serve evaluation sample ``sample_id``."""
    return bound(_sample, sample_id)


_cache_scope: ContextVar[str] = ContextVar("factdebate_cache_scope", default="")


def current_cache_scope() -> str:
    return _cache_scope.get()


def cache_scope(scope: str) -> AbstractContextManager[str]:
    """Cached answers of the calls made inside are shared only within ``scope`` ("": everyone's)."""
    return bound(_cache_scope, scope)


def caller_scope(caller: str | None) -> str:
    """The cache scope of one caller (an API key's id); no caller (a local user): everyone's."""
    return "caller-" + hashlib.sha256(caller.encode()).hexdigest()[:20] if caller else ""


@dataclass
class CallCount:
    """Model calls of one piece of work as the wire saw them: ``sent`` (retries and cut calls included) and
    ``cached`` (from the cache or an identical call in flight); a nested count adds to its ``parent`` too."""

    sent: int = 0
    cached: int = 0
    parent: CallCount | None = None

    def add(self, *, sent: int = 0, cached: int = 0) -> None:
        count: CallCount | None = self
        while count is not None:
            count.sent += sent
            count.cached += cached
            count = count.parent


_count: ContextVar[CallCount | None] = ContextVar("factdebate_call_count", default=None)


def current_count() -> CallCount | None:
    return _count.get()


def counting(count: CallCount) -> AbstractContextManager[CallCount]:
    """The model calls made inside (and by the tasks started inside) are counted in ``count``."""
    return bound(_count, count)


def count_call(*, cached: bool) -> None:
    """One model call sent (``cached``: answered without sending), for whoever counts them."""
    if (count := _count.get()) is not None:
        count.add(sent=int(not cached), cached=int(cached))


def current_call() -> CallInfo:
    return _call.get()


def set_call(info: CallInfo) -> object:
    return _call.set(info)


def reset_call(token: object) -> None:
    _call.reset(token)  # type: ignore[arg-type]
