"""Ctrl-C and SIGTERM in a command: both raise KeyboardInterrupt, and work in a worker thread (an index build,
an in-process llama.cpp generation) stops at its next step. A module of its own, light to import, so that the
console script's MCP server (cli/launch.py) handles them as every other command does without loading the
command line."""

from __future__ import annotations

import signal


def was_interrupted() -> bool:
    """Whether Ctrl-C or SIGTERM came while the command ran, even where its KeyboardInterrupt was lost (taken by
    a library's wait, or raised in a worker thread that had nothing to stop): an interrupted command exits
    130, never 0 with what it did after the interrupt."""
    from factdebate.core.stopping import stopping

    return stopping()


def _interrupt(signum: int, frame: object) -> None:
    from factdebate.core.stopping import stop_all

    stop_all()  # work in a worker thread (a build, a llama.cpp generation) stops at its next step, not at its end
    raise KeyboardInterrupt


def terminate_as_interrupt() -> None:
    """SIGTERM raises KeyboardInterrupt, as Ctrl-C does: ``asyncio.run`` then cancels the tasks and their
    ``async with`` blocks close what they opened (MERMAID's tool servers, started as child processes), where
    the default action would end the process at once and leave them running. ``serve`` installs its own."""
    signal.signal(signal.SIGTERM, _interrupt)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where Ctrl-C is ignored (nohup, &)
        signal.signal(signal.SIGINT, _interrupt)
