"""A ContextVar set for a block: what every "within it, X holds" context manager of the package is made of."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any, TypeVar, overload

T = TypeVar("T")


# Two signatures so that a block binding a value to an optional variable (``ContextVar[X | None]``, None outside
# any block) receives an X, not an X | None.
@overload
def bound(var: ContextVar[T | None], value: T) -> AbstractContextManager[T]: ...
@overload
def bound(var: ContextVar[T], value: T) -> AbstractContextManager[T]: ...
@contextlib.contextmanager
def bound(var: ContextVar[Any], value: Any) -> Iterator[Any]:
    """``var`` holds ``value`` inside the block, for this task and the tasks started inside it, and what it held
    before once the block ends, however it ends; the block receives ``value``.

    A ContextVar rather than an argument: the value is set far above the code that reads it, and a task started
    elsewhere (a neighbour's request) never sees it."""
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)
