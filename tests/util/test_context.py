"""util/context.py's ``bound``: a ContextVar holds a value inside a block, for the tasks started inside it, and
what it held before once the block ends."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar

import pytest

from factdebate.util.context import bound

_name: ContextVar[str | None] = ContextVar("test_bound_name", default=None)


def test_the_block_receives_the_value_and_the_old_one_comes_back_however_it_ends() -> None:
    with bound(_name, "outer") as outer:
        assert (outer, _name.get()) == ("outer", "outer")
        with pytest.raises(RuntimeError), bound(_name, "inner"):
            assert _name.get() == "inner"
            raise RuntimeError("the block failed")
        assert _name.get() == "outer"
    assert _name.get() is None


async def test_a_task_started_inside_sees_the_value_and_a_neighbour_does_not() -> None:
    seen: dict[str, str | None] = {}
    inside_set = asyncio.Event()

    async def read(who: str) -> None:
        await inside_set.wait()
        seen[who] = _name.get()

    neighbour = asyncio.create_task(read("neighbour"))  # started before the block: its context is copied then
    with bound(_name, "request-1"):
        child = asyncio.create_task(read("child"))
        inside_set.set()
        await asyncio.gather(child, neighbour)
    assert seen == {"child": "request-1", "neighbour": None}
