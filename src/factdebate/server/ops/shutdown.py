"""``factdebate serve`` stops within its grace period, whatever is running.

uvicorn, told to stop (SIGTERM, or Ctrl-C), waits for the requests in progress: for ever by default, and a
stream whose upstream hangs never ends (a server ignored SIGTERM for an hour and a half). ``serve`` gives it
``timeout_graceful_shutdown``: after ``service.shutdown_grace_s`` the requests still running are cancelled
and the application shuts down. That needs a free event loop and a shutdown that itself ends, so a
watchdog is armed when the signal comes: if the process is still there ``EXIT_MARGIN_S`` seconds after the
grace period, it exits at once (a loop held by one long computation, a worker thread that never returns).
The requests still running near the grace period's end answer for themselves first (:class:`Stopping`)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger("factdebate.server")
EXIT_MARGIN_S = 5.0  # the application's own shutdown (state database, upstream clients) after the grace period
ANSWER_MARGIN_S = 1.0  # before the grace period ends, the requests still running answer (Stopping)
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopping:
    """When the requests still running are answered, once a stop signal came: ``ANSWER_MARGIN_S`` before the
    grace period ends (at once when it is shorter), so that a guard request still waiting then (on its upstream,
    on its check) gets its own answer, an OpenAI-shaped 503 or a stream's ``stream_failed`` chunk, rather than
    uvicorn's plain-text 500 or a stream cut without a word when it cancels them."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    def signal(self, grace_s: float, loop: asyncio.AbstractEventLoop) -> None:
        """From a signal handler (any thread): set :attr:`event` on ``loop`` near the grace period's end."""
        loop.call_soon_threadsafe(loop.call_later, max(0.0, grace_s - ANSWER_MARGIN_S), self.event.set)

    async def wait(self) -> None:
        await self.event.wait()


def exit_within(grace_s: float, margin_s: float = EXIT_MARGIN_S,
                on_signal: Callable[[], None] | None = None) -> None:
    """From the next stop signal on, the process ends within ``grace_s`` + ``margin_s`` seconds. The
    handler in place (uvicorn's, which starts the graceful stop) is kept and called first. Called on the main
    thread while the server runs (its lifespan's start), since uvicorn sets its handlers when it starts;
    elsewhere it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        return
    armed: list[threading.Timer] = []
    for sig in _SIGNALS:
        previous = signal.getsignal(sig)

        def handler(number: int, frame: FrameType | None, previous: Any = previous) -> None:
            if not armed:
                timer = threading.Timer(grace_s + margin_s, _force_exit, args=(number, grace_s + margin_s))
                timer.daemon = True  # it never keeps a process that ends by itself
                timer.start()
                armed.append(timer)
                if on_signal is not None:  # the service's Stopping: its requests answer before the cut
                    on_signal()
            if callable(previous):  # uvicorn's: the graceful stop
                previous(number, frame)

        signal.signal(sig, handler)


def _force_exit(number: int, after_s: float) -> None:
    log.error("still running %.0f s after the stop signal: exiting now", after_s)
    logging.shutdown()
    os._exit(128 + number)
