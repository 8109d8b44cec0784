"""A pytest plugin that records what each test costs in CPU-seconds, so a cut to the suite can be measured on a
shared machine, where wall time says more about the neighbours than about the change.

    FACTDEBATE_CPU_PROFILE=/tmp/prof .venv/bin/python -m pytest -p benchmarks.pytest_cpu tests/x.py
    .venv/bin/python benchmarks/pytest_cpu.py /tmp/prof [--top 40]

Each process (an xdist worker, or the single one) writes ``<folder>/<worker>.jsonl``: one line per test with
its start and end (epoch seconds: the workers' timelines, to see which one the run ended waiting on), its own
CPU (user + system of the pytest process over setup, call and teardown) and its children's (the subprocesses
it waited for; daemons it left running, such as Ray's, are not in it), and a last line with the worker's
collection CPU. The second command sums them by test, module and worker.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_ENV = "FACTDEBATE_CPU_PROFILE"


_TICK = os.sysconf("SC_CLK_TCK")


def _descendants_cpu() -> float:
    """CPU-seconds of the processes still running under this one (their own and what each reaped), from
    /proc: a server a fixture keeps for a module, or Ray's daemons, are counted while they work."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry)] = int(fields[1])
        cpu[int(entry)] = sum(int(x) for x in fields[11:15]) / _TICK  # utime stime cutime cstime
    children: dict[int, list[int]] = {}
    for pid, up in parent.items():
        children.setdefault(up, []).append(pid)
    total, todo = 0.0, list(children.get(os.getpid(), ()))
    while todo:
        pid = todo.pop()
        total += cpu[pid]
        todo.extend(children.get(pid, ()))
    return total


def _cpu() -> tuple[float, float]:
    """(own, children): this process's CPU, and its children's, reaped or still running."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime + _descendants_cpu()


def _out() -> Path | None:
    folder = os.environ.get(_ENV)
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder) / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl"


def _write(row: dict[str, Any]) -> None:
    if (path := _out()) is not None:
        with path.open("a") as f:
            f.write(json.dumps(row) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    own0, kids0 = _cpu()
    start = time.time()
    yield
    own1, kids1 = _cpu()
    _write({"test": item.nodeid, "start": start, "end": time.time(), "own": round(own1 - own0, 3),
            "children": round(kids1 - kids0, 3)})


def pytest_collection_finish(session: pytest.Session) -> None:
    own, kids = _cpu()
    _write({"collection": True, "own": round(own, 3), "children": round(kids, 3), "end": time.time(),
            "tests": len(session.items)})


def _report(folder: Path, top: int) -> None:
    tests: list[dict[str, Any]] = []
    workers: dict[str, dict[str, float]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        runs = [r for r in rows if "test" in r]
        coll = [r for r in rows if r.get("collection")]
        for r in runs:
            r["worker"] = path.stem
        tests += runs
        if runs:
            workers[path.stem] = {"first": min(r["start"] for r in runs), "last": max(r["end"] for r in runs),
                                  "cpu": sum(r["own"] + r["children"] for r in runs),
                                  "busy": sum(r["end"] - r["start"] for r in runs),
                                  "collection": coll[0]["own"] if coll else 0.0}
    if not tests:
        raise SystemExit(f"no test rows under {folder}")
    begin = min(w["first"] for w in workers.values())
    print(f"{'worker':8} {'tests wall':>10} {'busy s':>7} {'ends at':>8} {'CPU-s':>7} {'collect':>7}")
    for name, w in workers.items():
        n = sum(1 for t in tests if t["worker"] == name)
        print(f"{name:8} {n:10} {w['busy']:7.0f} {w['last'] - begin:8.0f} {w['cpu']:7.0f} {w['collection']:7.1f}")
    print(f"\nslowest {top} by CPU (own + children), with wall:")
    for t in sorted(tests, key=lambda t: -(t["own"] + t["children"]))[:top]:
        print(f"{t['own'] + t['children']:7.1f} {t['end'] - t['start']:7.1f}s  {t['worker']}  {t['test']}")
    print(f"\nslowest {top} by wall:")
    for t in sorted(tests, key=lambda t: t["start"] - t["end"])[:top]:
        print(f"{t['end'] - t['start']:7.1f}s {t['own'] + t['children']:7.1f}  {t['worker']}  {t['test']}")
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for t in tests:
        m = modules[t["test"].split("::")[0]]
        m[0] += t["own"] + t["children"]
        m[1] += t["end"] - t["start"]
        m[2] += 1
    print(f"\nmodules by CPU (top {top}): CPU-s, wall s, tests")
    for name, (cpu, wall, n) in sorted(modules.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{cpu:7.1f} {wall:7.1f} {int(n):4}  {name}")
    total_cpu = sum(t["own"] + t["children"] for t in tests)
    print(f"\npytest_cpu tests={len(tests)} cpu_s={total_cpu:.0f} "
          f"wall_s={max(w['last'] for w in workers.values()) - begin:.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    _report(args.folder, args.top)
