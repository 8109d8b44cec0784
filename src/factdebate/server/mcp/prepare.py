"""The MCP server's start-up work, done in the background so that ``initialize`` is answered at once: the
built-in corpus indexed when the configured methods search it, and this process's search over it opened.

OpenClaw and other agents start one MCP process per session and give up on a server that has not answered
the handshake within seconds; building the index takes minutes on a fresh install. Until the work is done,
a tool that needs the index waits a moment and then says how far it got (:meth:`Preparation.not_ready`),
while a tool given its own evidence (``evidence_mode: given``) answers at once."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable


class Preparation:
    """Work run once on a thread of its own; what it is doing now, and its error if it failed."""

    def __init__(self, what: str = "the index") -> None:
        self.what = what
        self._done = threading.Event()
        self.error: str | None = None
        self.stage = ""
        self.passages = (0, 0)  # (done, in the stage) of the build stage under way
        self.started = time.monotonic()
        # Set once the full-text index is built (seconds), while the vectors may take minutes: the searches that
        # need only it answer at once (server/mcp/tools.py), so a fresh install is useful from the start.
        self.full_text = threading.Event()

    @classmethod
    def finished(cls) -> Preparation:
        """Nothing to prepare (a server built for a test or a library call)."""
        ready = cls()
        ready._done.set()
        ready.full_text.set()
        return ready

    @property
    def ready(self) -> bool:
        return self._done.is_set()

    def start(self, work: Callable[[Preparation], None]) -> None:
        def run() -> None:
            try:
                work(self)
            except BaseException as exc:  # said by every tool that needs it, never lost
                self.error = str(exc) or type(exc).__name__
            finally:
                self._done.set()

        threading.Thread(target=run, name="factdebate-mcp-prepare", daemon=True).start()

    def follow(self, stage: str, done: int, total: int) -> None:
        """A build stage's progress (corpus/progress.py ``watch_builds``)."""
        self.stage, self.passages = stage, (done, total)

    async def wait_full_text(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the full-text index (or for the whole work to end); whether it is there."""
        end = time.monotonic() + max(0.0, seconds)
        while not (self.full_text.is_set() or self.ready) and time.monotonic() < end:
            await asyncio.sleep(min(0.1, max(0.0, end - time.monotonic())))
        return self.full_text.is_set()

    async def wait(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the work to end; whether it has (failed or not)."""
        end = time.monotonic() + max(0.0, seconds)
        while not self.ready and time.monotonic() < end:
            await asyncio.sleep(min(0.1, max(0.0, end - time.monotonic())))
        return self.ready

    def progress(self) -> str:
        """How far the work is: "the index is being prepared (42 %: ...; started 95 s ago, once per data folder)"."""
        done, total = self.passages
        if total:
            how_far = f"{100 * done // total} %: {self.stage}, {done:,} of {total:,} passages"
        else:
            # No stage of its own yet: loading, or waiting for another process that builds this data folder.
            how_far = self.stage or "starting, or waiting for another process's build of this data folder"
        since = round(time.monotonic() - self.started)
        return f"{self.what} is being prepared ({how_far}; started {since} s ago, once per data folder)"

    def not_ready(self) -> str:
        """What a tool says while the work goes on."""
        return (f"{self.progress()}: try again in a moment, or send the passages you have as evidence with "
                "evidence_mode 'given'")

    def failed(self) -> str:
        return f"{self.what} could not be prepared: {self.error}"
