"""Batch verification: bounded concurrency, a progress bar, resumable JSONL output.

A bad input line becomes an error record and the others still run. A re-run skips ids that succeeded, retries
errored ones, and refuses a results file written with other settings."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console

from factdebate.core.claim_context import claim_position
from factdebate.core.runtime import EventSink
from factdebate.methods.base import Method
from factdebate.methods.resources import Resources, RunScope
from factdebate.run.build import start_run
from factdebate.run.claim import prepare, public_config, run_claim
from factdebate.run.results_file import ResultWriter, finished_ids, latest_records
from factdebate.run.resume import settings_changes
from factdebate.settings.model import Settings
from factdebate.util.errors import ConfigError, FactDebateError, InputError
from factdebate.util.input_files import MAX_INPUT_ENV, STDIN, input_limit, read_bounded
from factdebate.util.progress import Counter
from factdebate.util.scrub import redact_text
from factdebate.util.textsafe import MAX_NESTING, nesting_depth, safe_text, unsafe_reason


@dataclass
class ClaimItem:
    id: str
    claim: str
    extra: dict[str, Any]
    line: int = 0  # where it came from, for error messages
    error: str | None = None  # set when the line itself is unusable: it is recorded, never run

    @classmethod
    def from_lines(cls, lines: Iterable[str], where: str = "line ") -> list[ClaimItem]:
        """JSONL rows: objects with ``claim`` (or ``text``) and an optional ``id``, or bare JSON strings; other
        fields are carried along. An unusable line is an item with ``error``; a repeated id is refused."""
        items: list[ClaimItem] = []
        seen: dict[str, int] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            item = _parse_line(line, number, where)
            if item.id in seen:
                raise InputError(f"{where}{number}: duplicate id '{item.id[:80]}' (first on line {seen[item.id]}); "
                                 "give every claim its own id")
            seen[item.id] = number
            items.append(item)
        return items


def claim_id(claim: str) -> str:
    # surrogatepass: a claim with a lone surrogate still gets a stable id for its error record.
    return hashlib.sha256(claim.strip().encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _parse_line(line: str, number: int, where: str) -> ClaimItem:
    too_deep = (f"{where}{number}: the line nests lists or objects more than {MAX_NESTING} levels deep; "
                "flatten it")
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        return ClaimItem(f"line-{number}", "", {}, number, f"{where}{number}: not valid JSON ({exc.msg})")
    except RecursionError:  # deeper than the JSON parser itself goes
        return ClaimItem(f"line-{number}", "", {}, number, too_deep)
    if nesting_depth(row) > MAX_NESTING:  # its fields are dropped: any record that kept them could not be written
        return ClaimItem(f"line-{number}", "", {}, number, too_deep)
    if isinstance(row, str):
        row = {"claim": row}
    if not isinstance(row, dict):
        return ClaimItem(f"line-{number}", "", {}, number,
                         f"{where}{number}: expected an object with a 'claim' string, got {type(row).__name__}")
    claim = row.get("claim", row.get("text"))
    raw_id = row.get("id")
    item_id = safe_text(str(raw_id)) if raw_id not in (None, "") else None
    extra = {k: v for k, v in row.items() if k not in ("claim", "text", "id")}
    if not isinstance(claim, str):
        return ClaimItem(item_id or f"line-{number}", "", extra, number,
                         f"{where}{number}: expected an object with a 'claim' string")
    item = ClaimItem(item_id or claim_id(claim), safe_text(claim), extra, number)
    if reason := unsafe_reason(claim):
        item.error = f"{where}{number}: the claim cannot be checked: {reason}"
    return item


def read_claims(path: str | Path) -> list[ClaimItem]:
    return claims_from_bytes(read_claim_bytes(path), path)


def read_claim_bytes(path: str | Path) -> bytes:
    """The bytes of a JSONL batch file (``-``: standard input), at most ``FACTDEBATE_MAX_INPUT_MB`` MiB."""
    file = Path(path)
    if str(path) != STDIN and not file.exists():
        raise InputError(f"input file not found: {file}")
    if str(path) != STDIN and file.is_dir():
        raise InputError(f"the input {file} is a directory: give a JSONL file with one claim per line")
    raw = read_bounded(path, what="the input", limit=input_limit(), setting=MAX_INPUT_ENV)
    if not raw and (str(path) == STDIN or not file.is_file()):  # an empty file is an empty batch; a pipe, a fault
        raise InputError(f"the input {path} is empty: a pipe that gave nothing (is anything writing to it?); give "
                         "a JSONL file with one claim per line")
    return raw


def claims_from_bytes(raw: bytes, path: str | Path) -> list[ClaimItem]:
    file = Path(path)
    if b"\x00" in raw[:4096]:
        raise InputError(f"the input {file} is binary, not JSON lines: give a UTF-8 text file with one claim "
                         "per line")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"the input {file} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                         "save it as UTF-8") from None
    return ClaimItem.from_lines(text.splitlines(), where=f"{file}:")


def check_batch_resume(output: str | Path, settings: Settings) -> None:
    """Refuse to continue a results file whose records were made with other settings."""
    now = public_config(settings)
    for record in latest_records(output).values():
        before = record.get("config")
        if isinstance(before, dict):
            changes = settings_changes(before, now, Method.named(settings.method).settings_sections())
            if changes:
                raise InputError(f"{output} holds results made with other settings ({'; '.join(changes[:6])}); "
                                 "use another --output file or delete this one")
            return


@dataclass
class BatchStats:
    total: int
    skipped: int
    done: int
    errors: int


class ClaimExecutor(Protocol):
    """Runs claims elsewhere (factdebate.scale) and hands each record back to the driver, which writes it."""

    async def run_claims(self, items: list[ClaimItem], settings: Settings,
                         handle: Callable[[dict[str, Any], list[dict[str, Any]]], Awaitable[None]]) -> None: ...


async def claim_record(item: ClaimItem, settings: Settings, resources: Resources,
                       sinks: list[EventSink] | None = None) -> dict[str, Any]:
    """One claim's results record: its verdict, or the error that stopped it (never raises)."""
    record: dict[str, Any] = {"id": item.id, **item.extra}
    try:
        if item.error:
            raise InputError(item.error)
        verdict = await run_claim(item.claim, settings, resources, sinks=sinks)
        record.update(verdict.model_dump(mode="json"))
    except FactDebateError as exc:
        record.update(error_record(item, str(exc), settings))
    except Exception as exc:  # one bad claim must not sink the batch; the error is recorded
        record.update(error_record(item, redact_text(f"{type(exc).__name__}: {exc}"), settings))
    return record


