"""The guard's first runs timed as a newcomer meets them after ``factdebate setup``, with the offline model: each
documented example run as its page prints it, in a fresh data folder that holds the installed models and
full-text index and no cache of earlier answers (tests/server/proxy_quick_start.py's ``offline_data_folder``).
Every time the pages state for these examples comes from this benchmark's latest record.

* ``readme``: README.md's ``fd.guard`` block;
* ``python``: docs/ways/python.md's quick start block (``fd.verify``, then ``fd.guard``);
* ``mcp``: docs/ways/mcp.md's quick start block (the SDK's client starts ``factdebate mcp``, ``check_answer``);
* ``proxy``: docs/ways/proxy.md's offline quick start (the stand-in upstream, ``serve``, the health wait, curl);
* ``loop``: docs/ways/check-loop.md's quick start (``check-response --file answer.md --fail-on refuted``), only
  with ``--loop`` (about a quarter of an hour).

Prints one JSON line a run (wall and CPU seconds of the run and its children, the load as it began and ended,
and what it printed last), and with ``--record`` appends the figures to benchmarks/results/guard_first_runs.jsonl:

    .venv/bin/python benchmarks/guard_first_runs.py --record
    .venv/bin/python benchmarks/guard_first_runs.py --only readme --only proxy
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results_log import add_record_flag, record  # noqa: E402
from tests.documented_lines import Snippet, snippets  # noqa: E402
from tests.server.proxy_quick_start import (  # noqa: E402
    installed_data_folder,
    marked,
    offline_data_folder,
    reader_env,
    run_quick_start,
)

PYTHON_BLOCKS = {"readme": "README.md: import factdebate as fd  # the guard, without a server",
                 "python": "docs/ways/python.md: import factdebate as fd",
                 "mcp": "docs/ways/mcp.md: import asyncio"}
LOOP_ANSWER = "The Eiffel Tower is in Paris. It was finished in 1899."  # the check loop page's answer.md
RUNS = ("readme", "python", "mcp", "proxy", "loop")


def block(key: str) -> str:
    """The first documented Python block whose key is ``key`` (tests/documented_lines.py)."""
    found: list[Snippet] = [s for s in snippets() if s.kind == "python" and s.key == key]
    if not found:
        raise SystemExit(f"no documented block {key!r}: the page changed, so this benchmark must too")
    return found[0].text


def loop_command() -> str:
    """The check loop page's quick start command, as printed."""
    found = [s.text for s in snippets() if s.file == "docs/ways/check-loop.md" and s.kind == "shell"
             and s.text.startswith("factdebate check-response --file answer.md")]
    if not found:
        raise SystemExit("docs/ways/check-loop.md prints no check-response quick start")
    return found[0]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], folder: Path, env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall and CPU seconds of ``command`` (run in ``folder``), its exit code and its output's last lines."""
    cpu, began = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=3600, check=False)
    wall = time.perf_counter() - began
    said = (done.stdout + "\n" + done.stderr).strip().splitlines()
    return wall, children_cpu() - cpu, done.returncode, " | ".join(said[-4:])[-600:]


def run_one(name: str, installed: Path) -> dict[str, Any]:
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = offline_data_folder(folder / "data", installed)
        env = reader_env(FACTDEBATE_DATA_DIR=str(data))
        if name == "proxy":
            reply, _, took = run_quick_start(folder, env)
            content = reply["choices"][0]["message"]["content"] or ""
            check = reply.get("factdebate") or {}
            wall, cpu, code = took.wall_s, took.cpu_s, 0
            said = " | ".join(f"{c['status']} {c['label']}: {c['claim']}" for c in check.get("claims") or [])
            extra = {"marked": "yes" if marked(content) is not None else "no",
                     "deadline_missed": "yes" if check.get("deadline_missed") else "no"}
        elif name == "loop":
            (folder / "answer.md").write_text(LOOP_ANSWER + "\n", encoding="utf-8")
            wall, cpu, code, said = timed(["bash", "-c", loop_command()], folder, env)
            extra = {}
        else:
            (folder / "example.py").write_text(block(PYTHON_BLOCKS[name]), encoding="utf-8")
            wall, cpu, code, said = timed([sys.executable, "example.py"], folder, env)
            extra = {}
    return {"run": name, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "exit": code,
            "load_start": round(load_start, 1), "load_end": round(os.getloadavg()[0], 1), **extra, "said": said}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--installed", type=Path, default=installed_data_folder(),
                        help="the data folder factdebate setup filled (default: the default one)")
    parser.add_argument("--only", action="append", choices=RUNS, help="run only these (repeatable)")
    parser.add_argument("--loop", action="store_true", help="also run the check loop's quick start (long)")
    add_record_flag(parser)
    args = parser.parse_args()
    if not any((args.installed / "models").glob("qwen2.5-coder-1.5b*.gguf")):
        raise SystemExit(f"no offline model in {args.installed}: run factdebate setup first")
    names = args.only or [n for n in RUNS if n != "loop" or args.loop]
    figures: dict[str, Any] = {}
    load = os.getloadavg()[0]
    for name in names:
        result = run_one(name, args.installed)
        print(json.dumps(result), flush=True)
        figures.update({f"{name}_s": result["wall_s"], f"{name}_cpu_s": result["cpu_s"],
                        f"{name}_load": f"{result['load_start']} to {result['load_end']}"})
    if args.record:
        record("guard_first_runs", figures, load=load)


if __name__ == "__main__":
    main()
