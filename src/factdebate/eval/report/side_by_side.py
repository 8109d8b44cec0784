"""``factdebate report DIR... --output OUT``: the runs side by side (report.md) and the Tool-MAD paper's plots
(Figs. 3, 8 and 11: accuracy, rounds, scores) and cost per claim; runs without scores are left out of those."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

from factdebate.core.pathcheck import output_folder
from factdebate.core.schema import upgrade
from factdebate.eval.report.run_folder import read_summary
from factdebate.eval.report.summary import RESULTS, SUMMARY_JSON, fmt, latest_records
from factdebate.settings.legacy import upgrade_settings_data
from factdebate.util.errors import InputError


@dataclass
class RunData:
    directory: Path
    summary: dict[str, Any]
    records: list[dict[str, Any]]

    @property
    def name(self) -> str:
        return str(self.summary.get("name") or self.directory.name)

    @property
    def settings(self) -> dict[str, Any]:
        """The run's settings with old names moved (runs written before the method plug-ins)."""
        return upgrade_settings_data(dict(self.summary.get("settings") or {}))

    @property
    def toolmad(self) -> dict[str, Any]:
        return dict((self.settings.get("methods") or {}).get("tool-mad") or {})

    @property
    def metrics(self) -> dict[str, Any]:
        return dict(self.summary["metrics"])


def load_run(directory: Path) -> RunData:
    """A run folder's summary and records, read within bounds (core/runfiles.py)."""
    summary = read_summary(directory)
    if summary is None:
        raise InputError(f"{directory} has no {SUMMARY_JSON}: run `factdebate eval` there first")
    latest = latest_records(directory / RESULTS)  # streamed and bounded line by line (run/results_file.py)
    # A run re-summarised with a smaller --limit keeps its other records: plot only the summarised samples.
    ids = summary.get("ids")
    records = [latest[i] for i in ids if i in latest] if ids is not None else list(latest.values())
    upgraded = []
    for record in records:
        try:
            if "gold" not in record:
                raise InputError("it has no gold label: it is not a record `factdebate eval` wrote")
            upgraded.append(upgrade(record))
        except InputError as exc:
            raise InputError(f"{directory / RESULTS}: the record of sample {str(record.get('id'))[:64]!r}: {exc}") \
                from None
    return RunData(directory, summary, upgraded)


