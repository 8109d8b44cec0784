"""``factdebate compare RUN_DIR... -o OUT``: which method should I use? Runs on the same samples, compared
with paired statistics and cost; written as compare.json (for machines), compare.md (for people) and plots.

Every number is recomputed over the compared samples with one bootstrap seed; errored, unparsed and missing
samples count as wrong (eval/compare/load.py ``denominator``). The same folders always give the same bytes."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

from factdebate.core.pathcheck import output_folder
from factdebate.eval.compare.cost import cost_ratio
from factdebate.eval.compare.load import Denominator, LoadedRun, common_samples, denominator, load_all
from factdebate.eval.compare.paired import cohen_kappa, compare_pair
from factdebate.eval.compare.verdict import front_marks, mark_pairs, sentence
from factdebate.eval.pricing import Price, dollars, dollars_by_model, run_models, sum_by_model, unused_prices
from factdebate.eval.report.metrics import INTERVALS, Outcome, compute, paired_macro_f1
from factdebate.eval.report.summary import base_rate_warning
from factdebate.util.errors import InputError
from factdebate.util.textsafe import safe_value

COMPARE_JSON = "compare.json"
COMPARE_MD = "compare.md"
COST_AXES = ("tokens", "calls", "seconds", "dollars")
PER_CORRECT = ("llm_calls", "prompt_tokens", "completion_tokens", "reasoning_tokens", "tool_calls", "seconds")
# Bootstrap resamples: fewer make the intervals noise; each one holds a copy of the samples' answers, so a
# billion exhausts the memory. 100,000 already gives intervals stable to the third decimal.
MIN_RESAMPLES, MAX_RESAMPLES = 100, 100_000


def compare_runs(directories: list[Path], output: Path, *, intersection: bool = False, seed: int = 0,
                 resamples: int = 1000, prices: dict[str, Price] | None = None, cost_axis: str | None = None,
                 shared_options: list[str] | None = None,
                 warn: Callable[[str], None] = lambda line: None) -> list[Path]:
    """Write the comparison into ``output`` (after every check); returns the files written."""
    from factdebate.eval.compare import plots as compare_plots
    from factdebate.eval.compare.markdown import markdown

    check_values(output, seed=seed, resamples=resamples)
    runs = load_all(directories)
    ids, note = common_samples(runs, intersection=intersection)
    counted = denominator(runs, ids, intersection=intersection)
    output.mkdir(parents=True, exist_ok=True)
    data = build(runs, counted, output, note=note, seed=seed, resamples=resamples, prices=prices or {},
                 cost_axis=cost_axis, shared_options=shared_options)
    written = compare_plots.write_all(data, output)
    data["plots"] = [p.name for p in written]
    models = {m for row in data["runs"] for m in [*row["models"], *(row["cost"].get("by_model") or {})]}
    for name in unused_prices(prices or {}, models):
        warn(f"--price {name}: no compared run used this model (they used {', '.join(sorted(models)) or 'none'}); "
             "it prices nothing")
    json_file, md_file = output / COMPARE_JSON, output / COMPARE_MD
    json_file.write_text(json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
    md_file.write_text(markdown(data), encoding="utf-8")
    return [md_file, json_file, *written]


def check_values(output: Path, *, seed: int, resamples: int) -> None:
    """What the comparison is asked (the seed, ``output`` a folder), checked before any work."""
    if seed < 0:
        raise InputError(f"--seed {seed}: the bootstrap seed must be 0 or more")
    if not MIN_RESAMPLES <= resamples <= MAX_RESAMPLES:
        raise InputError(f"--resamples {resamples}: give {MIN_RESAMPLES} to {MAX_RESAMPLES:,}")
    output_folder(output, "--output")


def build(runs: list[LoadedRun], counted: Denominator, output: Path, *, note: str | None, seed: int,
          resamples: int, prices: dict[str, Price], cost_axis: str | None,
          shared_options: list[str] | None) -> dict[str, Any]:
    labels = _labels(runs)
    ids = counted.ids
    filled = _filled(runs, ids)
    rows = [_run_row(run, filled[run.name], ids, labels, output, seed, resamples, prices) for run in runs]
    axis = cost_axis or ("dollars" if all(r["cost"]["dollars_per_claim"] is not None for r in rows) else "tokens")
    for row in rows:
        row["cost"]["axis_per_claim"] = _axis_value(row["cost"], axis)
    pairs = [_pair_row(a.name, b.name, filled[a.name], filled[b.name], labels, seed, resamples)
             for a, b in combinations(runs, 2)]
    mark_pairs(pairs)
    by_name = {r.name: r for r in runs}
    for pair in pairs:
        models = (run_models(by_name[pair["a"]].data.settings), run_models(by_name[pair["b"]].data.settings))
        pair["cost_ratio"] = {"axis": axis, **cost_ratio(filled[pair["a"]], filled[pair["b"]], axis, prices or {},
                                                         models, seed=seed, resamples=resamples)}
    front = pareto_front(rows)
    first = runs[0].summary
    nulls: dict[str, str] = {}
    data = {
        "dataset": first.get("dataset"), "labels": list(labels),
        "samples": {"n": len(ids), "draw_sha256": runs[0].draw_sha256 if note is None else None,
                    "intersection": note is not None and note.startswith("compared on the intersection"),
                    "note": note, "missing": counted.missing, "denominator": counted.sentence,
                    "left_out": counted.dropped},
        "bootstrap": {"seed": seed, "resamples": resamples, "confidence": 0.95},
        "intervals": {**INTERVALS, "paired differences": "paired percentile bootstrap"},
        "settings": settings_comparison(runs, shared_options),
        "runs": rows,
        "pairs": pairs,
        "pareto": {"cost_axis": axis, "front": front, **front_marks(rows, front, pairs)},
        "verdict": sentence(pairs, len(ids)),
        "prices": {model: [p.prompt, p.completion] for model, p in sorted((prices or {}).items())},
        "disagreements": disagreements(runs, ids, output),
    }
    safe = safe_value(data, nulls)
    if nulls:
        safe["null_reasons"] = nulls
    return dict(safe)


def _labels(runs: list[LoadedRun]) -> tuple[str, ...]:
    labels: list[str] = []
    for run in runs:
        labels += [label for label in run.summary.get("labels") or [] if label not in labels]
    return tuple(labels)


def _link(run: LoadedRun, output: Path) -> str:
    """The run's folder as seen from the comparison's folder (the links in compare.md)."""
    return Path(os.path.relpath(run.directory.resolve(), output.resolve())).as_posix()


def _filled(runs: list[LoadedRun], ids: list[str]) -> dict[str, list[Outcome]]:
    """Each run's outcome of every compared sample (MISSING without a record), with the gold label."""
    gold = {i: next((r.outcomes[i].gold for r in runs if i in r.outcomes), UNKNOWN_GOLD) for i in ids}
    return {r.name: [r.outcomes.get(i) or Outcome(i, gold[i], None, "missing") for i in ids] for r in runs}


