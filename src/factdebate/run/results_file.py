"""Resumable JSONL results files (batch runs and evaluation runs).

Each finished claim is appended and flushed as one line. The file keeps one final record per id: a torn line
and older records are dropped on open, and retried ids replace theirs on close."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from factdebate.core.runfiles import iter_run_lines, json_line
from factdebate.util.errors import InputError
from factdebate.util.textsafe import dumps_record


def _lines(file: Path) -> Iterator[tuple[int, bytes]]:
    """The numbered lines of ``file``, streamed through the bounded run-file reader (core/runfiles.py)."""
    if file.is_dir():
        raise InputError(f"the results path {file} is a directory: give a file name, "
                         f"e.g. {file}/results.jsonl")
    return enumerate(iter_run_lines(file.parent, file.name), start=1)


def _records(file: Path, lines: Iterable[tuple[int, bytes]]) -> tuple[dict[str, dict[str, Any]], int, int]:
    """The last record per id (in first-appearance order), the count of lines not records, and of lines."""
    records: dict[str, dict[str, Any]] = {}
    broken = count = 0
    for number, line in lines:
        if not line.strip():
            continue
        count += 1
        try:
            row = json_line(line, file, number)  # a line nested past any record is refused, not skipped
        except ValueError:
            broken += 1  # a line torn by a kill mid-write
            continue
        if isinstance(row, dict) and "id" in row:
            records[str(row["id"])] = row
        else:
            broken += 1
    return records, broken, count


def latest_records(path: str | Path) -> dict[str, dict[str, Any]]:
    """The last record per id in a results file; torn or foreign lines are ignored."""
    file = Path(path)
    return _records(file, _lines(file))[0]


def finished_ids(path: str | Path) -> set[str]:
    """Ids whose latest record has no error (errored claims are retried on a re-run)."""
    return {item_id for item_id, row in latest_records(path).items() if not row.get("error")}


def compact(path: str | Path) -> int:
    """Rewrite ``path`` (atomically) with one record per id and no torn lines; returns the lines removed."""
    file = Path(path)
    records, broken, count = _records(file, _lines(file))
    removed = count - len(records)
    if removed == 0 and broken == 0:
        return 0
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for record in records.values():
            out.write(dumps_record(record) + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, file)
    return removed


class ResultWriter:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise InputError(f"the output {self.path} is a directory: give a file name, "
                             f"e.g. {self.path / 'results.jsonl'}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        compact(self.path)
        self._fh = self.path.open("a", encoding="utf-8")
        self._lock = asyncio.Lock()

    async def write(self, record: dict[str, Any]) -> None:
        async with self._lock:
            self._fh.write(dumps_record(record) + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()
        compact(self.path)  # a retried id's new record replaces its old one
