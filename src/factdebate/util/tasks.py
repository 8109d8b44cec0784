"""Concurrent work that ends together: when one part fails, the others are cancelled, not left running.

``asyncio.gather`` lets the siblings of a failure run on, holding the server for minutes more; :func:`gather_all`
cancels them, waits until they have ended, and raises the first failure."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def gather_all(*parts: Awaitable[T]) -> list[T]:
    """Every part's result in order, or the first failure after the other parts are cancelled and ended."""
    tasks = [asyncio.ensure_future(part) for part in parts]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
