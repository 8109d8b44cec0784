"""Per-run bookkeeping: usage by role, trace events and the spans they nest in.

A :class:`RunRecorder` is installed in a context variable for the duration of one claim, so the LLM wrapper
and the tools can account for work without every call site threading it through; concurrent claims in a
batch each get their own recorder because asyncio tasks copy the context when they start. The open span
is a context variable too, so the agents of a round (gathered tasks) inherit the round's span.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TextIO

from factdebate.events import BaseEvent, SpanBegin, SpanEnd, parse_event
from factdebate.textsafe import dumps_record
from factdebate.types import Usage

EventSink = Callable[[dict[str, Any]], None]
# (span id, parent span id) of the innermost open span; (None, None) at the top of a run.
_span: ContextVar[tuple[str | None, str | None]] = ContextVar("factdebate_span", default=(None, None))


class RunRecorder:
    def __init__(self, sinks: list[EventSink] | None = None, run_id: str = "") -> None:
        self.usage_by_role: dict[str, Usage] = {}
        self.sinks = list(sinks or [])
        self.run_id = run_id
        self.started = time.perf_counter()

    def role_usage(self, role: str) -> Usage:
        return self.usage_by_role.setdefault(role, Usage())

    def total(self) -> Usage:
        total = Usage()
        for usage in self.usage_by_role.values():
            total.add(usage)
        total.seconds = time.perf_counter() - self.started
        return total

    def emit(self, event: BaseEvent | str, **data: Any) -> None:
        """Sends a typed event to the sinks as a JSON-ready dict. The ``(name, **fields)`` form is
        validated against the event models, so an unknown kind or field fails here, not in a consumer."""
        if not self.sinks:
            return
        if isinstance(event, str):
            event = parse_event({"event": event, **data})
        span_id, parent_id = _span.get()
        update: dict[str, Any] = {"t": round(time.time(), 3), "run": self.run_id}
        if event.span_id is None:
            update.update(span_id=span_id, parent_id=parent_id)
        record = event.model_copy(update=update).model_dump(mode="json")
        for sink in self.sinks:
            sink(record)


_current: ContextVar[RunRecorder | None] = ContextVar("factdebate_run", default=None)


def current_run() -> RunRecorder | None:
    return _current.get()


def emit(event: BaseEvent | str, **data: Any) -> None:
    run = _current.get()
    if run is not None:
        run.emit(event, **data)


@contextlib.contextmanager
def span(name: str, kind: str, **attributes: Any) -> Iterator[str]:
    """Nest the events emitted inside (by this task and the tasks it starts) under a new span."""
    parent, _ = _span.get()
    span_id = uuid.uuid4().hex[:8]
    emit(SpanBegin(name=name, kind=kind, attributes=attributes, span_id=span_id, parent_id=parent))
    token = _span.set((span_id, parent))
    try:
        yield span_id
    finally:
        _span.reset(token)
        emit(SpanEnd(name=name, kind=kind, span_id=span_id, parent_id=parent))


@contextlib.contextmanager
def recording(recorder: RunRecorder) -> Iterator[RunRecorder]:
    token = _current.set(recorder)
    try:
        yield recorder
    finally:
        _current.reset(token)


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
