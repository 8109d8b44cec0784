"""The process told to stop (Ctrl-C or SIGTERM): one flag that work in worker threads checks between its steps,
where KeyboardInterrupt cannot reach it (``asyncio.run`` waits for those threads)."""

from __future__ import annotations

import threading

_stop = threading.Event()


class Stopped(KeyboardInterrupt):
    """Work asked to stop, raised at its next step in whatever thread it runs."""


def stop_all() -> None:
    """Every piece of work in this process that checks the flag stops at its next step."""
    _stop.set()


def stopping() -> bool:
    """Whether the process was told to stop."""
    return _stop.is_set()


def raise_if_stopped() -> None:
    """Raise :class:`Stopped` once the process was told to stop."""
    if _stop.is_set():
        raise Stopped
