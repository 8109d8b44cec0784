"""What the guard catches in real chatbot answers: the guard's own check (``factdebate.aguard``, the code behind
every door) at each tier, and ``check-response`` with its methods, on answers no one here wrote, with their
datasets' gold labels.

    .venv/bin/python benchmarks/real_answers.py [--sets factcheck-bench,factool-qa,felm-wk] [--answers 6]
        [--tiers fast] [--methods madke] [--llm SPEC] [--deadline-s 120] [--output DIR] [--record]

The sets (read at run time from ``../shared/datasets``, or ``--datasets DIR``):
- ``factcheck-bench``: Factcheck-Bench's ChatGPT answers (``factcheck-GPT-benchmark.jsonl``), response-level
  gold: false when the answer holds a false statement;
- ``factool-qa``: FacTool's knowledge-QA answers (``knowledge_qa.jsonl``), false when one of its claims is;
- ``felm-wk``: FELM's world-knowledge answers (FIRE's copy, ``fire_data.jsonl``).

Each set gives ``--answers`` answers drawn with a fixed seed, half holding a false statement and half not where
the set has both. Each answer is checked with its question, under ``policy: flag``, by every tier of
``--tiers`` and every method of ``--methods`` (check-response's full method), one answer at a time in this
process (the model is loaded once). A check *flags* an answer when one of its claims is REFUTES. The table
gives, per way: response-level precision, recall and F1 of "holds a false statement" with Wilson intervals
(precision: of the answers flagged, how many hold a false statement; recall: of those that do, how many were
flagged), the share of the claims left unchecked and the reasons, NOT ENOUGH INFO claims, and the seconds,
model calls, tokens and CPU-seconds per answer. The published claim-level figures of FacTool, FactCheck-GPT,
SAFE and FIRE (with GPT-4o, from the MERMAID paper's Table 1) are printed beside, with their backbone: they
score the datasets' own claims, a different task on a far stronger model, and only say where the field is.

``--llm`` checks with any model (``openai:gpt-4o-mini`` with ``OPENAI_API_KEY``, or a local server's
``openai:NAME`` with ``OPENAI_BASE_URL``); without it, the settings' default (the offline model where setup
installed it). Rows are appended to ``--output``/rows.jsonl as each answer is checked; a second run on the
same folder skips the answers already there, so a cut run resumes. The model cache is off: every answer's
calls are made and timed."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import factdebate as fd
from factdebate.eval.datasets import Dataset, Sample
from factdebate.eval.datasets.response_loaders import load_factcheck_bench_responses, load_factool_responses
from factdebate.eval.report.intervals import wilson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_log import ROOT, add_record_flag, record

DATASETS = ROOT.parent / "shared" / "datasets"
FALSE = "REFUTES"  # a dataset answer's label when it holds a false statement (BINARY_LABELS' second)


def load_felm(path: Path) -> Dataset:
    """FELM world knowledge as FIRE keeps it: one answer a line (``claim``), ``label`` false when it holds a
    false statement."""
    samples = []
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        row = json.loads(line) if line.strip() else None
        if isinstance(row, dict) and isinstance(row.get("claim"), str) and isinstance(row.get("label"), bool):
            samples.append(Sample(str(index), row["claim"].strip(), "SUPPORTS" if row["label"] else FALSE,
                                  meta={"question": None}))
    return Dataset(kind="felm-wk", labels=("SUPPORTS", FALSE), samples=samples, unit="response")


SETS: dict[str, tuple[str, Callable[[Path], Dataset]]] = {
    "factcheck-bench": ("factcheck_bench/factcheck-GPT-benchmark.jsonl", load_factcheck_bench_responses),
    "factool-qa": ("factool_qa/knowledge_qa.jsonl", load_factool_responses),
    "felm-wk": ("felm_wk/fire_data.jsonl", load_felm),
}
# The MERMAID paper's Table 1 (claim level, the datasets' own claims; GPT-4o): True F1, False F1, macro-F1.
PUBLISHED = {
    "FacTool (GPT-4o)": {"factool-qa": (0.84, 0.58, 0.71), "factcheck-bench": (0.82, 0.64, 0.73)},
    "FactCheck-GPT (GPT-4o)": {"factool-qa": (0.84, 0.60, 0.72), "factcheck-bench": (0.83, 0.65, 0.74)},
    "SAFE (GPT-4o)": {"factool-qa": (0.88, 0.63, 0.76), "factcheck-bench": (0.84, 0.65, 0.74)},
    "FIRE (GPT-4o)": {"factool-qa": (0.89, 0.66, 0.77), "factcheck-bench": (0.85, 0.66, 0.76)},
}


def draw(dataset: Dataset, count: int, seed: int) -> list[Sample]:
    """``count`` answers, half of each gold label where the set has enough, in a seeded order."""
    rng = random.Random(seed)
    false = [s for s in dataset.samples if s.gold == FALSE]
    true = [s for s in dataset.samples if s.gold != FALSE]
    rng.shuffle(false)
    rng.shuffle(true)
    half = count // 2
    chosen = false[:count - min(half, len(true))] + true[:half]
    chosen = chosen[:count]
    rng.shuffle(chosen)
    return chosen


class Meter:
    """The model calls' tokens, from the check's events."""

    def __init__(self) -> None:
        self.tokens = 0

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("event") == "llm_call" and not event.get("cached"):
            self.tokens += int(event.get("prompt_tokens") or 0) + int(event.get("completion_tokens") or 0)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def check(way: str, sample: Sample, args: argparse.Namespace) -> dict[str, Any]:
    """One answer checked one way: the row the table is made of."""
    # No model cache: an answer checked again must cost its calls again, or a second run measures nothing.
    options: dict[str, Any] = {"cache": False, **({"llm": args.llm} if args.llm else {})}
    question = sample.meta.get("question") if sample.meta else None
    meter, started, cpu = Meter(), time.monotonic(), cpu_seconds()
    claims: list[dict[str, Any]] = []
    error = None
    try:
        if way.startswith("tier:"):
            result = await fd.aguard(sample.claim, question=question, tier=way[5:],  # type: ignore[arg-type]
                                     deadline_s=args.deadline_s, policy="flag", on_event=meter, **options)
            calls = result.usage.model_calls
            # the words a verdict rests on, kept so that a flag can be read without running the answer again
            claims = [{"claim": c.claim, "label": c.label, "status": c.status, "reason": c.reason,
                       "cited": [f"{e.title}: {e.quote}" for e in c.evidence if e.cited]} for c in result.claims]
            if result.degraded:
                error = result.degraded_reason
        else:
            verdict = await fd.acheck_response(sample.claim, question=question, on_event=meter,
                                               method=way[7:], **options)  # type: ignore[arg-type]
            calls = verdict.usage.llm_calls if verdict.usage else 0
            claims = [{"claim": c.claim, "label": c.label, "status": "checked" if c.label else "unchecked",
                       "reason": c.error} for c in verdict.claims]
    except fd.FactDebateError as exc:
        calls, error = 0, str(exc)
    return {"way": way, "id": sample.id, "gold": sample.gold, "claims": claims, "error": error, "calls": calls,
            "tokens": meter.tokens, "seconds": round(time.monotonic() - started, 2),
            "cpu_s": round(cpu_seconds() - cpu, 2), "flagged": any(c["label"] == FALSE for c in claims)}


def per(rows: list[dict[str, Any]], key: str) -> float:
    """``key``'s mean over ``rows``."""
    return sum(r[key] for r in rows) / len(rows)


