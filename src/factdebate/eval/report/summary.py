"""Reading a run directory back and writing its summary (summary.json for machines, summary.md for people)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from factdebate.core.deviations import Deviation
from factdebate.eval.report import two_labels
from factdebate.eval.report.metrics import ERROR, UNPARSED, Outcome, compute, outcome_from_record
from factdebate.eval.report.reply_counts import counts_text, lost_warning, reply_counts
from factdebate.run.results_file import latest_records
from factdebate.util.textsafe import safe_value

RESULTS = "results.jsonl"
RUN = "run.json"
SUMMARY_JSON = "summary.json"
SUMMARY_MD = "summary.md"
# A run whose predictions are almost all one class measures the base rate, not the method.
BASE_RATE_SHARE = 0.9
BASE_RATE_MIN_PREDICTIONS = 5
EMBEDDED = ("llama-cpp:builtin", "scripted:")  # the models whose verdicts are near chance by design


def summarize(directory: Path, run: dict[str, Any], ids: list[str], *, complete: bool) -> dict[str, Any]:
    """Metrics over the selected samples that have a record (all of them once the run is complete)."""
    records = latest_records(directory / RESULTS)
    outcomes = [outcome_from_record(records[i]) for i in ids if i in records]
    metrics = compute(outcomes, tuple(run["labels"]), seed=run["seed"])
    metrics["base_rate"] = base_rate(metrics)
    if metrics["base_rate"] is not None:
        metrics["base_rate"]["embedded_model"] = embedded_model(run.get("settings") or {})
        metrics["base_rate"]["scripted_model"] = scripted_only(run.get("settings") or {})
    if run.get("unit") == "response":
        from factdebate.eval.response_eval import claim_level_metrics

        metrics["level"] = "response"
        metrics["claim_level"] = claim_level_metrics([records[i] for i in ids if i in records],
                                                     tuple(run["labels"]), run["seed"])
    from factdebate.eval.report.paper_metrics import paper_metrics
    from factdebate.eval.response_eval import claim_outcomes

    chosen = [records[i] for i in ids if i in records]
    metrics["paper"] = paper_metrics(chosen, outcomes, claim_outcomes(chosen))
    metrics["replies"] = reply_counts(chosen)
    metrics["cost_by_model"] = cost_by_model(outcomes)
    if set(run["labels"]) == {"SUPPORTS", "REFUTES"} and run.get("answer_format", "label") == "label":
        metrics["two_labels"] = two_labels.counts(chosen)
    # Strict JSON: a metric with nothing to compute it from (no samples) is null, and the reason is noted.
    nulls: dict[str, str] = {}
    summary = safe_value({**run, "ids": ids, "complete": complete, "missing": len(ids) - len(outcomes),
                          "written": datetime.now(UTC).isoformat(timespec="seconds"), "metrics": metrics}, nulls)
    if nulls:
        summary["null_reasons"] = nulls
    (directory / SUMMARY_JSON).write_text(json.dumps(summary, indent=1, ensure_ascii=False, allow_nan=False)
                                          + "\n", encoding="utf-8")
    (directory / SUMMARY_MD).write_text(markdown(summary), encoding="utf-8")
    return summary


def cost_by_model(outcomes: list[Outcome]) -> dict[str, dict[str, int]] | None:
    """The usage by model of every sample, summed (what ``compare --price`` prices); None when a record
    predates usage by model."""
    finished = [o for o in outcomes if o.usage is not None]
    if any(o.usage_by_model is None for o in finished):
        return None
    from factdebate.eval.pricing import sum_by_model

    return sum_by_model(o.usage_by_model or {} for o in finished)


def base_rate(metrics: dict[str, Any]) -> dict[str, Any] | None:
    """The most frequent prediction and its share, beside always answering the commonest gold label; or None."""
    conf = metrics["confusion"]
    columns = [sum(row[i] for row in conf["matrix"]) for i in range(len(conf["predicted"]))]
    predicted = {label: n for label, n in zip(conf["predicted"], columns, strict=True)
                 if label not in (UNPARSED, ERROR) and n}
    gold = {label: sum(row) for label, row in zip(conf["gold"], conf["matrix"], strict=True) if sum(row)}
    if not predicted or not gold:
        return None
    top = max(predicted, key=lambda label: predicted[label])
    majority = max(gold, key=lambda label: gold[label])
    return {"top_prediction": top, "share": predicted[top] / sum(predicted.values()),
            "predictions": sum(predicted.values()), "majority_class": majority,
            "majority_class_accuracy": gold[majority] / sum(gold.values())}


def _models(settings: dict[str, Any]) -> list[str]:
    llm = settings.get("llm") or {}
    models = [llm.get("debater"), llm.get("judge"), llm.get("scorer"), *(llm.get("roles") or {}).values()]
    models += [m for section in (settings.get("methods") or {}).values() if isinstance(section, dict)
               for m in section.get("judge_llms") or []]
    return [m for m in models if isinstance(m, str)]


def embedded_model(settings: dict[str, Any]) -> bool:
    """Whether a model of the run (any role, DPD's referees included) is the embedded or a scripted one."""
    return any(m.startswith(EMBEDDED) for m in _models(settings))


def scripted_only(settings: dict[str, Any]) -> bool:
    """Whether the run's near-chance models are all scripted ones (a test's script, not the embedded model)."""
    near_chance = [m for m in _models(settings) if m.startswith(EMBEDDED)]
    return bool(near_chance) and all(m.startswith("scripted:") for m in near_chance)


def base_rate_warning(metrics: dict[str, Any]) -> str | None:
    """A sentence when more than 90% of the predictions are one class (the accuracy is then its base rate)."""
    info = metrics.get("base_rate")
    if not info or info["predictions"] < BASE_RATE_MIN_PREDICTIONS or info["share"] <= BASE_RATE_SHARE:
        return None
    return (f"{info['share']:.0%} of the predictions are {info['top_prediction']}: the accuracy "
            f"({fmt(metrics.get('accuracy'))}) is close to the base rate, not evidence of skill; always answering "
            f"the majority class ({info['majority_class']}) scores {fmt(info['majority_class_accuracy'])}."
            + (" A scripted model answers as its script says; accuracy needs a served model "
               "(`factdebate docs readme#use`)."
               if info.get("scripted_model") else
               " The embedded model is a working pipeline; accuracy needs a served model "
               "(`factdebate docs readme#use`)."
               if info.get("embedded_model", True) else ""))


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
        f"95% Wilson interval [{fmt(lo)}, {fmt(hi)}]" + _over_the_draw(summary),
        f"- macro-F1: **{fmt(m['macro_f1'])}** over the dataset's labels ({', '.join(m['macro_f1_labels'])}), "
        f"95% percentile bootstrap CI [{fmt(flo)}, {fmt(fhi)}]",
        f"- unparsed (counted wrong): {len(m['unparsed'])}; errored (counted wrong): {len(m['errored'])}",
        f"- replies read, by what was asked: {counts_text(m.get('replies') or {})}",
        f"- decided by: {', '.join(f'{k} {v}' for k, v in sorted(m['decided_by'].items()))}",
    ]
    if claim := m.get("claim_level"):
        lines.append(f"- claim level ({claim['n']} claims with a gold label): accuracy **{fmt(claim['accuracy'])}**, "
                     f"macro-F1 **{fmt(claim['macro_f1'])}** ("
                     + ", ".join(f"{label} F1 {fmt(row['f1'])}" for label, row in claim["per_class"].items()) + ")")
    elif m.get("level") == "response":
        lines.append("- claim level: none (claims were extracted anew, so no claim has a gold label)")
    if paper := m.get("paper"):
        lines += paper_lines(paper)
    if (binary := m.get("two_labels")) is not None:
        tie = ((summary.get("settings") or {}).get("methods") or {}).get("dpd", {}).get("binary_tie") \
            if summary.get("method") == "dpd" else None
        lines.append(two_labels.line(binary, tie))
    if warning := base_rate_warning(m):
        lines.append(f"- **warning**: {warning}")
    if warning := lost_warning(m.get("replies") or {}):
        lines.append(f"- **warning**: {warning}")
    if summary.get("tools_heterogeneous") is not None:
        lines.append("- tools heterogeneous: " + ("yes" if summary["tools_heterogeneous"] else
                                                  "**no** (tools_heterogeneous: false; see below)"))
    lines += deviation_lines(summary.get("deviations") or [])
    skipped = summary.get("dataset_skipped") or {}
    if skipped:
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(skipped.items(), key=lambda kv: -kv[1]))
        lines.append(f"- dataset: {summary.get('dataset_loaded')} loaded, {sum(skipped.values())} skipped ({reasons})")
    lines += [
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
    spend = m.get("errored_spend") or {}
    lines += ["", "Cost per claim (samples with recorded usage: the finished ones and the errored ones' spend "
              "before they failed, included):", ""]
    if spend.get("without_usage"):
        lines += [f"{spend['without_usage']} errored sample(s) recorded no usage (failed before any model call, or "
                  "written before errors kept their spend): not in these figures.", ""]
    lines += ["| | mean | p95 | total |", "|---|---|---|---|"]
    for name, row in m["cost"].items():
        digits = 2 if name == "seconds" else 1
        lines.append(f"| {name} | {fmt(row['mean'], digits)} | {fmt(row['p95'], digits)} | "
                     f"{fmt(row['total'], digits)} |")
    if m.get("cost_by_model"):
        lines += ["", "By model (totals over the samples with recorded usage, errored ones' spend included; "
                  "speculative: the discarded work's, paid for):", "",
                  "| model | LLM calls | prompt tokens | completion tokens (reasoning) | cached calls "
                  "| speculative calls | speculative prompt / completion tokens |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {model} | {u['llm_calls']} | {u['prompt_tokens']} | {u['completion_tokens']} "
                  f"({u['reasoning_tokens']}) | {u['cached_calls']} | {u['speculative_calls']} | "
                  f"{u['speculative_prompt_tokens']} / {u['speculative_completion_tokens']} |"
                  for model, u in m["cost_by_model"].items()]
    if m["by_group"]:
        lines += ["", "| group | n | accuracy |", "|---|---|---|"]
        lines += [f"| {g} | {row['n']} | {fmt(row['accuracy'])} |" for g, row in m["by_group"].items()]
    if m["unparsed"]:
        lines += ["", "Unparsed: " + ", ".join(m["unparsed"])]
    if m["errored"]:
        lines += ["", "Errored:"] + [f"- {i}: {msg}" for i, msg in m["errored"].items()]
    return "\n".join(lines) + "\n"


def _over_the_draw(summary: dict[str, Any]) -> str:
    """An incomplete run's accuracy over its whole draw too, the samples not run counted wrong."""
    m, missing = summary["metrics"], summary.get("missing") or 0
    if not missing:
        return ""
    total = m["n"] + missing
    return (f"; over the whole draw, the {missing} not run counted wrong: {fmt(m['correct'] / total)} "
            f"({m['correct']}/{total})")


def deviation_lines(deviations: list[dict[str, Any]]) -> list[str]:
    """Where this run departed from the method's paper (run.json's ``deviations``), one line each."""
    if not deviations:
        return []
    return ["- differs from the paper:"] + [f"  - {Deviation.model_validate(d).line()}" for d in deviations]


def paper_lines(paper: dict[str, Any]) -> list[str]:
    """Accuracy, P, R, F1 of the positive class per level; a panel's mean consensus; cost per claim."""
    lines = []
    for level in ("claim_level", "response_level"):
        if row := paper.get(level):
            lines.append(f"- {level.replace('_', ' ')}, positive class {paper['positive_class']} ({row['n']}): "
                         f"Acc {fmt(row['accuracy'])}, P {fmt(row['precision'])}, R {fmt(row['recall'])}, "
                         f"F1 {fmt(row['f1'])}")
    if paper.get("judges_mean_consensus") is not None:
        lines.append(f"- judges' mean consensus: {fmt(paper['judges_mean_consensus'])} "
                     f"over {paper['consensus_claims']} claim(s)")
    if agreement := paper.get("judges_agreement"):
        pairs = ", ".join(f"{pair} {fmt(share)}" for pair, share in agreement["pairs"].items())
        lines.append(f"- referees' agreement over {agreement['claims']} claim(s): pairwise "
                     f"{fmt(agreement['pairwise'])}, Fleiss' kappa {fmt(agreement['fleiss_kappa'])}, "
                     f"unanimous {fmt(agreement['unanimous'])} ({pairs})")
    if cost := paper.get("cost_per_claim"):
        lines.append(f"- per debated claim ({paper['claims']}): {fmt(cost['llm_calls'], 1)} LLM calls, "
                     f"{fmt(cost['prompt_tokens'] + cost['completion_tokens'], 0)} tokens"
                     + (f", of which {fmt(cost['reasoning_tokens'], 0)} hidden reasoning"
                        if cost.get("reasoning_tokens") else ""))
    return lines
