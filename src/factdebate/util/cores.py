"""How many CPUs this process may use: its affinity mask, capped by a container's CPU quota. ``os.cpu_count()``
counts the host's cores, which a container limited to two of a machine's sixteen, or a process pinned by
``taskset``, cannot use."""

from __future__ import annotations

import os
from pathlib import Path


def parse_cpu_max(text: str) -> float | None:
    """A cgroup v2 ``cpu.max`` line (``"200000 100000"``: two CPUs) as CPUs, or None without a quota."""
    parts = text.split()
    if len(parts) != 2 or parts[0] == "max":
        return None
    try:
        quota, period = int(parts[0]), int(parts[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def usable_cores() -> float:
    """The CPUs this process may run on (its affinity mask), capped by a container's CPU quota."""
    cores: float = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        quota = parse_cpu_max(Path("/sys/fs/cgroup/cpu.max").read_text(encoding="ascii"))
    except OSError:
        quota = None
    return min(cores, quota) if quota else cores
