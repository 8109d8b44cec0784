"""Per-run bookkeeping: usage by role and by model, trace events and the spans they nest in.

A :class:`RunRecorder` lives in a context variable for one claim, so the LLM wrapper and tools account for work
without threading it through; asyncio tasks copy the context, so concurrent claims each get their own, and the
agents of a round inherit its open span."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, TextIO

from factdebate.core.events import BaseEvent, SpanBegin, SpanEnd, parse_event
from factdebate.core.types import ModelUsage, ReplyCounts, Usage, add_model_usage, add_reply_counts
from factdebate.util.context import bound
from factdebate.util.observe import watched
from factdebate.util.textsafe import dumps_record

EventSink = Callable[[dict[str, Any]], None]


def wanted(sinks: Iterable[EventSink]) -> frozenset[str] | None:
    """The events some sink of ``sinks`` reads: None for every event (a sink that names none)."""
    names: set[str] = set()
    for sink in sinks:
        events = getattr(sink, "events", None)
        if not isinstance(events, frozenset):
            return None
        names |= events
    return frozenset(names)
# (span id, parent span id) of the innermost open span; (None, None) at the top of a run.
# A ContextVar: spans nest across awaits and tasks; each task sees its own innermost span.
_span: ContextVar[tuple[str | None, str | None]] = ContextVar("factdebate_span", default=(None, None))


class RunRecorder:
    def __init__(self, sinks: list[EventSink] | None = None, run_id: str = "") -> None:
        self.usage_by_role: dict[str, Usage] = {}
        self.usage_by_model: dict[str, ModelUsage] = {}  # the same calls by model, to price each at its rate
        self.sinks = list(sinks or [])
        # What the sinks read, worked out again when a sink is added to the list (a caller may append one)
        self._wanted, self._wanted_of = wanted(self.sinks), len(self.sinks)
        self.run_id = run_id
        self.started = time.perf_counter()
        self.cancelled_calls: dict[str, int] = {}
        self.cancelled_by_model: dict[str, int] = {}
        self.parse_counts: dict[str, ReplyCounts] = {}
        self.reasks: dict[tuple[str, int], int] = {}  # re-asks by (agent, round): a turn's parse_retries

    def count_reply(self, what: str, outcome: str, agent: str = "", round: int = 0) -> None:
        """One reply of kind ``what`` was ``asked``, ``reasked``, ``recovered`` or ``lost`` (llm/ask.py)."""
        counts = self.parse_counts.get(what)  # get first: setdefault would build a ReplyCounts on every reply
        if counts is None:
            counts = self.parse_counts[what] = ReplyCounts()
        setattr(counts, outcome, getattr(counts, outcome) + 1)
        if outcome == "reasked":
            self.reasks[(agent, round)] = self.reasks.get((agent, round), 0) + 1

    def role_usage(self, role: str) -> Usage:
        # get first: setdefault's Usage() was validated on every model call, and mostly thrown away
        usage = self.usage_by_role.get(role)
        return usage if usage is not None else self.usage_by_role.setdefault(role, Usage())

    def model_usage(self, model: str) -> ModelUsage:
        usage = self.usage_by_model.get(model)
        return usage if usage is not None else self.usage_by_model.setdefault(model, ModelUsage())

    def total(self) -> Usage:
        total = Usage()
        for usage in self.usage_by_role.values():
            total.add(usage)
        total.seconds = time.perf_counter() - self.started
        return total

    def call_cancelled(self, role: str, model: str = "") -> None:
        """An LLM call was cancelled while the backend had it (its tokens are unknown)."""
        self.cancelled_calls[role] = self.cancelled_calls.get(role, 0) + 1
        if model:
            self.cancelled_by_model[model] = self.cancelled_by_model.get(model, 0) + 1

    def transcript(self) -> int:
        """The characters of each text of a model call a sink asks to read in ``llm_call`` (its ``transcript``,
        llm/transcript.py; the service's stream of a request that asked for it); 0: none asks."""
        asked = [getattr(sink, "transcript", 0) for sink in self.sinks]
        return max([chars for chars in asked if isinstance(chars, int)], default=0)

    def wants(self, event: str, span_kind: str = "") -> bool:
        """Whether a sink reads events of kind ``event`` (a span's, of ``span_kind``)."""
        sinks = self.sinks
        if not sinks:
            return False
        if len(sinks) != self._wanted_of:
            self._wanted, self._wanted_of = wanted(sinks), len(sinks)
        names = self._wanted
        return names is None or event in names or (bool(span_kind) and f"{event}:{span_kind}" in names)

    def emit(self, event: BaseEvent | str, **data: Any) -> None:
        """Sends a typed event to the sinks as a JSON-ready dict; ``(name, **fields)`` is validated against the
        event models. An event no sink reads (:meth:`wants`) is not built."""
        if isinstance(event, str):
            if not self.wants(event):
                return
        elif not self.wants(str(getattr(event, "event", "")), str(getattr(event, "kind", ""))):
            return
        self.deliver(self.record(event, **data))

    def record(self, event: BaseEvent | str, **data: Any) -> dict[str, Any]:
        if isinstance(event, str):
            event = parse_event({"event": event, **data})
        span_id, parent_id = _span.get()
        # The event dumped, then its time, run and span set in the dump (the fields' places kept): what a copy
        # of the event with them set dumped, without the copy, which costs CPU on every guarded reply.
        record = event.model_dump(mode="json")
        record["t"], record["run"] = round(time.time(), 3), self.run_id
        if event.span_id is None:
            record["span_id"], record["parent_id"] = span_id, parent_id
        return record

    def deliver(self, record: dict[str, Any]) -> None:
        for sink in self.sinks:
            sink(record)


# A ContextVar: the run being recorded is read by every event (model calls, searches, turns) made inside it,
# deep in code that takes no recorder; two runs in one process (the service) stay apart.
_current: ContextVar[RunRecorder | None] = ContextVar("factdebate_run", default=None)


def current_run() -> RunRecorder | None:
    return _current.get()


def count_reply(what: str, outcome: str, agent: str = "", round: int = 0) -> None:
    """Counted whether or not anyone listens to the trace: the verdict carries the counts."""
    run = _current.get()
    if run is not None:
        run.count_reply(what, outcome, agent, round)


def emit(event: BaseEvent | str, **data: Any) -> None:
    run = _current.get()
    if run is not None:
        run.emit(event, **data)


@contextlib.contextmanager
def model_loading(what: str, model: str) -> Iterator[None]:
    """Traces a model's load (``model_loading``, then ``model_loaded`` with its seconds) when a run listens."""
    started = time.perf_counter()
    emit("model_loading", what=what, model=model)
    yield
    emit("model_loaded", what=what, model=model, seconds=round(time.perf_counter() - started, 3))


@contextlib.contextmanager
def span(name: str, kind: str, **attributes: Any) -> Iterator[str]:
    """Nest the events emitted inside (by this task and the tasks it starts) under a new span."""
    parent, _ = _span.get()
    # uuid4().hex[:8]'s four random bytes, without the 16-byte UUID object built around them (CPU per span)
    span_id = os.urandom(4).hex()
    run = _current.get()
    if run is not None and run.wants("span_begin", kind):  # the event built only for a sink that reads it
        run.emit(SpanBegin(name=name, kind=kind, attributes=attributes, span_id=span_id, parent_id=parent))
    token = _span.set((span_id, parent))
    try:
        # the service's traces see it too (util/observe.py): its kind and a claim's index, never its text
        with watched("span", span_kind=kind, index=str(attributes.get("index", ""))):
            yield span_id
    finally:
        _span.reset(token)
        run = _current.get()
        if run is not None and run.wants("span_end", kind):
            run.emit(SpanEnd(name=name, kind=kind, span_id=span_id, parent_id=parent))


def recording(recorder: RunRecorder) -> AbstractContextManager[RunRecorder]:
    return bound(_current, recorder)


# The attribute on which an exception that ends a claim carries what the claim spent before it failed.
_SPENT = "factdebate_spent"
Spend = tuple[Usage, dict[str, ModelUsage]]


def add_spend(exc: BaseException, usage: Usage, by_model: dict[str, ModelUsage]) -> None:
    """Add ``usage`` to what ``exc`` already carries (seconds: the longest wall time, not the sum)."""
    total, models = usage.model_copy(), {model: used.model_copy() for model, used in by_model.items()}
    before = spent_before(exc)
    if before is not None:
        seconds = max(total.seconds, before[0].seconds)
        total.add(before[0])
        total.seconds = seconds
        add_model_usage(models, before[1])
    setattr(exc, _SPENT, (total, models))


@contextlib.contextmanager
def charged(recorder: RunRecorder) -> Iterator[None]:
    """An exception leaving the block carries what ``recorder`` counted until then (``spent_before``), so a
    failed claim's error record says what it cost. Only around a claim's or a response's own recorder."""
    try:
        yield
    except Exception as exc:
        add_spend(exc, recorder.total(), recorder.usage_by_model)
        raise


def spent_before(exc: BaseException) -> Spend | None:
    """What the work an exception ended had spent (``charged``); None when nothing recorded it."""
    spent = getattr(exc, _SPENT, None)
    return spent if isinstance(spent, tuple) else None


class JsonlTraceWriter:
    """Appends events to a JSONL file; safe to share between concurrent runs."""

    def __init__(self, path: str | Path) -> None:
        self._fh: TextIO = Path(path).open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def __call__(self, record: dict[str, Any]) -> None:
        line = dumps_record(record)  # strict UTF-8 JSON whatever an event carries
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()

    def close(self) -> None:
        self._fh.close()


@contextlib.contextmanager
def trace_file(path: str | Path | None) -> Iterator[list[EventSink]]:
    """A command's ``--trace``: a JSONL writer for ``path`` as a list of sinks (empty without a path)."""
    writer = JsonlTraceWriter(path) if path else None
    try:
        yield [writer] if writer else []
    finally:
        if writer:
            writer.close()



class SpeculativeRecorder(RunRecorder):
    """The recorder of work started before it is known to be needed (methods/kit/speculation.py): while
    pending, its events and usage are held back. :meth:`commit` hands them to the parent and forwards live
    from then on; :meth:`discard` books its calls as the parent's ``speculative_calls``, never ``llm_calls``."""

    def __init__(self, parent: RunRecorder) -> None:
        super().__init__(run_id=parent.run_id)
        self.parent = parent
        self.started = parent.started
        self.state: Literal["pending", "committed", "discarded"] = "pending"
        self.held: list[dict[str, Any]] = []

    def role_usage(self, role: str) -> Usage:
        return self.parent.role_usage(role) if self.state == "committed" else super().role_usage(role)

    def model_usage(self, model: str) -> ModelUsage:
        return self.parent.model_usage(model) if self.state == "committed" else super().model_usage(model)

    def call_cancelled(self, role: str, model: str = "") -> None:
        if self.state == "committed":
            self.parent.call_cancelled(role, model)
        else:
            super().call_cancelled(role, model)

    def count_reply(self, what: str, outcome: str, agent: str = "", round: int = 0) -> None:
        if self.state == "committed":
            self.parent.count_reply(what, outcome, agent, round)
        else:  # dropped with the work if it is discarded
            super().count_reply(what, outcome, agent, round)

    def wants(self, event: str, span_kind: str = "") -> bool:
        return self.state != "discarded" and self.parent.wants(event, span_kind)

    def transcript(self) -> int:
        return self.parent.transcript()

    def deliver(self, record: dict[str, Any]) -> None:
        if self.state == "pending":
            self.held.append(record)
        elif self.state == "committed":
            self.parent.deliver(record)

    def commit(self) -> None:
        if self.state != "pending":
            return
        for role, usage in self.usage_by_role.items():
            self.parent.role_usage(role).add(usage)
        add_model_usage(self.parent.usage_by_model, self.usage_by_model)
        for role, count in self.cancelled_calls.items():
            self.parent.cancelled_calls[role] = self.parent.cancelled_calls.get(role, 0) + count
        for model, count in self.cancelled_by_model.items():
            self.parent.cancelled_by_model[model] = self.parent.cancelled_by_model.get(model, 0) + count
        add_reply_counts(self.parent.parse_counts, self.parse_counts)
        for where, count in self.reasks.items():
            self.parent.reasks[where] = self.parent.reasks.get(where, 0) + count
        self.state = "committed"
        held, self.held = self.held, []
        for record in held:
            self.parent.deliver(record)

    def discard(self) -> None:
        if self.state != "pending":
            return
        self.state, self.held = "discarded", []
        for role in set(self.usage_by_role) | set(self.cancelled_calls):
            usage, booked = self.usage_by_role.get(role, Usage()), self.parent.role_usage(role)
            booked.speculative_calls += usage.llm_calls  # counted when sent: those cancelled in flight too
            booked.speculative_tokens += usage.prompt_tokens + usage.completion_tokens
        # By model too, the tokens split into prompt and completion: they were paid for at those rates.
        for model in set(self.usage_by_model) | set(self.cancelled_by_model):
            wasted = self.usage_by_model.get(model, ModelUsage()).discarded()
            self.parent.model_usage(model).add(wasted)
