"""Shedding load before it stalls everyone: a request past what the service serves now, or whose check would not
end within its deadline, is answered at once (``guard.on_overload``: a 503 with ``Retry-After``, or its reply
passed unchecked, said), rather than admitted to slow every check in flight until they all reach their deadlines
together. Only new requests are shed: the newest wait, what was admitted runs on.

What the service serves now is an adaptive limit on the checks in flight (server/ops/adaptive.py): it falls while
the event loop every stream waits on holds a standing queue and grows while the loop keeps up, never below a floor
of 8 checks per core, so that a few chats are never shed whatever else the machine runs. It is the default. The
operator's caps below (a CPU share, the loop's lateness) are off unless set.

The deadline's reckoning is processor sharing: up to ``guard.checks_at_once`` checks (default 8 per CPU core) run at
full speed; past it each runs ``running / checks_at_once`` times slower. What a check takes at full speed is learnt
from the checks that finished (a moving average of their seconds, each divided by the slowdown it ran under). Until
one has finished nothing is shed, nor while fewer than ``checks_at_once`` run (a check slower than its deadline on
an idle machine is not overload: its deadline cuts it, its claims unchecked). A check's seconds run from its
admission to its release, so they hold the upstream's time too (a streamed reply's whole length): the reckoning errs
towards shedding early.

That reckoning keeps checks within their deadlines, not the first token of the replies admitted: at twice the
machine's capacity they all slow together, the first token waiting behind every running check on the one
event loop (benchmarks/guard_load.py: a p99 of 2.9-5.4 s against 0.04-0.3 s uncontended). So admission may
also watch how late the event loop runs (a tick every 20 ms, while checks run): past ``guard.max_loop_lag_ms``
with at least a quarter of ``checks_at_once`` running, the process is out of CPU, and a new request is shed
at once rather than slowing every stream already admitted. Too few checks running never shed on lag: a
machine busy with others' work is not this service's overload. Off by default (0): on a machine shared
with other work the loop runs late without this service being its cause.

Lateness is suffered before it is seen: by the time the loop runs 10 ms late, every stream admitted has waited that
long for its next chunk. ``guard.max_cpu_share``, an operator's cap, sheds on a forecast instead
(:class:`CpuShare`): the process's CPU seconds per second of a check in flight, learnt over the last quarter seconds
(this process's own CPU time, ``time.process_time``, so others' work on the machine does not count), times the
checks running plus the one asking, against the share of one core the operator lets checks use. The guard's work
runs on one event loop: held below a full core, the loop has idle moments, and a stream's next chunk does not queue
behind every running check's work. The CPU of everything else the process does (a shed request's 503, other routes)
is counted as the checks': the forecast errs towards shedding.

A refusal's ``Retry-After`` is the forecast its message gives, so a client waits as long as the message says.
Past the reckoning, it is when room for the check asking is forecast: the running checks are drained by the
same processor sharing (each has had the full-speed seconds of a virtual clock that runs at the wall's pace
while at most ``checks_at_once`` run, and ``checks_at_once / running`` of it past that; what a check still
needs is what one takes alone less what it has had, and one past that is taken to need as long again, since
how long it will run on is not known), until few enough run for a new one to fit its deadline. The CPU and
lateness sheds forecast no time (neither the CPU a check will use nor how late the loop will run is reckoned
ahead): they ask for one second, and say so. The adaptive limit's is when the checks over it are drained.

Admission is max-min fair between keys (:meth:`CheckLoad.fair_turn`), under every limit alike: a key holding less
than its share of what the limit that refuses it admits (:attr:`Shed.capacity`: the adaptive limit, the checks that
fit the deadline, or the checks the CPU cap holds; divided among the keys holding checks, the asker counted, at
least one each) is admitted though the service is full, while another key holds more than its share. Shedding only
ever answers a request at its admission: a check once admitted is never cut, since its caller was promised it and
its work so far would be lost. So the heaviest key is shed by its new requests: the checks admitted for a light key
count in the reckoning like any other, and the heavy key's next requests are refused (or passed unchecked) until its
load falls back, while the light key's are admitted. At most as many checks as the limit admits run admitted that
way, so the load stays within twice the limit however many keys ask.

What the checker answers in time is reckoned per key as well: a deadline missed lowers the limit of the key whose
check missed (:class:`~factdebate.server.ops.adaptive.CheckedLimits`, forgotten a deadline after its last miss),
and the checker's slots are reckoned with the asking key's own checks' cost and its own turn in the checker's
queue (server/ops/checker_slots.py), so that one key's slow checks do not lower what the others are admitted to."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from factdebate.server.ops.adaptive import CORES, AdaptiveLimit, CheckedLimits, LoopLag, Pace, floor_of
from factdebate.server.ops.checker_slots import CheckerSlots

CHECKS_PER_CORE = 8
LEARN = 0.2  # weight of the newest check in the moving average
CPU_WINDOW_S = 0.25  # the CPU per check-second is learnt over windows at least this long
CPU_LEARN = 0.3  # weight of the newest window in its moving average


class CpuShare:
    """This process's CPU seconds per second of one check in flight (a moving average over windows of at least
    CPU_WINDOW_S), learnt from the process's CPU time and the integral of the checks running over time. Read at
    admission, updated at each check's start and end: no timer of its own."""

    def __init__(self) -> None:
        self.per_check: float | None = None  # None: no window with checks running has ended yet
        self._area = 0.0  # check-seconds so far in this window
        self._at = time.perf_counter()  # when the area was last advanced
        self._window_at, self._window_cpu = self._at, time.process_time()

    def restart(self) -> None:
        """A new window from now (the first check of a busy spell starts): what the process did while no check
        ran (its start, an idle route) is not the checks' cost."""
        self._area, self._at = 0.0, time.perf_counter()
        self._window_at, self._window_cpu = self._at, time.process_time()

    def advance(self, running: int) -> None:
        """The checks running until now (call before their number changes)."""
        now = time.perf_counter()
        self._area += running * (now - self._at)
        self._at = now

    def learn(self, running: int) -> None:
        """Close the window if it is long enough: its CPU seconds over its check-seconds."""
        self.advance(running)
        if self._at - self._window_at < CPU_WINDOW_S:
            return
        cpu = time.process_time()
        if self._area > 0:
            rate = (cpu - self._window_cpu) / self._area
            self.per_check = rate if self.per_check is None else (1 - CPU_LEARN) * self.per_check + CPU_LEARN * rate
        self._area, self._window_at, self._window_cpu = 0.0, self._at, cpu


