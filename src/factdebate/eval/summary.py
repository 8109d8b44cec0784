"""Reading a run directory back and writing its summary (summary.json for machines, summary.md for people)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from factdebate.batch import latest_records
from factdebate.eval.metrics import compute, outcome_from_record

RESULTS = "results.jsonl"
RUN = "run.json"
SUMMARY_JSON = "summary.json"
SUMMARY_MD = "summary.md"


def summarize(directory: Path, run: dict[str, Any], ids: list[str], *, complete: bool) -> dict[str, Any]:
    """Metrics over the selected samples that have a record (all of them once the run is complete)."""
    records = latest_records(directory / RESULTS)
    outcomes = [outcome_from_record(records[i]) for i in ids if i in records]
    metrics = compute(outcomes, tuple(run["labels"]), seed=run["seed"])
    summary = {**run, "ids": ids, "complete": complete, "missing": len(ids) - len(outcomes),
               "written": datetime.now(UTC).isoformat(timespec="seconds"), "metrics": metrics}
    (directory / SUMMARY_JSON).write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n",
                                          encoding="utf-8")
    (directory / SUMMARY_MD).write_text(markdown(summary), encoding="utf-8")
    return summary


def fmt(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def markdown(summary: dict[str, Any]) -> str:
    m = summary["metrics"]
    lo, hi = m["ci"]["accuracy"]
    flo, fhi = m["ci"]["macro_f1"]
    lines = [
        f"# {summary['name']}: {summary['method']} on {summary['dataset']}",
        "",
        f"- samples: {m['n']} (limit {summary.get('limit')}, seed {summary['seed']})"
        + ("" if summary["complete"] else f" — INCOMPLETE, {summary['missing']} not run yet"),
        f"- accuracy (exact match): **{fmt(m['accuracy'])}** ({m['correct']}/{m['n']}), "
        f"95% bootstrap CI [{fmt(lo)}, {fmt(hi)}]",
        f"- macro-F1: **{fmt(m['macro_f1'])}** over {', '.join(m['macro_f1_labels'])}, "
        f"95% CI [{fmt(flo)}, {fmt(fhi)}]",
        f"- unparsed (counted wrong): {len(m['unparsed'])}; errored (counted wrong): {len(m['errored'])}",
        f"- decided by: {', '.join(f'{k} {v}' for k, v in sorted(m['decided_by'].items()))}",
        "",
        "| class | precision | recall | F1 | support | predicted |",
        "|---|---|---|---|---|---|",
    ]
    for label, row in m["per_class"].items():
        lines.append(f"| {label} | {fmt(row['precision'])} | {fmt(row['recall'])} | {fmt(row['f1'])} | "
                     f"{row['support']} | {row['predicted']} |")
    conf = m["confusion"]
    lines += ["", "Confusion (rows gold, columns predicted):", "",
              "| gold \\ predicted | " + " | ".join(conf["predicted"]) + " |",
              "|---|" + "---|" * len(conf["predicted"])]
    for gold, row in zip(conf["gold"], conf["matrix"], strict=True):
        lines.append(f"| {gold} | " + " | ".join(str(v) for v in row) + " |")
    lines += ["", "Cost per claim (finished samples):", "", "| | mean | p95 | total |", "|---|---|---|---|"]
    for name, row in m["cost"].items():
        digits = 2 if name == "seconds" else 1
        lines.append(f"| {name} | {fmt(row['mean'], digits)} | {fmt(row['p95'], digits)} | "
                     f"{fmt(row['total'], digits)} |")
    if m["by_group"]:
        lines += ["", "| group | n | accuracy |", "|---|---|---|"]
        lines += [f"| {g} | {row['n']} | {fmt(row['accuracy'])} |" for g, row in m["by_group"].items()]
    if m["unparsed"]:
        lines += ["", "Unparsed: " + ", ".join(m["unparsed"])]
    if m["errored"]:
        lines += ["", "Errored:"] + [f"- {i}: {msg}" for i, msg in m["errored"].items()]
    return "\n".join(lines) + "\n"
