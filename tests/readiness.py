"""Waiting for a real component the tests start (a gateway, a model server, a database) by its state, not by
the clock.

A fixed wall-clock limit ("ready within 90 s") measures the machine: at load 20 on two cores a process gets a
tenth of a core, and LiteLLM's proxy, which needs about 8 CPU-seconds to import, missed its 90 s. So
:func:`wait_until_ready` polls the component's readiness while its process lives and gives up only when

- the process exits (at once, with its log's end: a broken start fails fast), or
- its process tree has used ``cpu_budget_s`` CPU-seconds of its own without becoming ready (a start that
  spins: the budget is generous, many times what a start costs, and a slow machine spends it slowly), or
- the tree has used no CPU at all for ``stall_s`` seconds (a start that hangs waiting on nothing; on a loaded
  machine a runnable process still gets some CPU every second).

While it waits on a process that makes progress, pytest-timeout's alarm (``timeout`` in pyproject.toml,
there to end a hung test) is pushed back, so a module's first test is not charged for a start that was slow
only because the machine was busy; the start's own bounds above still end a broken one. CPU time is read from
/proc (Linux, where the suite runs); elsewhere the wall time stands in for it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CPU_BUDGET_S = 240.0  # CPU-seconds a start may use (the costliest measured: OpenClaw's gateway, 12-14)
STALL_S = 180.0  # seconds with no CPU used by the tree: hung, not slow
EXTEND_S = 60.0  # how far pytest-timeout's alarm is pushed back at a time while the start makes progress
SAMPLE_S = 0.5  # how often the tree's CPU is read (a read scans /proc: a few milliseconds on a busy machine)

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class NotReady(AssertionError):
    """The component did not become ready; the message says why, with its log's end."""


@dataclass
class Readiness:
    """How the wait went: the tree's CPU-seconds and the wall seconds until ready (for a test's figures)."""

    cpu_s: float
    wall_s: float


def _processes() -> dict[int, tuple[int, float]]:
    """Every process's parent and CPU-seconds (its own plus its reaped children's), from /proc."""
    found: dict[int, tuple[int, float]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_bytes()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(b")") + 2:].split()  # after the command's name, which may hold spaces
        ppid = int(fields[1])
        ticks = sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
        found[int(entry.name)] = (ppid, ticks / _TICK)
    return found


def tree_cpu_seconds(pid: int) -> float | None:
    """CPU-seconds used by ``pid`` and its descendants (those still running and those already waited for);
    ``None`` where /proc cannot tell."""
    if not Path("/proc/self/stat").exists():
        return None
    processes = _processes()
    if pid not in processes:
        return None
    children: dict[int, list[int]] = {}
    for child, (parent, _) in processes.items():
        children.setdefault(parent, []).append(child)
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += processes[current][1]
        todo.extend(children.get(current, ()))
    return total


Starter = subprocess.Popen[Any] | int | threading.Thread  # a child process, a pid, or a thread of this process


def _cpu_seconds(process: Starter, cpu_of: int | None = None) -> float | None:
    if cpu_of is not None:
        return tree_cpu_seconds(cpu_of)
    if isinstance(process, threading.Thread):  # a server in a thread here: this process's CPU time
        return time.process_time()
    return tree_cpu_seconds(process.pid if isinstance(process, subprocess.Popen) else process)


def _alive(process: Starter) -> bool:
    if isinstance(process, threading.Thread):
        return process.is_alive()
    if isinstance(process, subprocess.Popen):
        return process.poll() is None
    try:
        state = Path(f"/proc/{process}/stat").read_bytes()
    except OSError:
        try:
            os.kill(process, 0)
        except OSError:
            return False
        return True
    return state[state.rindex(b")") + 2:][:1] not in (b"Z", b"X")


def _exit_code(process: Starter) -> str:
    return f"exit {process.returncode}" if isinstance(process, subprocess.Popen) else "ended"


