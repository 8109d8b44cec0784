"""The golden check's records made both ways: each command line as the console script in a process of its own
(tests/golden/record.py, what recording does) and in this one process after the other (what
tests/golden/test_golden.py does, where the records of several methods share a pytest worker). Prints each
file's CPU-seconds both ways and fails unless every file is byte for byte the same.

    .venv/bin/python benchmarks/decisions/golden_in_process.py [--only verify-cot,eval-dpd]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.golden.record import NAMES, _run, indexed_folder, record_one


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def here(args: list[str], env: dict[str, str]) -> None:
    from factdebate.cli.main import run

    before = dict(os.environ)
    os.environ.update(env)
    try:
        code = run(args)
    finally:
        os.environ.clear()
        os.environ.update(before)
    if code != 0:
        raise RuntimeError(f"factdebate {' '.join(args)} exited {code}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated names of record files (default: all)")
    names = parser.parse_args().only
    chosen = names.split(",") if names else list(NAMES)
    work = Path(tempfile.mkdtemp(prefix="golden-both-"))
    os.environ["FACTDEBATE_DATA_DIR"] = str(work / "scratch-data")
    indexed = work / "indexed"
    indexed_folder(indexed)
    totals = {"process": 0.0, "here": 0.0}
    same = True
    for name in chosen:
        spent = {}
        for way, runner in (("process", _run), ("here", here)):
            start = cpu()
            record_one(name, work / way, indexed, work / f"scratch-{way}", run=runner)
            spent[way] = cpu() - start
            totals[way] += spent[way]
        equal = (work / "process" / f"{name}.json").read_bytes() == (work / "here" / f"{name}.json").read_bytes()
        same &= equal
        print(f"{name:28} process {spent['process']:5.1f} CPU-s  in-process {spent['here']:5.1f}  "
              f"{'same' if equal else 'DIFFERENT'}", flush=True)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"golden_in_process files={len(chosen)} process_cpu_s={totals['process']:.1f} "
          f"here_cpu_s={totals['here']:.1f} same={same} load={load} work={work}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
