"""Where the test suite's time goes, so a change can see what it costs the next person waiting on `make test`.

Runs ``scripts/test.sh``'s pytest step (the same workers, groups and network guard; lint and types are
not run) with a JUnit report, or reads a report written before, then prints the slowest tests, the time per
test folder, and the totals: wall time, the sum of the tests' own times (what one process would need, less
collection), and the machine's load average before and after (the machine is often shared: a figure taken
under load is not comparable with one taken idle).

    .venv/bin/python benchmarks/test_suite.py [--top 60] [--workers 3] [-- PYTEST ARGS]
    .venv/bin/python benchmarks/test_suite.py --report old.xml        # read a report instead of running
    .venv/bin/python benchmarks/test_suite.py --fresh-clone           # `make test` in a new clone of HEAD

``--fresh-clone`` times what the budget is about (docs/performance.md): ``git clone`` of this repository's HEAD
into a temporary folder, then its ``make test`` (setup with the pip cache as it is, lint, types, tsc, pytest),
with a data folder of its own; the clone's pytest writes the report read here.

Last line: ``test_suite wall_s=… tests_s=… tests=… failed=… workers=… load=…``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_suite(report: Path, workers: str, extra: list[str]) -> tuple[float, str]:
    """Wall seconds of the pytest step of scripts/test.sh (lint and types skipped), and the loads."""
    env = {**os.environ, "FACTDEBATE_TEST_WORKERS": workers, "FACTDEBATE_TEST_ONLY_PYTEST": "1"}
    before = load()
    start = time.perf_counter()
    subprocess.run([str(ROOT / "scripts" / "test.sh"), "-p", "no:cacheprovider", f"--junitxml={report}", *extra],
                   cwd=ROOT, env=env, check=False)
    return time.perf_counter() - start, f"{before} -> {load()}"


def run_fresh_clone(report: Path) -> tuple[float, str]:
    """Wall seconds of ``make test`` in a new clone of HEAD (its own .venv and data folder), and the loads."""
    work = Path(tempfile.mkdtemp(prefix="test-suite-clone-"))
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(work / "clone")], check=True)
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(work / "data"),
           "PYTEST_ADDOPTS": f"{os.environ.get('PYTEST_ADDOPTS', '')} -p no:cacheprovider --junitxml={report}"}
    before = load()
    start = time.perf_counter()
    try:
        subprocess.run(["make", "test"], cwd=work / "clone", env=env, check=False)
        return time.perf_counter() - start, f"{before} -> {load()}"
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the clone's .venv alone is about 2 GB


def read_report(report: Path) -> list[tuple[str, float, str]]:
    """(test id, seconds, outcome) per test; setup and teardown are inside a test's time in JUnit."""
    rows: list[tuple[str, float, str]] = []
    for case in ET.parse(report).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")
        classes: list[str] = []  # a test class's name follows its module's in "classname"
        while parts and parts[-1][:1].isupper():
            classes.insert(0, parts.pop())
        module = "/".join(parts)
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        test = "::".join([*classes, case.get("name") or ""])
        rows.append((f"{module}.py::{test}", float(case.get("time") or 0), outcome))
    return rows


def folder_of(test_id: str) -> str:
    parts = test_id.split("::")[0].split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=60, help="how many of the slowest tests to list")
    parser.add_argument("--workers", default=os.environ.get("FACTDEBATE_TEST_WORKERS", "3"),
                        help="pytest-xdist workers (0: one process)")
    parser.add_argument("--report", type=Path, help="a JUnit report to read instead of running the suite")
    parser.add_argument("--fresh-clone", action="store_true",
                        help="time `make test` (setup, lint, types, pytest) in a new clone of HEAD")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = parser.parse_args()
    wall, loads, workers = None, "", args.workers
    if args.fresh_clone:
        report, workers = Path(tempfile.mkdtemp(prefix="test-suite-")) / "junit.xml", "make-test"
        wall, loads = run_fresh_clone(report)
    elif args.report is None:
        report = Path(tempfile.mkdtemp(prefix="test-suite-")) / "junit.xml"
        wall, loads = run_suite(report, args.workers, args.pytest_args)
    else:
        report, workers = args.report, "?"
    if not report.is_file():
        sys.exit(f"no JUnit report at {report}: pytest did not run (see the output above)")
    rows = read_report(report)
    rows.sort(key=lambda r: r[1], reverse=True)
    total = sum(r[1] for r in rows)
    print(f"\nslowest {min(args.top, len(rows))} of {len(rows)} tests (seconds, setup and teardown included):")
    for test_id, seconds, outcome in rows[:args.top]:
        print(f"{seconds:8.1f}  {test_id}" + ("" if outcome == "passed" else f"  [{outcome}]"))
    top = sum(r[1] for r in rows[:args.top])
    print(f"{top:8.1f}  the {args.top} slowest together; the other {len(rows) - args.top}: {total - top:.1f}")
    per_folder: dict[str, list[float]] = defaultdict(list)
    for test_id, seconds, _ in rows:
        per_folder[folder_of(test_id)].append(seconds)
    print("\nper folder (tests, seconds):")
    for folder, times in sorted(per_folder.items(), key=lambda kv: -sum(kv[1])):
        print(f"{sum(times):8.1f}  {len(times):5d}  {folder}")
    failed = sum(1 for r in rows if r[2] in ("failure", "error"))
    wall_text = f"{wall:.0f}" if wall is not None else "?"
    print(f"\ntest_suite wall_s={wall_text} tests_s={total:.0f} tests={len(rows)} failed={failed} "
          f"workers={workers} load={loads or load()}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