def _log_tail(log: Path | Callable[[], str] | None, chars: int = 4000) -> str:
    if log is None:
        return "(no log)"
    try:
        text = log() if callable(log) else log.read_text(errors="replace")
    except OSError as exc:
        return f"(log unreadable: {exc})"
    return text[-chars:] if text.strip() else "(the log is empty)"


def _push_back_test_timeout() -> None:
    """pytest-timeout's alarm (signal method: ITIMER_REAL) moved later when under EXTEND_S is left."""
    if not hasattr(signal, "setitimer") or signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None):
        return
    left, interval = signal.getitimer(signal.ITIMER_REAL)
    if 0 < left < EXTEND_S:
        signal.setitimer(signal.ITIMER_REAL, left + EXTEND_S, interval)


def wait_until_ready(ready: Callable[[], bool], process: Starter, what: str, *,
                     log: Path | Callable[[], str] | None = None, cpu_budget_s: float = CPU_BUDGET_S,
                     stall_s: float = STALL_S, every_s: float = 0.2, cpu_of: int | None = None) -> Readiness:
    """Poll ``ready()`` (which must return quickly, True once the component serves) until it is true, while
    ``process`` (a Popen, a pid, or the thread a server runs in) lives; raise :class:`NotReady` naming ``what``,
    why, and ``log``'s end when the process exits, spends ``cpu_budget_s`` of its own CPU, or uses none for
    ``stall_s`` seconds. ``cpu_of``: the pid whose tree's CPU counts, where it is not ``process``'s."""
    started = time.monotonic()
    first = _cpu_seconds(process, cpu_of) or 0.0
    last_cpu, last_progress, last_sample = first, started, started

    def fail(why: str, cpu: float) -> NotReady:
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
        return NotReady(f"{what} {why} (after {cpu:.1f} CPU-seconds of its own and {time.monotonic() - started:.0f} "
                        f"s; load {load}):\n{_log_tail(log)}")

    while True:
        if ready():
            cpu = _cpu_seconds(process, cpu_of)
            return Readiness(cpu_s=round((last_cpu if cpu is None else cpu) - first, 2),
                             wall_s=round(time.monotonic() - started, 2))
        if not _alive(process):
            raise fail(f"exited before it was ready ({_exit_code(process)})", last_cpu - first)
        now = time.monotonic()
        if now - last_sample < SAMPLE_S:
            time.sleep(every_s)
            continue
        last_sample = now
        cpu = _cpu_seconds(process, cpu_of)
        if cpu is None:  # no /proc here (or the process just went): wall time stands in for CPU time
            cpu = first + (now - started) if _alive(process) else last_cpu
        if cpu > last_cpu:
            last_cpu, last_progress = cpu, now
            _push_back_test_timeout()
        if last_cpu - first > cpu_budget_s:
            raise fail(f"used its budget of {cpu_budget_s:g} CPU-seconds without becoming ready", last_cpu - first)
        if now - last_progress > stall_s:
            raise fail(f"used no CPU for {stall_s:.0f} s without becoming ready (hung)", last_cpu - first)
        time.sleep(every_s)


def run(args: list[str], *, what: str, input: str | None = None, cpu_budget_s: float = 120.0,
        stall_s: float = STALL_S, **popen: Any) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(args, capture_output=True, text=True)`` with no wall-clock ``timeout``: the command runs
    to its end while it uses CPU; when its process tree spends ``cpu_budget_s`` or is silent for ``stall_s``, it
    is killed and :class:`NotReady` names ``what`` with the end of what it printed. ``input``: its standard
    input, as subprocess.run's."""
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    output: list[tuple[str, str]] = []
    reader = threading.Thread(target=lambda: output.append(process.communicate(input)), daemon=True)
    reader.start()
    try:
        wait_until_ready(lambda: not reader.is_alive(), reader, what, cpu_budget_s=cpu_budget_s, stall_s=stall_s,
                         cpu_of=process.pid)
    except NotReady as exc:
        process.kill()
        reader.join()
        printed = "".join(output[0]) if output else ""
        raise NotReady(f"{exc}\n{printed[-4000:]}") from None
    stdout, stderr = output[0]
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)