def table(rows: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The markdown table and the figures to record, per set and way."""
    lines = ["| set | way | answers | precision [95% CI] | recall [95% CI] | F1 | unchecked claims | NEI "
             "claims | s / answer | calls / answer | tokens / answer | CPU-s / answer |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    figures: dict[str, Any] = {}
    reasons: Counter[str] = Counter()
    for (name, way) in sorted({(r["set"], r["way"]) for r in rows}):
        mine = [r for r in rows if r["set"] == name and r["way"] == way]
        n = len(mine)
        tp = sum(r["flagged"] and r["gold"] == FALSE for r in mine)
        flagged = sum(r["flagged"] for r in mine)
        positives = sum(r["gold"] == FALSE for r in mine)
        precision = tp / flagged if flagged else None  # nothing flagged: no precision to give (the table's "–")
        recall = tp / positives if positives else None
        f1 = 2 * tp / (flagged + positives) if tp else 0.0
        p_low, p_high = wilson(tp, flagged) if flagged else (0.0, 1.0)
        r_low, r_high = wilson(tp, positives) if positives else (0.0, 1.0)
        claims = [c for r in mine for c in r["claims"]]
        unchecked = [c for c in claims if c["status"] != "checked"]
        reasons.update(str(c["reason"] or "no reason given")[:90] for c in unchecked)
        reasons.update(f"answer degraded: {str(r['error'])[:80]}" for r in mine if r["error"] and not r["claims"])
        nei = sum(c["label"] == "NOT ENOUGH INFO" for c in claims)

        shown_p = f"{precision:.2f} [{p_low:.2f}, {p_high:.2f}]" if precision is not None else "–"
        shown_r = f"{recall:.2f} [{r_low:.2f}, {r_high:.2f}]" if recall is not None else "–"
        lines.append(f"| {name} | {way} | {n} | {shown_p} ({tp}/{flagged}) | {shown_r} ({tp}/{positives}) | {f1:.2f} | "
                     f"{len(unchecked)} of {len(claims)} | {nei} | {per(mine, 'seconds'):.0f} | "
                     f"{per(mine, 'calls'):.1f} | {per(mine, 'tokens'):.0f} | {per(mine, 'cpu_s'):.0f} |")
        key = f"{name}.{way.replace(':', '-')}"
        # a precision with nothing flagged (or a recall with nothing false) is not a figure: left out, not 0
        measured = {"precision": precision, "recall": recall}
        figures.update({f"{key}.{name}": round(value, 3) for name, value in measured.items() if value is not None})
        figures.update({f"{key}.answers": n, f"{key}.f1": round(f1, 3),
                        f"{key}.unchecked_claims": len(unchecked), f"{key}.claims": len(claims),
                        f"{key}.seconds_per_answer": round(per(mine, "seconds"), 1),
                        f"{key}.calls_per_answer": round(per(mine, "calls"), 2)})
    lines += ["", "What a reader of each answer is told (all sets, by way):", "",
              "| way | gold | flagged | not passed: a claim unchecked, with why | passed: every claim checked |",
              "|---|---|---|---|---|"]
    for way in sorted({r["way"] for r in rows}):
        for gold, name in ((FALSE, "holds a false statement"), (None, "correct")):
            mine = [r for r in rows if r["way"] == way and (r["gold"] == FALSE) == (gold == FALSE)]
            flagged = sum(r["flagged"] for r in mine)
            held = sum(not r["flagged"] and (not r["claims"] or any(c["status"] != "checked" for c in r["claims"]))
                       for r in mine)
            lines.append(f"| {way} | {name} ({len(mine)}) | {flagged} | {held} | {len(mine) - flagged - held} |")
    lines += ["", "Why claims were left unchecked (all ways):", ""]
    lines += [f"- {count} × {reason}" for reason, count in reasons.most_common(12)] or ["- none"]
    lines += ["", "Published, claim level on the datasets' own claims (MERMAID paper, Table 1): True F1 / False F1 / "
              "macro-F1", ""]
    for system, sets in PUBLISHED.items():
        lines.append(f"- {system}: " + "; ".join(f"{name} {t:.2f} / {f:.2f} / {m:.2f}"
                                                 for name, (t, f, m) in sets.items()))
    return "\n".join(lines), figures


async def run(args: argparse.Namespace) -> None:
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    rows_file = out / "rows.jsonl"
    rows = [json.loads(line) for line in rows_file.read_text(encoding="utf-8").splitlines()] \
        if rows_file.exists() else []
    done = {(r["set"], r["way"], r["id"]) for r in rows}
    ways = [f"tier:{t}" for t in args.tiers.split(",") if t] + [f"method:{m}" for m in args.methods.split(",") if m]
    for name in args.sets.split(","):
        relative, loader = SETS[name]
        answers = draw(loader(Path(args.datasets) / relative), args.answers, args.seed)
        for number, sample in enumerate(answers, 1):
            for way in ways:
                if (name, way, sample.id) in done:
                    continue
                row = {"set": name, **await check(way, sample, args)}
                rows.append(row)
                with rows_file.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(f"{name} {number}/{len(answers)} {way}: gold {row['gold']}, flagged {row['flagged']}, "
                      f"{len(row['claims'])} claims, {row['seconds']:.0f} s, {row['calls']} calls"
                      + (f" ({row['error'][:100]})" if row["error"] else ""), file=sys.stderr, flush=True)
    text, figures = table(rows)
    (out / "table.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    if args.record:
        record("real_answers", {**figures, "llm": args.llm or "default", "deadline_s": args.deadline_s},
               load=args.load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="factcheck-bench,factool-qa,felm-wk")
    parser.add_argument("--answers", type=int, default=6, help="answers per set (default 6)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tiers", default="fast", help="the guard's tiers, comma-separated ('' for none)")
    parser.add_argument("--methods", default="", help="check-response methods, comma-separated (e.g. madke)")
    parser.add_argument("--llm", default=None, help="the checker model (default: the settings' default)")
    parser.add_argument("--deadline-s", type=float, default=120.0, help="the guard's deadline per answer")
    parser.add_argument("--datasets", default=str(DATASETS))
    parser.add_argument("--output", default=str(ROOT / "runs" / "real_answers"))
    add_record_flag(parser)
    args = parser.parse_args()
    unknown = set(args.sets.split(",")) - set(SETS)
    if unknown:
        parser.error(f"unknown set(s) {', '.join(sorted(unknown))}; the sets: {', '.join(SETS)}")
    if not Path(args.datasets).is_dir():
        parser.error(f"{args.datasets}: no such folder (the public samples, ../shared/datasets)")
    args.load = os.getloadavg()[0]
    # The benchmark is the operator here: a deadline above the guard's cap (guard.max_deadline_s, 120 s by
    # default) raises the cap, so the deadline asked is the one the checks run under.
    if args.deadline_s > 120:
        os.environ.setdefault("FACTDEBATE_GUARD__MAX_DEADLINE_S", f"{args.deadline_s:g}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