def error_record(item: ClaimItem, error: str, settings: Settings) -> dict[str, Any]:
    return {"id": item.id, **item.extra, "claim": item.claim, "error": error, "config": public_config(settings)}


async def run_batch(items: Iterable[ClaimItem], output: str | Path, settings: Settings, resources: Resources | None,
                    *, concurrency: int | None = None, sinks: list[EventSink] | None = None,
                    progress: bool = True,
                    on_result: Callable[[dict[str, Any]], None] | None = None,
                    executor: ClaimExecutor | None = None) -> BatchStats:
    """Run the claims not yet finished in ``output``, here (``resources``) or on ``executor``."""
    items = list(items)
    check_batch_resume(output, settings)
    method = Method.named(settings.method)
    method.check(settings)  # a usage error stops the batch before any claim
    in_order = method.in_order(settings)
    if in_order and executor is not None:
        raise ConfigError(f"{settings.method} cannot spread its claims over workers: {in_order}")
    scope = RunScope.of_results(Path(output))
    if resources is not None:  # the method's state for this batch (MERMAID: its own memory), before any claim
        start_run(resources, scope)
    elif executor is not None:
        method.start_run(settings, scope)
    writer = ResultWriter(output)  # opens (and compacts) before anything is read back
    done_before = finished_ids(output)
    todo = [item for item in items if item.id not in done_before]
    if todo and resources is not None and executor is None:
        try:  # the tools too (a missing index or key), as eval does; remote workers build theirs at start
            await asyncio.to_thread(prepare, settings, resources)
        except BaseException:
            writer.close()
            raise
    semaphore = asyncio.Semaphore(concurrency or settings.concurrency)
    stats = BatchStats(total=len(items), skipped=len(items) - len(todo), done=0, errors=0)
    bar = Counter("verifying", len(todo), lambda: f"{stats.done} of {len(todo)} claims, {stats.errors} errors",
                  console=Console(stderr=True), enabled=progress)

    async def finish(record: dict[str, Any], events: list[dict[str, Any]]) -> None:
        for event in events:  # a remote worker's trace events, replayed here
            for sink in sinks or []:
                sink(event)
        if record.get("error"):
            stats.errors += 1
        await writer.write(record)
        stats.done += 1
        if on_result:
            on_result(record)
        bar.advance(1, f"errors={stats.errors}")

    position = {item.id: n for n, item in enumerate(items)}

    async def one(item: ClaimItem) -> None:
        assert resources is not None
        async with semaphore:
            with claim_position(position[item.id]):
                record = await claim_record(item, settings, resources, sinks)
            await finish(record, [])

    try:
        with bar:
            if executor is not None:
                await executor.run_claims(todo, settings, finish)
            elif resources is None:
                raise ValueError("run_batch needs resources or an executor")
            elif in_order:
                for item in todo:
                    await one(item)
            else:
                await asyncio.gather(*(one(item) for item in todo))
    finally:
        writer.close()
    return stats


def in_order_note(settings: Settings, asked: int | None) -> str | None:
    """The line to print when ``asked`` claims at once meet a method that runs them one at a time, or None."""
    reason = Method.named(settings.method).in_order(settings)
    if reason is None or asked is None or asked <= 1:
        return None
    return f"{settings.method}: claims run one at a time in the run's order, not {asked} at once: {reason}"