def _table(runs: list[RunData]) -> list[str]:
    lines = ["| run | method | dataset | n | accuracy [95% CI] | macro-F1 | unparsed | errored | "
             "LLM calls/claim (p95) | of which cached | tokens/claim (reasoning) | tool calls/claim | s/claim (p95) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for run in runs:
        m, c = run.metrics, run.metrics["cost"]
        lo, hi = m["ci"]["accuracy"]
        tokens = fmt(c["prompt_tokens"]["mean"] + c["completion_tokens"]["mean"], 0)
        reasoning = c.get("reasoning_tokens", {}).get("mean") or 0  # runs written before it was counted: none
        if reasoning:
            tokens += f" ({fmt(reasoning, 0)})"
        lines.append(
            f"| {run.name} | {run.summary['method']} | {run.summary['dataset']} | {m['n']} | "
            f"{fmt(m['accuracy'])} [{fmt(lo)}, {fmt(hi)}] | {fmt(m['macro_f1'])} | {len(m['unparsed'])} | "
            f"{len(m['errored'])} | {fmt(c['llm_calls']['mean'], 1)} ({fmt(c['llm_calls']['p95'], 0)}) | "
            f"{fmt(c.get('cached_calls', {}).get('mean'), 1)} | "
            f"{tokens} | {fmt(c['tool_calls']['mean'], 1)} | {fmt(c['seconds']['mean'], 1)} "
            f"({fmt(c['seconds']['p95'], 1)}) |")
    return lines


def _differing(runs: list[RunData]) -> str:
    """Which Tool-MAD settings differ between runs, to label the rounds plot's lines."""
    keys = ["agents", "query_formulation", "scoring", "scoring_variant", "threshold_on"]
    return ", ".join(k for k in keys if len({json.dumps(r.toolmad.get(k)) for r in runs}) > 1)


def _rounds_series(runs: list[RunData]) -> tuple[dict[str, list[tuple[int, float]]], str, str] | None:
    toolmad = [r for r in runs if r.summary["method"] == "tool-mad"]
    if not toolmad:
        return None
    rounds = {r.toolmad["rounds"] for r in toolmad}
    if len(rounds) > 1:  # Fig. 8: one run per maximum number of rounds
        varying = _differing(toolmad).split(", ") if _differing(toolmad) else []
        series: dict[str, list[tuple[int, float]]] = {}
        for r in toolmad:
            label = r.summary["dataset"] + "".join(
                f", {k}={json.dumps(r.toolmad.get(k))}" for k in varying)
            series.setdefault(label, []).append((r.toolmad["rounds"], _nan(r.metrics["accuracy"])))
        return series, "Accuracy by maximum number of rounds T", "rounds T"
    # One T only: accuracy of the claims grouped by the round in which their debate ended.
    series = {}
    for r in toolmad:
        by_round: dict[int, list[bool]] = {}
        for rec in r.records:
            if not rec.get("error") and rec.get("rounds"):
                by_round.setdefault(len(rec["rounds"]), []).append(bool(rec.get("correct")))
        series[r.name] = [(k, sum(v) / len(v)) for k, v in sorted(by_round.items())]
    return series, "Accuracy by the round the debate ended in", "rounds used"


def _turn_correct(turn: dict[str, Any], record: dict[str, Any], label_map: dict[str, str]) -> bool | None:
    if turn.get("label") is None:
        return None
    return label_map.get(turn["label"], turn["label"]) == record.get("gold")


def _scores(runs: list[RunData]) -> tuple[list[float], list[float], dict[str, dict[str, float | None]]]:
    faith: list[float] = []
    relevance: list[float] = []
    grouped: dict[str, dict[str, list[float]]] = {"correct": {}, "incorrect": {}}
    for run in runs:
        label_map = run.summary.get("label_map") or {}
        for rec in run.records:
            for rnd in rec.get("rounds") or []:
                for turn in rnd.get("turns", []):
                    scores = turn.get("scores") or {}
                    if scores.get("faithfulness") is not None:
                        faith.append(scores["faithfulness"])
                    if scores.get("answer_relevance") is not None:
                        relevance.append(scores["answer_relevance"])
            final = (rec.get("rounds") or [{}])[-1].get("turns", [])
            for turn in final:  # Fig. 11: the answers of the last round, right or wrong against gold
                correct = _turn_correct(turn, rec, label_map)
                if correct is None:
                    continue
                bucket = grouped["correct" if correct else "incorrect"]
                for key, name in (("faithfulness", "faithfulness"), ("answer_relevance", "answer relevance")):
                    value = (turn.get("scores") or {}).get(key)
                    if value is not None:
                        bucket.setdefault(name, []).append(value)
    means = {group: {name: (mean(values) if values else None) for name, values in metrics.items()}
             for group, metrics in grouped.items()}
    return faith, relevance, means


def build_report(directories: list[Path], output: Path) -> list[Path]:
    from factdebate.eval.report import plots  # matplotlib (0.4 CPU-s): only a report that draws pays for it

    if not directories:
        raise InputError("give at least one run directory")
    output_folder(output, "--output")
    runs = [load_run(d) for d in directories]
    if len({r.name for r in runs}) < len(runs):  # the same grid on two datasets: say which is which
        for run in runs:
            run.summary["name"] = f"{short_dataset(run.summary['dataset'])}/{run.name}"
    output.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    notes: list[str] = []
    names = [r.name for r in runs]
    acc = [_nan(r.metrics["accuracy"]) for r in runs]
    ci = [(_nan(r.metrics["ci"]["accuracy"][0]), _nan(r.metrics["ci"]["accuracy"][1])) for r in runs]
    written.append(plots.accuracy_by_run(names, acc, ci, output / "accuracy_by_run.png"))
    rounds = _rounds_series(runs)
    if rounds:
        series, title, xlabel = rounds
        written.append(plots.accuracy_by_rounds(series, output / "accuracy_by_rounds.png", title=title,
                                                xlabel=xlabel))
    else:
        notes.append("No Tool-MAD run: no accuracy-by-rounds plot.")
    faith, relevance, means = _scores(runs)
    if faith or relevance:
        toolmad: dict[str, Any] = next(
            (r.toolmad for r in runs if r.summary["method"] == "tool-mad"), {})
        thresholds = (float(toolmad.get("faithfulness_threshold", 0.7)),
                      float(toolmad.get("relevance_threshold", 0.8)))
        written.append(plots.score_distributions(faith, relevance, thresholds, output / "score_distributions.png"))
        written.append(plots.scores_by_correctness(means, output / "scores_correct_vs_incorrect.png"))
    else:
        notes.append("No scored answers (faithfulness / answer relevance) in these runs: no score plots.")
    costs = [r.metrics["cost"] for r in runs]
    calls = [(_num(c["llm_calls"]["mean"]), _num(c["llm_calls"]["p95"])) for c in costs]
    tokens = [(_num(c["prompt_tokens"]["mean"] + c["completion_tokens"]["mean"]),
               _num(c["prompt_tokens"]["p95"] + c["completion_tokens"]["p95"])) for c in costs]
    written.append(plots.cost_per_claim(names, calls, tokens, output / "cost_per_claim.png"))
    md = ["# Evaluation report", "", *_table(runs), "",
          "Unparsed and errored samples count as wrong. Cached calls were answered from the response cache "
          "(no model time), so seconds per claim understate a fresh run when they are many. Token p95 in the "
          "cost plot is the sum of the prompt and completion p95s (an upper bound).", ""]
    md += [f"- {n}" for n in notes]
    if means.get("correct") or means.get("incorrect"):
        md += ["", "Mean scores of last-round answers: " + "; ".join(
            f"{group}: " + ", ".join(f"{k} {fmt(v)}" for k, v in vals.items()) for group, vals in means.items()
            if vals)]
    md += [""] + [f"![{p.stem}]({p.name})" for p in written]
    report = output / "report.md"
    report.write_text("\n".join(md) + "\n", encoding="utf-8")
    return [report, *written]


def short_dataset(spec: str) -> str:
    """``countries`` stays as it is; ``fever:/long/path/dev.jsonl`` becomes ``fever:dev.jsonl``."""
    kind, sep, path = spec.partition(":")
    return f"{kind}:{Path(path).name}" if sep else spec


def _nan(value: float | None) -> float:
    """summary.json writes a metric it could not compute as null; a plot shows it as a gap."""
    return math.nan if value is None else float(value)


def _num(value: float | None) -> float:
    return 0.0 if value is None or math.isnan(value) else float(value)
