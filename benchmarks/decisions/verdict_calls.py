"""Calls and tokens per claim of two evaluation runs, e.g. before/after ``llm.one_call_verdict``:

    FACTDEBATE_LLM__ONE_CALL_VERDICT=false factdebate eval --method tool-mad --dataset countries --limit 3 \\
        --no-cache -o runs/before
    factdebate eval --method tool-mad --dataset countries --limit 3 --no-cache -o runs/after
    python benchmarks/decisions/verdict_calls.py runs/before runs/after

Only claims present in both runs and without errors are compared."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def load(run: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    return {r["id"]: r for r in rows if not r.get("error")}


def turns(row: dict[str, Any]) -> list[dict[str, Any]]:
    found = [t for r in row.get("rounds") or [] for t in r["turns"]]
    return found + ([row["judge"]] if row.get("judge") else [])


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    n = len(rows) or 1
    labelled = [t for r in rows for t in turns(r) if t.get("label")]
    return {
        "claims": len(rows),
        "llm calls / claim": sum(r["usage"]["llm_calls"] for r in rows) / n,
        "prompt tokens / claim": sum(r["usage"]["prompt_tokens"] for r in rows) / n,
        "completion tokens / claim": sum(r["usage"]["completion_tokens"] for r in rows) / n,
        "seconds / claim": sum(r["usage"]["seconds"] for r in rows) / n,
        "label re-asks": sum(t.get("parse_retries", 0) for r in rows for t in turns(r)),
        "labelled turns": len(labelled),
        "labels from a held answer": sum(bool(t.get("label_constrained")) for t in labelled),
        "unparsed turns": sum(r.get("unparsed_turns", 0) for r in rows),
        "unparsed verdicts": sum(r.get("label") is None for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="*", default=["runs/before", "runs/after"],
                        help="run folders, each with a results.jsonl (default: runs/before runs/after)")
    paths = parser.parse_args().runs
    runs = [load(Path(p)) for p in paths]
    common = sorted(set.intersection(*(set(r) for r in runs)))
    table = [summary([run[i] for i in common]) for run in runs]
    print(f"{'':28}" + "".join(f"{Path(p).name:>14}" for p in paths))
    for key in table[0]:
        print(f"{key:28}" + "".join(f"{t[key]:>14.1f}" for t in table))


if __name__ == "__main__":
    main()
