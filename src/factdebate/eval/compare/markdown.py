"""compare.md: the comparison as a person reads it, in the order of the questions asked when choosing a method
(comparable? accurate? a real difference? cost per correct verdict? disagreements?)."""

from __future__ import annotations

import html
import json
from typing import Any

from factdebate.eval.compare.cost import dollars_text
from factdebate.eval.report.summary import fmt

MAX_DISAGREEMENTS = 200  # compare.json keeps them all
CLAIM_CHARS = 90
# What a reader asks first when told "the same settings": the models, the evidence, the corpus and search.
MAIN_SETTINGS = ("llm.debater", "llm.judge", "llm.scorer", "llm.temperature", "retrieval.evidence",
                 "retrieval.corpus", "retrieval.search", "retrieval.k")


def _ci(pair: list[float | None]) -> str:
    return f"[{fmt(pair[0])}, {fmt(pair[1])}]"


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _header(data: dict[str, Any]) -> list[str]:
    s = data["samples"]
    runs = data["runs"]
    lines = [f"# Which method? {len(runs)} runs on {data['dataset']}", "",
             f"- samples: **{s['n']}**, " + (f"the same draw in every run (sha256 {s['draw_sha256']})"
                                              if s["draw_sha256"] else "the same sample ids in every run")]
    if s["note"]:
        lines.append(f"- **{s['note']}**")
    lines.append(f"- **{s['denominator']}**")
    b = data["bootstrap"]
    lines.append(f"- 95% intervals: accuracy, Wilson score; macro-F1 and the paired differences, percentile "
                 f"bootstrap ({b['resamples']} resamples, seed {b['seed']})")
    settings = data["settings"]
    if "shared_options" in settings:
        given = ", ".join(f"--{o.replace('_', '-')}" for o in settings["shared_options"]) or "none"
        lines.append(f"- options given once and shared by every run: {given}; each method's own options went "
                     "to that method only")
    evidence = set(json.dumps(v) for v in settings["evidence"].values())
    main = {k: v for k, v in settings["same"].items() if k in MAIN_SETTINGS}
    if main:
        lines.append("- the same in every run: " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in main.items())
                     + (f" (and {len(settings['same']) - len(main)} more settings)" if len(settings["same"]) > len(main)
                        else ""))
    if len(evidence) > 1:
        lines.append("- evidence used differs: " + ", ".join(f"{k} {v}" for k, v in settings["evidence"].items()))
    if settings["differ"]:
        lines.append("- settings that differ outside the methods' own: " + "; ".join(
            f"{k}: " + ", ".join(f"{name} {json.dumps(v)}" for name, v in values.items())
            for k, values in settings["differ"].items()))
    else:
        lines.append("- no setting outside the methods' own sections differs between the runs")
    return lines


