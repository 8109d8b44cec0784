"""What ``check-response`` says on stderr while it runs, one plain line at a time, so that a loop, a CI log or a
redirected terminal sees it (the spinner draws only on a terminal): the claims found, each claim as it starts and
as it ends (its verdict, the rule that decided it, its seconds and model calls), the response's verdict, and,
while nothing else is said for ``PERIOD_S`` seconds, where the check stands. Its deadline (``--deadline``) is
measured from the command's start, and what it had decided when the deadline ran out is said by
:meth:`ResponseProgress.cut_short`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from factdebate.util.errors import FactDebateError

# Seconds without a line before one says where the check stands: a claim the judge decides on two cores takes
# minutes, and a loop around an agent, or a CI log, must tell a slow check from a stuck one.
PERIOD_S = 30.0
QUOTED = 70  # characters of a claim quoted in a line


class DeadlinePassed(FactDebateError):
    """``check-response --deadline`` ran out before the check ended: no verdict was given."""


@dataclass
class _Claim:
    number: int  # 1-based, as the table numbers it
    text: str
    began: float
    where: str = ""  # its last step: "round 2, judge"
    calls: int = 0
    label: str | None = None
    decided_by: str = ""
    ended: float | None = None


class ResponseProgress:
    """A sink of the check's events that writes its lines with ``write``; ``clock``: seconds, monotonic."""

    def __init__(self, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic) -> None:
        self._write, self._clock = write, clock
        self.began = self.said = clock()
        self.step = "starting"  # what the whole check does now, for the periodic line and the deadline's
        self.total: int | None = None
        self.stopped = False  # set when the deadline stops the check: the claims it cuts off did not fail
        self._claims: dict[str, _Claim] = {}  # by the span each claim's check runs in
        self._runs: dict[str, _Claim] = {}  # by its run's id, which its events carry

    def say(self, line: str) -> None:
        self._write(line)
        self.said = self._clock()

    def elapsed(self) -> float:
        return self._clock() - self.began

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "response_started":
            self.step = "extracting claims"
            self.say("extracting claims from the response")
        elif kind == "claims_extracted":
            self._extracted(event)
        elif kind == "span_begin" and event.get("kind") == "subclaim":
            self._started(event)
        elif kind == "span_end" and event.get("kind") == "subclaim":
            self._ended(event)
        elif kind == "response_verdict":
            self.step = "ending the check"
            self.say(f"response: {event.get('label') or 'UNPARSED'} ({event.get('decided_by')}) after "
                     f"{self.elapsed():.1f} s")
        elif (claim := self._claim_of(event)) is not None:
            self._followed(claim, event)

    def _extracted(self, event: dict[str, Any]) -> None:
        self.total = len(event.get("claims") or [])
        self.step = "checking claims"
        found = f"{self.total} claim(s) to check" if self.total else "no claim to check"
        self.say(f"{found} ({self.elapsed():.1f} s)")

    def _started(self, event: dict[str, Any]) -> None:
        attributes = event.get("attributes") or {}
        claim = _Claim(int(attributes.get("index", len(self._claims))) + 1, str(attributes.get("claim", "")),
                       self._clock())
        self._claims[str(event.get("span_id"))] = claim
        self.say(f'claim {self._of(claim)} started: "{_quoted(claim.text)}"')

    def _ended(self, event: dict[str, Any]) -> None:
        claim = self._claims.get(str(event.get("span_id")))
        if claim is None or self.stopped:
            return
        claim.ended = self._clock()
        seconds = claim.ended - claim.began
        if claim.label is None and not claim.decided_by:  # no run_finished: the claim's check failed
            self.say(f"claim {self._of(claim)} ended without a verdict after {seconds:.1f} s (the table says why)")
            return
        self.say(f"claim {self._of(claim)} finished: {claim.label or 'UNPARSED'} ({claim.decided_by}) in "
                 f"{seconds:.1f} s, {claim.calls} model call(s)")

    def _claim_of(self, event: dict[str, Any]) -> _Claim | None:
        run = str(event.get("run", ""))
        if event.get("event") == "run_started" and (claim := self._claims.get(str(event.get("span_id")))):
            self._runs[run] = claim
        return self._runs.get(run)

    @staticmethod
    def _followed(claim: _Claim, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "llm_call":
            claim.calls += 1
        if kind == "run_finished":
            claim.label, claim.decided_by = event.get("label"), str(event.get("decided_by") or "")
            usage = event.get("usage") or {}
            claim.calls = int(usage.get("llm_calls", claim.calls))
        elif event.get("agent") or event.get("round"):
            claim.where = ", ".join(part for part in (f"round {event.get('round')}" if event.get("round") else "",
                                                      str(event.get("agent") or "")) if part)

    def _of(self, claim: _Claim) -> str:
        return f"{claim.number}/{self.total}" if self.total else str(claim.number)

    def decided(self) -> list[_Claim]:
        return sorted((c for c in self._claims.values() if c.ended is not None), key=lambda c: c.number)

    def running(self) -> list[_Claim]:
        return sorted((c for c in self._claims.values() if c.ended is None), key=lambda c: c.number)

    def detail(self) -> str:
        """Where the claims stand: how many are decided (with their labels) and each one still being checked."""
        if self.step != "checking claims":
            return ""
        labels = ", ".join(f"#{c.number} {c.label or 'no verdict'}" for c in self.decided())
        parts = [f"{len(self.decided())} of {self.total} decided" + (f" ({labels})" if labels else "")]
        now = self._clock()
        parts += [f"claim {c.number} for {now - c.began:.0f} s" + (f" ({c.where})" if c.where else "")
                  for c in self.running()]
        return "; ".join(parts)

    async def tick(self, period_s: float | None = None) -> None:
        """Say where the check stands whenever nothing was said for ``period_s`` (default ``PERIOD_S``)."""
        period = PERIOD_S if period_s is None else period_s
        while True:
            await asyncio.sleep(max(0.0, self.said + period - self._clock()))
            if self._clock() - self.said >= period:
                detail = self.detail()
                self.say(f"still {self.step} after {self.elapsed():.0f} s" + (f": {detail}" if detail else ""))

    def cut_short(self, deadline_s: float) -> DeadlinePassed:
        """The error of a check the deadline ended: what it was doing and what it had decided."""
        detail = self.detail()
        return DeadlinePassed(f"the check ran past --deadline {deadline_s:g} s ({self.elapsed():.1f} s) while "
                              f"{self.step}" + (f": {detail}" if detail else "")
                              + "; it was stopped, with no verdict")


def _quoted(text: str) -> str:
    return text if len(text) <= QUOTED else text[:QUOTED - 1] + "…"