UNKNOWN_GOLD = "?"  # a sample no run holds a record for: wrong in every run, in no class (as reproduce counts it)


def _run_row(run: LoadedRun, outcomes: list[Outcome], ids: list[str], labels: tuple[str, ...], output: Path,
             seed: int, resamples: int, prices: dict[str, Price]) -> dict[str, Any]:
    m = compute(outcomes, labels, seed=seed, resamples=resamples)
    models = run_models(run.data.settings)
    totals = m["cost"]
    usage_n = sum(1 for o in outcomes if o.usage is not None)
    # An errored sample's record carries what it spent before failing (eval/runner.py spent_fields), counted
    # in every figure here; one written before that carries none and is in no figure: say how many, beside.
    unpriced_failures = sum(1 for o in outcomes if o.status == "error" and o.usage is None)
    cost: dict[str, Any] = {"claims_with_usage": usage_n, "errored_without_usage": unpriced_failures,
                            "per_claim": {k: v["mean"] for k, v in totals.items()},
                            "p95": {k: v["p95"] for k, v in totals.items()},
                            "total": {k: v["total"] for k, v in totals.items()},
                            "per_correct": {k: (totals[k]["total"] / m["correct"] if m["correct"] else None)
                                            for k in PER_CORRECT}}
    with_usage = [o for o in outcomes if o.usage is not None]
    if all(o.usage_by_model is not None for o in with_usage):
        by_model = sum_by_model(o.usage_by_model or {} for o in with_usage)
        spent, each, why = dollars_by_model(by_model, prices)
        cost["by_model"] = {model: {**used, "dollars": each[model]} for model, used in by_model.items()}
        cost["dollars_basis"] = "per model"
    else:  # recorded before usage was kept per model: its totals, at one price or none
        spent, why = dollars(totals["prompt_tokens"]["total"], totals["completion_tokens"]["total"], models, prices)
        cost["by_model"] = None
        cost["dollars_basis"] = "run totals"
    cost["dollars"] = spent
    cost["dollars_per_claim"] = spent / usage_n if spent is not None and usage_n else None
    cost["dollars_per_correct"] = spent / m["correct"] if spent is not None and m["correct"] else None
    cost["dollars_note"] = why
    return {"name": run.name, "method": run.summary.get("method"), "directory": _link(run, output),
            "models": models, "complete": run.summary.get("complete", True),
            "missing": [i for i in ids if i not in run.outcomes],
            "n": m["n"], "correct": m["correct"], "accuracy": m["accuracy"], "macro_f1": m["macro_f1"],
            "macro_f1_labels": m["macro_f1_labels"],
            "ci": {"accuracy": m["ci"]["accuracy"], "macro_f1": m["ci"]["macro_f1"]},
            "per_class": m["per_class"], "confusion": m["confusion"],
            "unparsed": m["unparsed"], "errored": m["errored"], "decided_by": dict(sorted(m["decided_by"].items())),
            "deviations": [d.get("key") for d in run.summary.get("deviations") or []],
            # the warning the run's own summary.md gives (over its own samples), so compare.md keeps it
            "base_rate_warning": base_rate_warning(run.summary.get("metrics") or {}),
            "cost": cost}