def _accuracy(data: dict[str, Any]) -> list[str]:
    lines = ["", "## Accuracy", "", "Unparsed answers, errors and missing samples count as wrong, over the same n in "
             "every run; a method cannot look better by failing more, or by running fewer samples.", "",
             "| run | method | n | correct | accuracy [95% CI] | macro-F1 [95% CI] | unparsed | errored | missing |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in data["runs"]:
        lines.append(f"| {r['name']} | {r['method']} | {r['n']} | {r['correct']} | {fmt(r['accuracy'])} "
                     f"{_ci(r['ci']['accuracy'])} | {fmt(r['macro_f1'])} {_ci(r['ci']['macro_f1'])} | "
                     f"{len(r['unparsed'])} | {len(r['errored'])} | {len(r['missing'])} |")
    lines += ["", "Per label (precision / recall / F1, support, predicted):", "",
              "| run | " + " | ".join(data["labels"]) + " |", "|---|" + "---|" * len(data["labels"])]
    for r in data["runs"]:
        cells = [f"{fmt(c['precision'], 2)} / {fmt(c['recall'], 2)} / {fmt(c['f1'], 2)}, {c['support']}, "
                 f"{c['predicted']}" for c in (r["per_class"][label] for label in data["labels"])]
        lines.append(f"| {r['name']} | " + " | ".join(cells) + " |")
    warned = [r for r in data["runs"] if r.get("base_rate_warning")]
    if warned:  # as each run's summary.md says it, over that run's own samples
        lines += ["", *(f"- **warning** ({r['name']}): {r['base_rate_warning']}" for r in warned)]
    for r in data["runs"]:
        conf = r["confusion"]
        lines += ["", f"Confusion of {r['name']} (rows gold, columns answered):", "",
                  "| gold \\ answered | " + " | ".join(conf["predicted"]) + " |",
                  "|---|" + "---|" * len(conf["predicted"])]
        lines += [f"| {g} | " + " | ".join(str(v) for v in row) + " |"
                  for g, row in zip(conf["gold"], conf["matrix"], strict=True)]
    return lines


def _pairs(data: dict[str, Any]) -> list[str]:
    lines = ["", "## Paired comparisons", "",
             "On the compared samples (missing samples, errors and unparsed answers counted wrong). "
             "'A only' is how many A got right and B wrong. McNemar's exact test uses only those two counts; "
             "Cohen's κ is agreement on the label, over the samples both runs answered with one (their number is "
             "beside it); with UNPARSED, ERROR and MISSING as answers of their own it is in compare.json "
             "(kappa_failures_as_answers). The adjusted p is Holm's over all the pairs (* below 0.05); 'detectable' "
             "is the difference the pair could have shown (80% power, `factdebate docs compare#what-is-computed`).", "",
             f"**{data['verdict']}**", "",
             "| A | B | n | A only | B only | both right | both wrong | accuracy A − B [95% paired CI] | "
             "macro-F1 A − B [95% paired CI] | McNemar exact p | Holm-adjusted p | detectable | Cohen's κ "
             "| failed in either |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in data["pairs"]:
        lines.append(f"| {p['a']} | {p['b']} | {p['n']} | {p['only_a']} | {p['only_b']} | {p['both_right']} | "
                     f"{p['both_wrong']} | {fmt(p['difference'])} {_ci(p['ci'])} | "
                     f"{fmt(p['macro_f1_difference'])} {_ci(p['macro_f1_ci'])} | {fmt(p['mcnemar_p'])} | "
                     f"{fmt(p['mcnemar_p_holm'])}{' *' if p['differs'] else ''} | "
                     f"{fmt(p['detectable_difference'], 2)} | {fmt(p['kappa'])} (n = {p['kappa_n']}) | "
                     f"{p['failed_either']} |")
    if "paired_differences.png" in data.get("plots", []):
        lines += ["", "![paired differences](paired_differences.png)"]
    return lines


def _cost(data: dict[str, Any]) -> list[str]:
    lines = ["", "## Cost", "",
             "Per claim: the mean over the samples whose record carries usage: those that finished, and those "
             "that errored with what they spent before failing (included, so failing expensively is not cheap). "
             "Per correct verdict: the run's total over its correct verdicts. Completion tokens include the "
             "reasoning tokens shown apart. Seconds include waiting for a loaded machine; cached calls took no "
             "model time. An errored record written before errors kept their spend (or one that failed before any "
             "call) carries none: the last column says how many samples that leaves out.", "",
             "| run | LLM calls | prompt tokens | completion tokens (reasoning) | tool calls | seconds | cached calls "
             "| LLM calls / correct | tokens / correct | seconds / correct | $ / claim | $ / correct "
             "| errored, spend not recorded |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in data["runs"]:
        c, k = r["cost"]["per_claim"], r["cost"]["per_correct"]
        tokens = None if k["prompt_tokens"] is None else k["prompt_tokens"] + k["completion_tokens"]
        dollars = r["cost"]["dollars_per_claim"]
        lines.append(
            f"| {r['name']} | {fmt(c['llm_calls'], 1)} | {fmt(c['prompt_tokens'], 0)} | "
            f"{fmt(c['completion_tokens'], 0)} ({fmt(c['reasoning_tokens'], 0)}) | {fmt(c['tool_calls'], 1)} | "
            f"{fmt(c['seconds'], 1)} | {fmt(c['cached_calls'], 1)} | {fmt(k['llm_calls'], 1)} | {fmt(tokens, 0)} | "
            f"{fmt(k['seconds'], 1)} | {dollars_text(dollars)} | "
            f"{dollars_text(r['cost']['dollars_per_correct'])} | {r['cost']['errored_without_usage']} |")
    lines += _ratios(data)
    if data["prices"]:
        lines.append("")
        lines.append("Prices given (dollars per million prompt, completion tokens): " + ", ".join(
            f"{m} {p[0]:g}, {p[1]:g}" for m, p in data["prices"].items()))
        lines += ["", "Dollars count each model's prompt and completion tokens at that model's price, the tokens of "
                  "discarded speculative work included (paid for, though no verdict used them), and cached answers "
                  "at the tokens they first cost. Not counted: calls cancelled in flight (the server reports no "
                  "tokens for them) and tool calls (search APIs have prices of their own).", ""]
        for r in data["runs"]:
            lines += _run_dollars(r)
    else:
        lines += ["", "No dollars: no `--price MODEL=IN,OUT` was given (there is no built-in price table)."]
    front = data["pareto"]["front"]
    lines += ["", "## Cost versus accuracy", "",
              f"Cost axis: {data['pareto']['cost_axis']} per claim. On the Pareto front (no other run is both "
              f"cheaper and more accurate, on the point estimates): **{', '.join(front) or 'none'}**."]
    lines += _behind(data["pareto"])
    if "cost_vs_accuracy.png" in data.get("plots", []):
        lines += ["", "![cost versus accuracy](cost_vs_accuracy.png)"]
    return lines


def _ratios(data: dict[str, Any]) -> list[str]:
    """Each pair's cost ratio on the cost axis, with its paired bootstrap interval."""
    if not data["pairs"]:
        return []
    axis = data["pareto"]["cost_axis"]
    lines = ["", f"Cost ratio per claim ({axis}), A over B, on the samples both have a cost for, with a 95% paired "
             "percentile bootstrap interval:", "", "| A | B | A / B [95% CI] | n |", "|---|---|---|---|"]
    for p in data["pairs"]:
        c = p["cost_ratio"]
        lines.append(f"| {p['a']} | {p['b']} | {fmt(c['ratio'], 2)} [{fmt(c['ci'][0], 2)}, {fmt(c['ci'][1], 2)}] "
                     f"| {c['n']} |")
    return lines


def _behind(pareto: dict[str, Any]) -> list[str]:
    """The runs off the front, each marked distinguishable from it or not (after Holm)."""
    lines = []
    for name, b in pareto.get("behind", {}).items():
        same = set(b.get("same_cost", []))
        beaten = "; ".join(f"{f} costs the same and is more accurate" if f in same else
                           f"{f} is cheaper and at least as accurate" for f in b["beaten_by"])
        reasons = [f"{f} is significantly more accurate (Holm-adjusted McNemar p < 0.05)" for f in b["significantly"]]
        reasons += [f"{f} is significantly cheaper (the paired cost ratio's 95% interval is below 1)"
                    for f in b.get("significantly_cheaper", [])]
        if reasons:
            lines.append(f"- {name}: behind the front; {beaten} on the point estimates, and " + "; ".join(reasons))
        else:
            lines.append(f"- {name}: **not distinguishable from the front** — {beaten} on the point estimates, but "
                         "neither significantly more accurate after Holm's correction nor cheaper beyond the paired "
                         "cost interval")
    return ["", *lines] if lines else []


def _run_dollars(run: dict[str, Any]) -> list[str]:
    """One line per run: its dollars by model, or why it has none."""
    cost = run["cost"]
    by_model = cost.get("by_model")
    if by_model is None:  # a run recorded before usage was kept per model
        old = "recorded before usage was kept per model: priced from its totals, its speculative tokens left out"
        return [f"- {run['name']}: " + (f"no dollars, {cost['dollars_note']} ({old})" if cost["dollars_note"]
                                        else f"${dollars_text(cost['dollars'])} in all ({old})")]
    parts = []
    for model, used in by_model.items():
        spent = "no price" if used["dollars"] is None else f"${dollars_text(used['dollars'])}"
        extra = (f" + {used['speculative_prompt_tokens']} / {used['speculative_completion_tokens']} speculative"
                 if used["speculative_calls"] else "")
        parts.append(f"{model} {spent} ({used['prompt_tokens']} prompt / {used['completion_tokens']} completion "
                     f"tokens{extra})")
    head = (f"${dollars_text(cost['dollars'])} in all" if cost["dollars"] is not None
            else f"no dollars, {cost['dollars_note']}")
    return [f"- {run['name']}: {head}" + (": " + "; ".join(parts) if parts else "")]


def _disagreements(data: dict[str, Any]) -> list[str]:
    rows = data["disagreements"]
    names = [r["name"] for r in data["runs"]]
    lines = ["", "## Disagreements", "",
             f"{len(rows)} sample(s) on which the answers differ. Each answer links to its record in the run's "
             "results.jsonl, which holds the whole debate (open that file in the page's results viewer to "
             "see it drawn; open two or more to see them paired).", ""]
    if not rows:
        return lines
    lines += ["| id | gold | claim | " + " | ".join(names) + " |", "|---|---|---|" + "---|" * len(names)]
    for row in rows[:MAX_DISAGREEMENTS]:
        claim = _cell(row["claim"])
        claim = claim if len(claim) <= CLAIM_CHARS else claim[:CLAIM_CHARS - 1] + "…"
        cells = []
        for name in names:
            answer = row["answers"].get(name)
            cells.append("—" if answer is None else
                         f"[{answer['answer']} {'✓' if answer['correct'] else '✗'}]({answer['record']})")
        lines.append(f"| {_cell(row['id'])} | {row['gold']} | {claim} | " + " | ".join(cells) + " |")
    if len(rows) > MAX_DISAGREEMENTS:
        lines.append(f"\n{len(rows) - MAX_DISAGREEMENTS} more in compare.json.")
    return lines


def _failures(data: dict[str, Any]) -> list[str]:
    lines = ["", "## Errors and unparsed answers, per run", ""]
    for r in data["runs"]:
        lines.append(f"- {r['name']}: {len(r['unparsed'])} unparsed"
                     + (f" ({', '.join(r['unparsed'])})" if r["unparsed"] else "")
                     + f", {len(r['errored'])} errored" + (", not run: " + ", ".join(r["missing"]) if r["missing"]
                                                           else ""))
        lines += [f"  - {sample}: {_cell(message)}" for sample, message in r["errored"].items()]
    return lines


def _escaped(value: Any) -> Any:
    """``value`` with every text (keys included) HTML-escaped: run folders may come from anyone."""
    if isinstance(value, str):
        return html.escape(value, quote=False)
    if isinstance(value, dict):
        return {_escaped(k) if isinstance(k, str) else k: _escaped(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_escaped(v) for v in value]
    return value


def markdown(data: dict[str, Any]) -> str:
    data = _escaped(data)
    lines = [*_header(data), *_accuracy(data), *_pairs(data), *_cost(data), *_disagreements(data),
             *_failures(data)]
    return "\n".join(lines) + "\n"
