"""Text work on a long text runs in a worker thread, so that the event loop is not held while it reads; a
short text is read in place, where the hand-over would cost more."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

LONG_TEXT = 4_000  # characters from which splitting, gating and placing claims run in a worker thread


async def read_text(size: int, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``work(*args, **kwargs)``, in a worker thread when the text it reads is ``size`` characters or more."""
    if size < LONG_TEXT:
        return work(*args, **kwargs)
    return await asyncio.to_thread(work, *args, **kwargs)
