"""The evaluation's progress: samples done, running accuracy (unparsed and errored count as wrong) and running
cost per claim, shown by util/progress.py (a bar on a terminal, a line every 10 s elsewhere)."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from rich.console import Console

from factdebate.util.progress import Counter


class Progress:
    def __init__(self, total: int, finished: list[dict[str, Any]], *, enabled: bool = True,
                 label: str = "eval", console: Console | None = None, every: float | None = None) -> None:
        self.done = self.correct = self.unparsed = self.errors = 0
        self.calls = self.tokens = 0.0
        self.costed = 0
        self.total = total
        for record in finished:
            self._count(record)
        self._shown = Counter(label, total, self._line, console=console, enabled=enabled, completed=self.done,
                              status=self.status(), time_left=True, every=every)

    def _count(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.correct += bool(record.get("correct"))
        if record.get("error"):
            self.errors += 1
        elif record.get("predicted") is None:
            self.unparsed += 1
        usage = record.get("usage")
        if isinstance(usage, dict) and not record.get("error"):
            self.costed += 1
            self.calls += usage.get("llm_calls", 0)
            self.tokens += usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)

    def status(self) -> str:
        if not self.done:
            return ""
        text = f"acc {self.correct / self.done:.3f} ({self.correct}/{self.done})"
        if self.costed:
            text += f" · {self.calls / self.costed:.1f} calls, {self.tokens / self.costed:,.0f} tok/claim"
        if self.unparsed or self.errors:
            text += f" · unparsed {self.unparsed} · errors {self.errors}"
        return text

    def _line(self) -> str:
        status = self.status()
        return f"{self.done} of {self.total} samples" + (f", {status}" if status else "")

    def add(self, record: dict[str, Any]) -> None:
        self._count(record)
        self._shown.advance(1, self.status())

    def __enter__(self) -> Progress:
        self._shown.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._shown.__exit__(kind, exc, tb)
