"""The embedded model's default thread count: a pure function of the usable cores and how many of them
other processes keep busy (no timing here; benchmarks/embedded_model.py measures what it buys)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from factdebate.llm import llama_threads
from factdebate.llm.llama_threads import MAX_THREADS, default_threads, threads_for
from factdebate.util.cores import parse_cpu_max
from factdebate.util.errors import ConfigError


@pytest.mark.parametrize(("cores", "busy", "threads"), [
    (2, 0, 2),      # idle: every core
    (2, 1, 1),      # one neighbour: the free core
    (2, 2, 1),      # two neighbours: never below one
    (2, 7, 1),
    (4, 1.4, 3),    # rounded to the nearest free core
    (4, 1.6, 2),
    (16, 0, MAX_THREADS),  # a small model gains nothing past the cap
    (1, 0, 1),
    (1.5, 0, 2),    # a container's quota of 1.5 CPUs
])
def test_threads_are_the_free_cores_within_one_and_the_cap(cores: float, busy: float, threads: int) -> None:
    assert threads_for(cores, busy) == threads


def test_a_cgroup_quota_reads_as_cpus() -> None:
    assert parse_cpu_max("200000 100000\n") == 2.0
    assert parse_cpu_max("max 100000") is None
    assert parse_cpu_max("garbage") is None


def test_the_environment_overrides_the_measured_choice() -> None:
    choice = default_threads({"FACTDEBATE_LLAMA_THREADS": "3"})
    assert choice.threads == 3 and "FACTDEBATE_LLAMA_THREADS" in choice.reason
    with pytest.raises(ConfigError, match="positive integer"):
        default_threads({"FACTDEBATE_LLAMA_THREADS": "0"})


def test_busy_neighbours_lower_the_default_and_the_reason_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_threads, "usable_cores", lambda: 2)
    monkeypatch.setattr(llama_threads.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(llama_threads, "SAMPLE_GAP_S", 0)
    readings = iter([2, 2, 9, 2, 0])  # a short-lived command in one sample, a gap in another: the median holds
    monkeypatch.setattr(llama_threads, "_others_running", lambda: next(readings))
    choice = default_threads({})
    assert choice.threads == 1
    assert "2 usable cores, 2.0 busy" in choice.reason and "FACTDEBATE_LLAMA_THREADS" in choice.reason
    monkeypatch.setattr(llama_threads, "_others_running", lambda: 0)
    assert default_threads({}).threads == 2


def test_neighbours_on_a_larger_machine_count_for_this_process_s_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Restricted to 2 of 16 CPUs, 8 runnable threads elsewhere weigh as 1 on ours."""
    monkeypatch.setattr(llama_threads.os, "cpu_count", lambda: 16)
    monkeypatch.setattr(llama_threads, "SAMPLE_GAP_S", 0)
    monkeypatch.setattr(llama_threads, "_others_running", lambda: 8)
    assert llama_threads.busy_cores(2)[0] == 1.0


def test_the_live_reading_is_sane() -> None:
    cores = llama_threads.usable_cores()
    busy, how = llama_threads.busy_cores(cores)
    assert cores >= 1 and busy >= 0 and how


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_free_cores_are_read_again_once_the_last_reading_is_old() -> None:
    """A process that started during a build (8 runnable threads on 2 cores) runs on both once it is over,
    and calls in between share one reading rather than each sleep through a new one."""
    busy, clock, readings = [8.0], _Clock(), []

    def read(cores: float) -> tuple[float, str]:
        readings.append(cores)
        return busy[0], "a fake reading"

    live = llama_threads.LiveThreads(cores_of=lambda: 2, busy_of=read, clock=clock)
    assert live.fresh() is None  # nothing read yet: the event loop is told to read off it
    first = live.current()
    assert first.threads == 1 and "2 usable cores, 8.0 busy (a fake reading)" in first.reason
    busy[0] = 0.0
    clock.now = llama_threads.REREAD_S - 0.1
    assert live.current() == first and live.fresh() == first and len(readings) == 1
    clock.now = llama_threads.REREAD_S
    assert live.fresh() is None
    assert live.current().threads == 2 and len(readings) == 2
    busy[0] = 1.0
    clock.now = 2 * llama_threads.REREAD_S
    assert live.current().threads == 1  # and back down when a neighbour starts


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads Linux's /proc")
def test_a_niced_child_of_this_process_is_not_counted_busy_and_a_plain_one_is() -> None:
    """A child at nice 10 (the background vector build) yields its core to the model's threads, so it leaves it
    free; a child at this process's own priority holds it. Each child spins until killed; the counts are those
    of its runnable threads (1 while it spins, 0 while Python starts and reads its files: it is read until it
    spins, by its state, not a clock; the plain one is never counted)."""
    spin = [sys.executable, "-c", "while True: pass"]
    niced = subprocess.Popen(["nice", "-n", "10", *spin])
    plain = subprocess.Popen(spin)
    try:
        seen: list[int] = []
        deadline = time.monotonic() + 60
        while 1 not in seen and time.monotonic() < deadline:
            seen.append(llama_threads._niced_children_running())
            time.sleep(0.05)
        assert 1 in seen and max(seen) == 1, seen
    finally:
        for child in (niced, plain):
            child.kill()
            child.wait()
    assert llama_threads._niced_children_running() == 0
