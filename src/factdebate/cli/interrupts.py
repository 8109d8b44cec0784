"""Ctrl-C and SIGTERM in a command: both raise KeyboardInterrupt, and work in a worker thread stops at its next
step. Light to import, for cli/launch.py."""

from __future__ import annotations

import signal


def was_interrupted() -> bool:
    """Whether Ctrl-C or SIGTERM came while the command ran, even where its KeyboardInterrupt was lost."""
    from factdebate.core.stopping import stopping

    return stopping()


def _interrupt(signum: int, frame: object) -> None:
    from factdebate.core.stopping import stop_all

    stop_all()  # work in a worker thread (a build, a llama.cpp generation) stops at its next step, not at its end
    raise KeyboardInterrupt


def terminate_as_interrupt() -> None:
    """SIGTERM raises KeyboardInterrupt, as Ctrl-C does, so ``async with`` blocks close child processes."""
    signal.signal(signal.SIGTERM, _interrupt)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where Ctrl-C is ignored (nohup, &)
        signal.signal(signal.SIGINT, _interrupt)
