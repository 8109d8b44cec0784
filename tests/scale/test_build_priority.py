"""The MCP server's index build runs on a thread of its own at nice 10 (scale/builtin_indexes.py), so a check
answered meanwhile gets the cores first, and the caller's thread, which then opens the searches a request waits
for, keeps its own priority."""

from __future__ import annotations

import os
import threading

import pytest

from factdebate.scale.builtin_indexes import BUILD_NICE, at_lower_priority


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="threads have no priority of their own here")
def test_the_build_runs_at_nice_10_and_the_caller_keeps_its_priority() -> None:
    before = _nice()
    seen: list[int] = []
    at_lower_priority(lambda: seen.append(_nice()))
    assert seen == [max(before, BUILD_NICE)]  # a thread already lower stays where it is
    assert _nice() == before


def test_what_the_build_raises_is_raised_to_the_caller() -> None:
    def fail() -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        at_lower_priority(fail)