@dataclass
class Shed:
    """A request shed: why (a sentence a caller may read) and when to try again."""

    why: str
    retry_after_s: int
    capacity: int = 0  # the checks the limit that shed it admits: what keys share (CheckLoad.fair_turn)

    @classmethod
    def forecast(cls, why: str, room_s: float, capacity: int = 0) -> Shed:
        """``why`` with when room is forecast, and that forecast as whole seconds (rounded up, at least 1):
        the header is the number the sentence says, rounded as it says it."""
        said = round(room_s, 1)
        return cls(f"{why}; room for it is forecast in about {said:.1f} s", max(1, math.ceil(said)), capacity)

    @property
    def message(self) -> str:
        """What the 503 says: why, and the ``Retry-After`` it carries."""
        return f"overloaded: {self.why}; retry in {self.retry_after_s} s"


class CheckLoad:
    """One process's guard checks in flight and what one takes at full speed."""

    def __init__(self) -> None:
        self.running = 0
        self.alone_s: float | None = None  # seconds of one check at full speed (None: none finished yet)
        self.said_at = float("-inf")  # when the log last said that requests are shed (monotonic)
        self.adaptive = AdaptiveLimit()
        self.checked = CheckedLimits()  # each key's: one key's slow checks do not lower the others' admission
        self.checker_slots = CheckerSlots()
        self.lag = LoopLag(lambda standing_s: self.adaptive.observe(standing_s, self.running))
        self.cpu = CpuShare()
        # Checks running per key id (a hash of the key, never the key): a key is in it only while it holds a
        # check, so it holds at most as many entries as checks run, whatever callers send.
        self.held: dict[str, int] = {}
        self.past = 0  # checks running that were admitted for their key's fair share though the service was full
        self._had = 0.0  # processor sharing's virtual clock: full-speed seconds each running check has had
        self._had_at = time.perf_counter()
        self._slots = 1  # checks at full speed, as the last check started said
        self._begun: dict[int, float] = {}  # each running check's virtual clock at its admission
        self._ids = itertools.count()
        self.pace = Pace()  # admissions spread over time at the capacity (server/ops/adaptive.py)

    @staticmethod
    def slots(checks_at_once: int) -> int:
        return checks_at_once or int(CHECKS_PER_CORE * CORES)

    def predicted_s(self, checks_at_once: int) -> float | None:
        """Seconds a check admitted now would take, or None before any has finished."""
        if self.alone_s is None:
            return None
        return self.alone_s * max(1.0, (self.running + 1) / self.slots(checks_at_once))

    def shed(self, checks_at_once: int, deadline_s: float, max_lag_ms: float = 0.0,
             max_cpu_share: float = 0.0, operator_deadline_s: float = 0.0, who: str = "") -> Shed | None:
        """Why a check of ``who`` admitted now would not end within ``deadline_s`` for the checks running, or
        would slow the streams admitted (the loop over ``max_lag_ms`` late, or the checks' forecast CPU past
        ``max_cpu_share`` of a core; 0: not watched; or past what the checker's slots answer within
        ``operator_deadline_s``, the operator's deadline, whatever a caller asks). None: it would not, or there
        is room: a check slower than its deadline on an idle machine is the deadline's to cut."""
        slots = self.slots(checks_at_once)
        if (out := self.shed_now(checks_at_once, max_cpu_share, operator_deadline_s, who)) is not None:
            return out
        late_ms = 1000 * self.lag.late_s
        if max_lag_ms > 0 and late_ms > max_lag_ms and self.running >= max(2, slots // 4):
            return Shed(f"the service is out of CPU: its event loop runs {late_ms:.0f} ms late with "
                        f"{self.running} replies being checked (guard.max_loop_lag_ms {max_lag_ms:g})", 1,
                        self.running)
        if self.running + 1 <= slots:
            return None
        predicted = self.predicted_s(checks_at_once)
        if predicted is None or predicted <= deadline_s:
            return None
        # Room comes once enough running checks have ended for one more to fit the deadline.
        fits = max(slots, math.floor(deadline_s * slots / self.alone_s)) if self.alone_s else slots
        replies = "reply" if self.running == 1 else "replies"
        return Shed.forecast(f"the service is checking {self.running} {replies} at once, past what it checks at "
                             f"full speed ({slots}); a check started now would take about {predicted:.1f} s, past "
                             f"its {deadline_s:.3g} s deadline", self.room_in_s(fits, slots), fits)

    def shed_now(self, checks_at_once: int, max_cpu_share: float = 0.0, deadline_s: float = 0.0,
                 who: str = "") -> Shed | None:
        """Why one more check of ``who`` (a key's id) is past what the service serves now: the operator's CPU
        cap (``max_cpu_share``), then the adaptive limits (server/ops/adaptive.py: the loop's, and the key's own
        checker's limit) and what the checker's slots answer for the key's checks within ``deadline_s`` (the
        operator's; 0: not reckoned; server/ops/checker_slots.py). Cheap enough for the chat door's gate, which
        sheds before routing (server/guard/openai_chat/shed_gate.py)."""
        if (out := self.shed_on_cpu(max_cpu_share)) is not None:
            return out
        limit = self.adaptive.at_least(floor_of(checks_at_once))
        checker = int(self.checked.of(who))
        bound = self.checker_slots.bound(deadline_s, self.running, who) if deadline_s > 0 else None
        if bound is not None and checks_at_once < bound.checks < min(limit, checker):  # the operator's count wins
            if self.running < bound.checks:
                return None
            why = f"the service is checking {self.running} replies at once, {bound.why}"
            return Shed.forecast(why, self.room_in_s(bound.checks, self.slots(checks_at_once)), bound.checks)
        if self.running < min(limit, checker):
            if (waits := self.pace.waits_s(self.running, min(limit, checker))) is None:
                return None
            # What the pace holds is the checks running: a key under its share of them is admitted (fair_turn)
            # while another holds more, though the limit itself is not full.
            return Shed.forecast(f"the service is checking {self.running} replies at once, at its capacity, and "
                                 "admits one more as its pace allows", waits, self.running)
        if checker < limit:
            why = (f"the service is checking {self.running} replies at once, as many as its checker answers within "
                   f"their deadlines now (checks that ran past their deadlines brought it to {checker}) for this key")
        else:
            why = (f"the service is checking {self.running} replies at once, what it serves now (a limit that falls "
                   f"while its event loop runs late and grows while it keeps up, never below {self.adaptive.floor})")
        capacity = min(limit, checker)
        if limit <= checker:  # the service is full; a key held to its own checker's limit says nothing of that
            self.pace.full()
        return Shed.forecast(why, self.room_in_s(capacity, self.slots(checks_at_once)), capacity)

    def check_ended(self, past_deadline: bool, who: str = "", deadline_s: float = math.inf) -> None:
        """A check's result: whether the check of ``who`` at a ``deadline_s`` deadline ran past it (claims
        unchecked for it), for that key's checker's limit (server/ops/adaptive.py, :class:`CheckedLimits`)."""
        if past_deadline:
            self.checked.missed(who, self.running, deadline_s)
        else:
            self.checked.checked(who, self.running)

    def room_in_s(self, fits: int, slots: int) -> float:
        """Seconds until fewer than ``fits`` checks run, the running ones drained by processor sharing from
        what each still needs at full speed (one check's seconds less what it has had; one check's seconds
        again for a check already past them: it is running long, and how long is not known)."""
        alone = self.alone_s or 0.0
        self._tick()
        needs = sorted(left if (left := alone - (self._had - begun)) > 0 else alone for begun in self._begun.values())
        waited, done, running = 0.0, 0.0, len(needs)
        for need in needs[:max(0, running + 1 - fits)]:
            waited += (need - done) * max(1.0, running / slots)
            done, running = need, running - 1
        return waited

    def share(self, who: str, capacity: int) -> int:
        """``who``'s fair share of ``capacity`` checks (what the limit that binds admits): divided among the
        keys holding checks, ``who`` counted, at least one each."""
        keys = len(self.held) + (who not in self.held)
        return max(1, capacity // keys)

    def fair_turn(self, who: str, capacity: int) -> bool:
        """Whether ``who``, whom a limit of ``capacity`` checks refuses, is admitted all the same (max-min
        fair): it holds less than its share while another key holds more than it, and fewer than ``capacity``
        checks run admitted this way (what they add to the load stays within the limit's own size)."""
        share = self.share(who, capacity)
        if self.past >= max(1, capacity) or self.held.get(who, 0) >= share:
            return False
        return max(self.held.values(), default=0) > share

    def _tick(self) -> None:
        """The virtual clock advanced to now, at the pace the running checks have had since it last moved."""
        now = time.perf_counter()
        if self.running:
            self._had += (now - self._had_at) * min(1.0, self._slots / self.running)
        self._had_at = now

    def shed_on_cpu(self, max_cpu_share: float) -> Shed | None:
        """Why one more check would take the checks past ``max_cpu_share`` of a core (0: not watched), by the
        forecast of :class:`CpuShare`; None: it would not, or nothing runs (a lone check is never shed)."""
        if max_cpu_share <= 0 or not self.running:
            return None
        self.cpu.learn(self.running)
        per_check = self.cpu.per_check
        if per_check is None or (self.running + 1) * per_check <= max_cpu_share:
            return None
        return Shed(f"the service is out of CPU: {self.running} replies being checked use about "
                    f"{self.running * per_check:.0%} of a core, and one more would pass "
                    f"guard.max_cpu_share {max_cpu_share:g}", 1, math.floor(max_cpu_share / per_check))

    def start(self, checks_at_once: int, max_lag_ms: float = 0.0, who: str = "", past: bool = False,
              spent: Mapping[object, float] | None = None) -> Callable[[], None]:
        """A check of key ``who`` begins (``past``: admitted by :meth:`fair_turn`); the function returned
        ends it (once) and learns its full-speed seconds, and from ``spent`` (the seconds its calls held each
        model server's slots, llm/call_owner.py, filled while it runs) what a check of its key costs the
        checker. The loop's lateness is watched only where it could decide something (below): its 20 ms tick
        costs CPU on the loop every stream waits on."""
        if self.running:
            self.cpu.advance(self.running)
        else:
            self.cpu.restart()
        self._tick()
        number = next(self._ids)
        self._begun[number] = self._had
        self._slots = self.slots(checks_at_once)
        self.pace.admitted(min(int(self.adaptive.limit), int(self.checked.of(who))))
        self.held[who] = self.held.get(who, 0) + 1
        self.past += past
        self.running += 1
        # The loop is watched while the adaptive limit could bind (half its floor running) or the operator
        # watches its lateness: below that its ticks would cost CPU and decide nothing.
        watched = max(1, self.adaptive.floor // 2) if max_lag_ms <= 0 else 1
        if self.running >= watched:
            self.lag.watch(lambda: self.running >= watched)
        started, slots = time.perf_counter(), self.slots(checks_at_once)
        busiest = [self.running]
        ended = [False]

        def end() -> None:
            if ended[0]:
                return
            ended[0] = True
            busiest[0] = max(busiest[0], self.running)
            self.cpu.advance(self.running)
            self._tick()
            del self._begun[number]
            self._let_go(who, past)
            self.running -= 1
            self.checker_slots.check_ended(who, spent)
            # The slowdown it ran under, taken as the mean of the load at its start and at its end.
            slowdown = max(1.0, (busiest[0] + self.running + 1) / 2 / slots)
            held = time.perf_counter() - started
            self.pace.ended(held)
            alone = held / slowdown
            self.alone_s = alone if self.alone_s is None else (1 - LEARN) * self.alone_s + LEARN * alone

        return end

    def _let_go(self, who: str, past: bool) -> None:
        """A check of ``who`` ended: out of the key's count (the key out of the table at none)."""
        self.past -= past
        if (left := self.held.get(who, 0) - 1) > 0:
            self.held[who] = left
        else:
            self.held.pop(who, None)
