"""Per-run bookkeeping: usage by role and trace events.

A :class:`RunRecorder` is installed in a context variable for the duration of one claim, so the LLM wrapper
and the tools can account for work without every call site threading it through; concurrent claims in a
batch each get their own recorder because asyncio tasks copy the context when they start.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TextIO

from factdebate.textsafe import dumps_record
from factdebate.types import Usage

EventSink = Callable[[dict[str, Any]], None]


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

    def emit(self, event: str, **data: Any) -> None:
        if not self.sinks:
            return
        record = {"event": event, "t": round(time.time(), 3), "run": self.run_id, **data}
        for sink in self.sinks:
            sink(record)


_current: ContextVar[RunRecorder | None] = ContextVar("factdebate_run", default=None)


def current_run() -> RunRecorder | None:
    return _current.get()


def emit(event: str, **data: Any) -> None:
    run = _current.get()
    if run is not None:
        run.emit(event, **data)


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
