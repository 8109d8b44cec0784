"""The offline quick start of docs/ways/proxy.md timed as a reader meets it after ``factdebate setup``: its
lines run as the page prints them (tests/server/proxy_quick_start.py: ports moved to free ones), from the
stand-in's start to the reply's last byte, with the offline model as the checker, in a fresh data folder that
holds the installed models and index and no cache of earlier answers. Prints one JSON line: the wall and CPU
seconds, the load average as it began and as it ended (these machines are shared: the load is part of the
figure), and what the reply marked.

    .venv/bin/python benchmarks/proxy_offline.py --record
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results_log import add_record_flag, record  # noqa: E402
from tests.server.proxy_quick_start import (  # noqa: E402
    installed_data_folder,
    marked,
    offline_data_folder,
    reader_env,
    run_quick_start,
)


def figures_of(reply: dict[str, Any], wall_s: float, cpu_s: float, load_start: float) -> dict[str, Any]:
    check = reply.get("factdebate") or {}
    content = reply["choices"][0]["message"]["content"] or ""
    # Yes and no as words: the figures page shows each figure as text or as a number.
    figures: dict[str, Any] = {"wall_s": round(wall_s, 1), "cpu_s": round(cpu_s, 1), "load_start": round(load_start, 1),
                               "load_end": round(os.getloadavg()[0], 1),
                               "marked": "yes" if marked(content) is not None else "no",
                               "deadline_missed": "yes" if check.get("deadline_missed") else "no",
                               "model_calls": (check.get("usage") or {}).get("model_calls")}
    for number, claim in enumerate(check.get("claims") or []):
        figures[f"claim{number}"] = f"{claim['status']} {claim['label']}: {claim['claim']}"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--installed", type=Path, default=installed_data_folder(),
                        help="the data folder factdebate setup filled (default: the default one)")
    add_record_flag(parser)
    args = parser.parse_args()
    if not any((args.installed / "models").glob("qwen2.5-coder-1.5b*.gguf")):
        raise SystemExit(f"no offline model in {args.installed}: run factdebate setup first")
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        data = offline_data_folder(Path(folder) / "data", args.installed)
        reply, _, took = run_quick_start(Path(folder), reader_env(FACTDEBATE_DATA_DIR=str(data)))
    figures = figures_of(reply, took.wall_s, took.cpu_s, load_start)
    print(json.dumps(figures))
    print(reply["choices"][0]["message"]["content"], file=sys.stderr)
    if args.record:
        record("proxy_offline", figures, load=load_start)


if __name__ == "__main__":
    main()
