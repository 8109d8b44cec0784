"""Benchmark figures kept as data: a benchmark run with ``--record`` appends one JSON line to
benchmarks/results/<benchmark>.jsonl, and the documentation site's Performance figures page shows the latest
line of each file (scripts/mkdocs_hooks.py), so a page's figure is the one a command last measured.

A line: ``benchmark`` (the file's name), ``command`` (as run, from the repository root), ``machine`` (cores,
architecture, Python), ``load`` (the one-minute load average when the run began: these machines are shared),
``date`` (UTC, ISO 8601) and ``figures`` (a flat object, each name saying its unit, each value a number or a
short string). Lines are only appended; the history stays in the file."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = RESULTS.parent.parent


def add_record_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", action="store_true",
                        help="append this run's figures to benchmarks/results/<benchmark>.jsonl (the site's "
                             "Performance figures page shows the latest)")


def machine() -> str:
    return (f"{os.cpu_count()} cores, {platform.machine()}, "
            f"{platform.python_implementation()} {platform.python_version()}")


def command() -> str:
    """This process's command line as run from the repository root."""
    script = Path(sys.argv[0]).resolve()
    shown = script.relative_to(ROOT).as_posix() if script.is_relative_to(ROOT) else sys.argv[0]
    return shlex.join([".venv/bin/python", shown, *sys.argv[1:]])


def record(benchmark: str, figures: dict[str, Any], *, load: float, folder: Path = RESULTS) -> Path:
    """Append one run's ``figures`` to ``folder``/``benchmark``.jsonl; ``load``: the load average as it began."""
    line = {"benchmark": benchmark, "command": command(), "machine": machine(), "load": round(load, 1),
            "date": datetime.now(UTC).isoformat(timespec="seconds"), "figures": figures}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{benchmark}.jsonl"
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
    return path


def latest(folder: Path = RESULTS) -> dict[str, dict[str, Any]]:
    """Each file's last record (the most recent run appended), by benchmark name, in name order."""
    found = {}
    for path in sorted(folder.glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if lines:
            found[path.stem] = json.loads(lines[-1])
    return found
