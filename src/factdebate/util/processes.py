"""Whether a process of this machine still runs (stale locks, heartbeats, workers' leftover copies)."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """Signal 0 checks without signalling; a process we may not signal exists all the same."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
