"""What the driver of an index build on Ray prints: how far it is, how fast, and how long is left.

One line when the build starts (shards, documents, what an earlier run already wrote) and one each time
shards finish, at most every few seconds. The rate is this run's passages over this run's time, Ray's
start-up and the workers' model loading included, so early figures are low and settle as shards finish.
The time left comes from documents where the plan knows how many each shard holds (JSONL, Parquet),
from shards otherwise (a CSV or gzipped file is one shard of unknown size).
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console

from factdebate.corpus.shards import Shard

PRINT_EVERY = 5.0  # seconds between progress lines


def duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class BuildProgress:
    def __init__(self, corpus: str, shards: list[Shard], done: dict[str, Any], console: Console | None) -> None:
        self.corpus = corpus
        self.console = console
        self.planned = {shard.key: shard.documents for shard in shards}
        self.by_documents = all(count is not None for count in self.planned.values())
        self.total_documents = sum(count or 0 for count in self.planned.values())
        self.finished_keys = {key for key in done if key in self.planned}
        # what earlier runs finished: the pace counts only this run's work
        self._earlier_documents = sum(self.planned[key] or 0 for key in self.finished_keys)
        self._earlier_shards = len(self.finished_keys)
        self.passages = 0  # this run's
        self.started = time.perf_counter()
        self.printed = 0.0

    def _say(self, text: str) -> None:
        if self.console is not None:
            self.console.print(f"{self.corpus}: {text}", markup=False, highlight=False)

    def starting(self, resumed: bool, replaced: bool, workers: int) -> None:
        documents = f" ({self.total_documents:,} documents)" if self.by_documents else ""
        self._say(f"{len(self.planned):,} shards{documents} on {workers} Ray workers")
        if resumed and self.finished_keys:
            self._say(f"resuming: {len(self.finished_keys):,} shards were written by an earlier run")
        if replaced:
            self._say("the source or the settings changed since the last build: every shard is done again "
                      "(passages already stored keep their ids and are not duplicated)")
        self.started = time.perf_counter()

    def shard_done(self, row: dict[str, Any]) -> None:
        self.finished_keys.add(row["shard"])
        self.passages += int(row["passages"])
        now = time.perf_counter()
        if now - self.printed >= PRINT_EVERY or len(self.finished_keys) == len(self.planned):
            self.printed = now
            self._say(self.line(now - self.started))

    def line(self, elapsed: float) -> str:
        done = len(self.finished_keys)
        rate = self.passages / elapsed if elapsed > 0 else 0.0
        text = f"{done:,}/{len(self.planned):,} shards, {self.passages:,} passages, {rate:,.1f} passages/s"
        left = self.eta(elapsed)
        return text + (f", about {duration(left)} left" if left is not None and done < len(self.planned) else "")

    def eta(self, elapsed: float) -> float | None:
        """Seconds left at this run's pace so far; ``None`` before anything of this run finished."""
        if self.by_documents:
            finished = sum(self.planned[key] or 0 for key in self.finished_keys)
            remaining = self.total_documents - finished
            this_run = finished - self._earlier_documents
        else:
            remaining = len(self.planned) - len(self.finished_keys)
            this_run = len(self.finished_keys) - self._earlier_shards
        return remaining * elapsed / this_run if this_run > 0 else None
