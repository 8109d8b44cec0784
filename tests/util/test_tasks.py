"""A failed part ends its siblings: DPD's judges ran on for minutes after one failed."""

from __future__ import annotations

import asyncio

import pytest

from factdebate.util.tasks import gather_all


async def test_the_first_failure_cancels_the_others_and_is_raised() -> None:
    started, cancelled = asyncio.Event(), []

    async def long(name: str) -> str:
        started.set()
        try:
            await asyncio.Event().wait()  # never set: only cancelling ends it
        except asyncio.CancelledError:
            cancelled.append(name)
            raise
        return name

    async def failing() -> str:
        await started.wait()
        raise RuntimeError("the server went away")

    with pytest.raises(RuntimeError, match="went away"):
        await gather_all(long("judge-1"), failing(), long("judge-3"))
    assert sorted(cancelled) == ["judge-1", "judge-3"]  # ended before gather_all returned


async def test_every_result_in_order_when_nothing_fails() -> None:
    async def value(v: int) -> int:
        await asyncio.sleep(0)
        return v

    assert await gather_all(value(1), value(2), value(3)) == [1, 2, 3]
