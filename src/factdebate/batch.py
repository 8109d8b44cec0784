"""Batch verification: bounded concurrency, a progress bar, resumable JSONL output.

Each finished claim is appended and flushed as one line, so a crash loses nothing already written; a re-run
skips ids whose last record succeeded and retries the ones that errored."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from factdebate.api import run_claim
from factdebate.config import Settings
from factdebate.errors import FactDebateError, InputError
from factdebate.resources import Resources
from factdebate.runtime import EventSink


@dataclass
class ClaimItem:
    id: str
    claim: str
    extra: dict[str, Any]
    line: int = 0  # where it came from, for error messages


def claim_id(claim: str) -> str:
    return hashlib.sha256(claim.strip().encode()).hexdigest()[:16]


def parse_claim_lines(lines: Iterable[str], where: str = "line ") -> list[ClaimItem]:
    """JSONL rows: objects with ``claim`` (or ``text``) and an optional ``id``, or bare JSON strings. Other
    fields (a gold label, say) are carried along. Problems name ``<where><line number>``."""
    items: list[ClaimItem] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}{number}: not valid JSON ({exc.msg})") from exc
        if isinstance(row, str):
            row = {"claim": row}
        claim = row.get("claim", row.get("text")) if isinstance(row, dict) else None
        if not isinstance(claim, str):
            raise InputError(f"{where}{number}: expected an object with a 'claim' string")
        extra = {k: v for k, v in row.items() if k not in ("claim", "text", "id")}
        item_id = str(row.get("id") or claim_id(claim))
        if item_id in seen:
            raise InputError(f"{where}{number}: duplicate id '{item_id}'")
        seen.add(item_id)
        items.append(ClaimItem(item_id, claim, extra, number))
    return items


def read_claims(path: str | Path) -> list[ClaimItem]:
    file = Path(path)
    if not file.exists():
        raise InputError(f"input file not found: {file}")
    return parse_claim_lines(file.read_text(encoding="utf-8").splitlines(), where=f"{file}:")


def latest_records(path: str | Path) -> dict[str, dict[str, Any]]:
    """The last record per id in a results file; a torn last line (a crash mid-write) is ignored, so a
    retried claim counts once, with its latest outcome."""
    file = Path(path)
    records: dict[str, dict[str, Any]] = {}
    if file.exists():
        for line in file.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and "id" in row:
                records[str(row["id"])] = row
    return records


def finished_ids(path: str | Path) -> set[str]:
    """Ids whose latest record has no error (errored claims are retried on a re-run)."""
    return {item_id for item_id, row in latest_records(path).items() if not row.get("error")}


class ResultWriter:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._repair_torn_tail()
        self._fh = self.path.open("a", encoding="utf-8")
        self._lock = asyncio.Lock()

    def _repair_torn_tail(self) -> None:
        # A crash can leave a last line without its newline; start the next record on a fresh line.
        if self.path.exists() and self.path.stat().st_size:
            with self.path.open("rb") as fh:
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    with self.path.open("a", encoding="utf-8") as out:
                        out.write("\n")

    async def write(self, record: dict[str, Any]) -> None:
        async with self._lock:
            self._fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


@dataclass
class BatchStats:
    total: int
    skipped: int
    done: int
    errors: int


async def run_batch(items: Iterable[ClaimItem], output: str | Path, settings: Settings, resources: Resources,
                    *, concurrency: int | None = None, sinks: list[EventSink] | None = None,
                    progress: bool = True,
                    on_result: Callable[[dict[str, Any]], None] | None = None) -> BatchStats:
    items = list(items)
    done_before = finished_ids(output)
    todo = [item for item in items if item.id not in done_before]
    writer = ResultWriter(output)
    semaphore = asyncio.Semaphore(concurrency or settings.concurrency)
    stats = BatchStats(total=len(items), skipped=len(items) - len(todo), done=0, errors=0)
    bar = Progress(TextColumn("[bold]verifying"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.fields[status]}"), disable=not progress, transient=False,
                   console=Console(stderr=True))
    task = bar.add_task("claims", total=len(todo), status="")

    async def one(item: ClaimItem) -> None:
        async with semaphore:
            record: dict[str, Any] = {"id": item.id, **item.extra}
            try:
                verdict = await run_claim(item.claim, settings, resources, sinks=sinks)
                record.update(verdict.model_dump(mode="json"))
            except FactDebateError as exc:
                record.update({"claim": item.claim, "error": str(exc)})
                stats.errors += 1
            except Exception as exc:  # one bad claim must not sink the batch; the error is recorded
                record.update({"claim": item.claim, "error": f"{type(exc).__name__}: {exc}"})
                stats.errors += 1
            await writer.write(record)
            stats.done += 1
            if on_result:
                on_result(record)
            bar.update(task, advance=1, status=f"errors={stats.errors}")

    try:
        with bar:
            await asyncio.gather(*(one(item) for item in todo))
    finally:
        writer.close()
    return stats
