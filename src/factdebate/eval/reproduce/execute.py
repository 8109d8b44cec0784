"""Running a reproduction: each planned cell through the eval harness (resumable: a second invocation
continues every cell where it stopped), then ``reproduce.json``, the record of what was asked and what
became of each cell, which the report and ``--from`` read back."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factdebate.eval.reproduce.cells import Cell, Request
from factdebate.eval.reproduce.records import read_reproduce_record
from factdebate.eval.runner import execute
from factdebate.run.provenance import runtime_record
from factdebate.settings.model import Settings
from factdebate.util.errors import FactDebateError

MANIFEST = "reproduce.json"


def run_cells(cells: list[Cell], *, progress: bool = True, say: Callable[[str], None] = print) -> None:
    """Run every planned cell in turn; one that fails before its samples run is marked so, the others run."""
    planned = [c for c in cells if c.status == "planned" and c.plan is not None]
    from factdebate.run.foreground import prepare_in_foreground

    for cell in planned:  # a dead model server: one line in seconds, not a failure per cell after its start-up
        assert cell.plan is not None
        prepare_in_foreground(cell.plan.settings)
    for number, cell in enumerate(planned, start=1):
        assert cell.plan is not None
        say(f"[{number}/{len(planned)}] {cell.key}: {cell.run.method} on {cell.plan.dataset.spec}, "
            f"{len(cell.plan.samples)} sample(s)")
        try:
            summary = asyncio.run(execute(cell.plan, progress=progress))
        except FactDebateError as exc:
            cell.status, cell.reason = "failed", str(exc).splitlines()[0]
            say(f"  {cell.key}: failed: {cell.reason}")
            continue
        cell.status, cell.errored = "done", len(summary["metrics"]["errored"])


def manifest(request: Request, cells: list[Cell], settings: Settings) -> dict[str, Any]:
    root = request.output.resolve()
    return {"paper": request.paper.key, "tables": [t.name for t in request.tables],
            "rows": sorted(request.rows) if request.rows is not None else None,
            "datasets": sorted(request.datasets) if request.datasets is not None else None,
            "paper_model": request.paper_model or request.paper.model, "limit": request.limit,
            "seed": request.seed, "data": request.data, "options": request.options,
            "config": str(request.config) if request.config else None,
            "cells": [cell.record(root) for cell in cells], "provenance": runtime_record(settings)}


def write_manifest(request: Request, cells: list[Cell], settings: Settings) -> Path:
    request.output.mkdir(parents=True, exist_ok=True)
    path = request.output / MANIFEST
    path.write_text(json.dumps(manifest(request, cells, settings), indent=1, default=str) + "\n", encoding="utf-8")
    return path


def read_manifest(folder: Path) -> dict[str, Any]:
    """``reproduce.json``, checked: a damaged one is one line naming its first bad field (eval/reproduce/records.py)."""
    return read_reproduce_record(folder / MANIFEST)