def _axis_value(cost: dict[str, Any], axis: str) -> float | None:
    per = cost["per_claim"]
    if axis == "dollars":
        return cost["dollars_per_claim"]
    value = {"tokens": per["prompt_tokens"] + per["completion_tokens"], "calls": per["llm_calls"],
             "seconds": per["seconds"]}[axis]
    return None if value is None or math.isnan(value) else float(value)


def _pair_row(a: str, b: str, oa: list[Outcome], ob: list[Outcome], labels: tuple[str, ...], seed: int,
              resamples: int) -> dict[str, Any]:
    failed = sum(1 for x, y in zip(oa, ob, strict=True) if x.status != "ok" or y.status != "ok")
    pair = compare_pair(a, b, [o.correct for o in oa], [o.correct for o in ob], [o.shown for o in oa],
                        [o.shown for o in ob], failed, seed=seed, resamples=resamples)
    f1_difference, f1_interval = paired_macro_f1(oa, ob, labels, seed=seed, resamples=resamples)
    # κ is agreement on labels: over the samples both runs answered with one. Two runs that both time out on
    # the same samples do not agree about the claims; with failures as answers that would count as agreement.
    labelled = [(x.shown, y.shown) for x, y in zip(oa, ob, strict=True) if x.status == "ok" and y.status == "ok"]
    return {"a": pair.a, "b": pair.b, "n": pair.n, "both_right": pair.both_right, "only_a": pair.only_a,
            "only_b": pair.only_b, "both_wrong": pair.both_wrong, "difference": pair.difference,
            "ci": list(pair.interval), "macro_f1_difference": f1_difference, "macro_f1_ci": list(f1_interval),
            "mcnemar_p": pair.mcnemar_p, "kappa": cohen_kappa([x for x, _ in labelled], [y for _, y in labelled]),
            "kappa_n": len(labelled), "kappa_failures_as_answers": pair.kappa, "failed_either": pair.failed_either}


def pareto_front(rows: list[dict[str, Any]]) -> list[str]:
    """The runs with a cost figure that no other run beats on both cost and accuracy."""
    known = [r for r in rows if r["cost"]["axis_per_claim"] is not None and r["accuracy"] is not None]

    def dominated(r: dict[str, Any]) -> bool:
        cost, acc = r["cost"]["axis_per_claim"], r["accuracy"]
        return any(s["cost"]["axis_per_claim"] <= cost and s["accuracy"] >= acc
                   and (s["cost"]["axis_per_claim"] < cost or s["accuracy"] > acc) for s in known)

    return [r["name"] for r in known if not dominated(r)]


def disagreements(runs: list[LoadedRun], ids: list[str], output: Path) -> list[dict[str, Any]]:
    """The samples on which the runs' answers differ, with the gold label, each answer and its record's place."""
    rows = []
    claims: dict[str, str] = {}
    for run in reversed(runs):  # the first run's text wins; a run that errored early may lack it
        claims.update({str(rec.get("id")): str(rec["claim"]) for rec in run.data.records if rec.get("claim")})
    for sample_id in ids:
        held = [r for r in runs if sample_id in r.outcomes]
        if len(held) < 2 or len({r.outcomes[sample_id].shown for r in held}) < 2:
            continue
        first = held[0]
        claim = claims.get(sample_id, "")
        rows.append({"id": sample_id, "gold": first.outcomes[sample_id].gold, "claim": claim,
                     "answers": {r.name: {"answer": r.outcomes[sample_id].shown,
                                          "correct": r.outcomes[sample_id].correct,
                                          "record": f"{_link(r, output)}/results.jsonl#L{r.lines.get(sample_id, 0)}"}
                                 for r in held}})
    return rows


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(_flat(value, name + "."))
        else:
            out[name] = value
    return out


def settings_comparison(runs: list[LoadedRun], shared_options: list[str] | None) -> dict[str, Any]:
    """The settings outside the methods' own sections: those alike in every run, and those that differ."""
    flats = [_flat({k: v for k, v in r.data.settings.items() if k not in ("methods", "method")}) for r in runs]
    keys = sorted(set().union(*flats))
    differ = {key: {r.name: f.get(key) for r, f in zip(runs, flats, strict=True)} for key in keys
              if len({json.dumps(f.get(key), sort_keys=True) for f in flats}) > 1}
    same = {key: flats[0].get(key) for key in keys if key not in differ}
    evidence = {r.name: (r.summary.get("evidence") or {}).get("used") for r in runs}
    return {"same": same, "differ": differ, "evidence": evidence,
            **({"shared_options": shared_options} if shared_options is not None else {})}
