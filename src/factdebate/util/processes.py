"""Whether a process of this machine still runs (stale locks, heartbeats, workers' leftover copies), and a child
that ends with the process that started it (:func:`parent_tether`)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable


def pid_alive(pid: int) -> bool:
    """Signal 0 checks without signalling; a process we may not signal exists all the same."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def parent_tether() -> tuple[int, int]:
    """A pipe for a child that must not outlive this process: hand it the read end (``Popen(pass_fds=(read,))``)
    and keep the write end open for as long as the child may run; closing it, or this process ending in any way,
    tells the child (:func:`on_parent_exit`).

    A pipe rather than Linux's ``prctl(PR_SET_PDEATHSIG)``: that signal comes when the *thread* that started the
    child ends (a worker thread of the service, an ``asyncio.to_thread`` call), not the process, and set after
    ``exec`` it misses a parent that died in between; and rather than polling ``getppid()``, which notices only
    at its next poll. The kernel closes a dead process's descriptors, SIGKILL included, so the child reads
    end-of-file at once, on any POSIX system. Both ends are non-inheritable (PEP 446): no other child holds the
    write end open."""
    return os.pipe()


def on_parent_exit(fd: int, then: Callable[[], None]) -> None:
    """In a child given a tether's read end ``fd``: call ``then`` (in a daemon thread) once every write end is
    closed, that is once the parent has let go or ended."""

    def watch() -> None:
        with contextlib.suppress(OSError):
            while os.read(fd, 1):
                pass
        then()

    threading.Thread(target=watch, name="parent-tether", daemon=True).start()
