"""What happens when MERMAID's tool servers fail to start, die or hang.

A failed start is recorded and reported to every claim it affects, naming the server and the cause, and is
tried again at most ``attempts`` times, each after ``wait`` seconds (doubling); a server that died or hangs is
started again under the same rule, per server. A claim whose every tool call failed is an error
(:class:`ToolCallsFailed`), never a verdict resting on error messages."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from factdebate.util.errors import FactDebateError

log = logging.getLogger("factdebate.methods.mermaid.method")


class ToolServerError(FactDebateError):
    """One tool server that could not be started or listed, by name."""

    def __init__(self, server: str, cause: BaseException) -> None:
        self.server = server
        text = str(cause).strip() or type(cause).__name__
        super().__init__(text if f"'{server}'" in text else f"tool server '{server}' did not start: {text}")


class ToolboxUnavailable(FactDebateError):
    """A claim that cannot run because the toolbox's last start failed."""


@dataclass(frozen=True)
class StartPolicy:
    attempts: int = 3  # starts in one run, the first included
    wait: float = 60.0  # seconds after the first failure before the next start; doubles after each


class StartRecord:
    """The starts tried so far and the last failure."""

    def __init__(self, policy: StartPolicy | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy or StartPolicy()
        self.clock = clock
        self.attempts = 0
        self.failure: ToolServerError | None = None
        self._failed_at = 0.0

    def _next_try(self) -> float | None:
        """Seconds until a new start may be tried (0: now); None: never again in this run."""
        if self.failure is None:
            return 0.0
        if self.attempts >= self.policy.attempts:
            return None
        wait = self.policy.wait * 2 ** (self.attempts - 1)
        return max(0.0, self._failed_at + wait - self.clock())

    def may_try(self) -> bool:
        return self._next_try() == 0.0

    def started(self) -> None:
        self.attempts += 1

    def failed(self, failure: ToolServerError) -> None:
        self.failure, self._failed_at = failure, self.clock()
        log.warning("MERMAID's tools: start %d of %d failed: %s", self.attempts, self.policy.attempts, failure)

    def succeeded(self) -> None:
        self.failure, self.attempts = None, 0

    def error(self) -> ToolboxUnavailable:
        nxt = self._next_try()
        when = (f"next try in {nxt:.0f} s" if nxt is not None
                else "no more tries in this run: fix the cause and start again")
        return ToolboxUnavailable(f"MERMAID's tools are unavailable: {self.failure} "
                                  f"(start {self.attempts} of {self.policy.attempts} failed; {when})")


class ToolCallsFailed(FactDebateError):
    """A claim whose every tool call failed: its verdict would rest on error messages alone."""

    def __init__(self, failures: list[tuple[str, str]]) -> None:
        causes: dict[str, list[str]] = {}
        for server, text in failures:
            shown = causes.setdefault(server, [])
            if text not in shown:
                shown.append(text)
        named = "; ".join(f"server '{server}': {' | '.join(texts[:2])}" for server, texts in causes.items())
        super().__init__(f"MERMAID's {len(failures)} tool call(s) all failed, so the claim has no evidence to be "
                         f"judged on: {named}")
