"""The evaluation progress bar: samples done, running accuracy (unparsed and errored count as wrong) and
running cost per claim, on stderr; off a terminal, the same as a line every 10 s (util/ticker.py)."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as RichProgress

from factdebate.util.ticker import Ticker, plain_lines


class Progress:
    def __init__(self, total: int, finished: list[dict[str, Any]], *, enabled: bool = True,
                 label: str = "eval", console: Console | None = None, every: float | None = None) -> None:
        self.done = self.correct = self.unparsed = self.errors = 0
        self.calls = self.tokens = 0.0
        self.costed = 0
        self.total = total
        console = console or Console(stderr=True)
        plain = plain_lines(console, enabled)
        self._ticker = Ticker(console, label, self._line, every=every) if plain else None
        self._bar = RichProgress(TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[status]}"),
                                 disable=not enabled or plain, console=console)
        for record in finished:
            self._count(record)
        self._task = self._bar.add_task("samples", total=total, completed=self.done, status=self.status())

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
        self._bar.update(self._task, advance=1, status=self.status())

    def __enter__(self) -> Progress:
        self._bar.__enter__()
        if self._ticker is not None:
            self._ticker.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._ticker is not None:
            self._ticker.__exit__(kind, exc, tb)
        self._bar.__exit__(kind, exc, tb)
