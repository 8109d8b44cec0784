"""What the guard catches in real chatbot answers: the guard's own check (``factdebate.aguard``, the code behind
every door) at each tier, and ``check-response`` with its methods, on answers no one here wrote, with their
datasets' gold labels, answer by answer or claim by claim.

    .venv/bin/python benchmarks/real_answers.py [--sets factcheck-bench,factool-qa,felm-wk] [--answers 6]
        [--tiers fast] [--methods madke] [--llm SPEC] [--deadline-s 120] [--output DIR] [--record]
    .venv/bin/python benchmarks/real_answers.py --claims-level [--sets factcheck-bench,factool-qa] [--claims 12]

The sets (read at run time from ``../shared/datasets``, or ``--datasets DIR``):
- ``factcheck-bench``: Factcheck-Bench's ChatGPT answers (``factcheck-GPT-benchmark.jsonl``), response-level
  gold: false when the answer holds a false statement; its claims carry their own labels;
- ``factool-qa``: FacTool's knowledge-QA answers (``knowledge_qa.jsonl``), false when one of its claims is; its
  claims carry their own labels;
- ``felm-wk``: FELM's world-knowledge answers (FIRE's copy, ``fire_data.jsonl``), labelled by answer only.

Answer level (the default): each set gives ``--answers`` answers drawn with a fixed seed, half holding a false
statement and half not where the set has both. Each answer is checked with its question, under ``policy: flag``,
by every tier of ``--tiers`` and every method of ``--methods`` (check-response's full method), one answer at a
time in this process (the model is loaded once). A check *flags* an answer when one of its claims is REFUTES.
The table gives, per way: response-level precision, recall and F1 of "holds a false statement" with Wilson
intervals (precision: of the answers flagged, how many hold a false statement; recall: of those that do, how
many were flagged), the share of the claims left unchecked and the reasons, NOT ENOUGH INFO claims, and the
seconds, model calls, tokens and CPU-seconds per answer. A second table says what a reader of each answer is
told: flagged; not passed (a claim is unchecked, NOT ENOUGH INFO, or SUPPORTS without a quote); or passed as
checked, every claim SUPPORTS with status checked and the quote it stands on; with how many of the checked
claims' quotes a passage of the check holds word for word (the passages its searches returned, and any given).

Claim level (``--claims-level``; the sets whose claims carry labels: factcheck-bench and factool-qa): each set
gives ``--claims`` of its labelled claims (true or false; Factcheck-Bench's claims without enough evidence have
no such label and are not drawn), half false where the set has both. Each claim is checked as its own
one-sentence reply with its answer's question, the same way (``fd.aguard``, ``policy: flag``). A claim is
*flagged* when a claim drawn from it is REFUTES, *checked SUPPORTS* when every claim drawn from it is SUPPORTS,
checked, on a quote, and otherwise *unchecked*, with the reason. Unchecked is neither verdict: the table gives
it its own column, and precision of "false claim caught" is over the flagged claims, recall over the false
claims (an unchecked false claim counts as missed); the same for "true claim checked SUPPORTS". Its False F1 and
True F1 sit beside the published claim-level figures.

The published claim-level figures of FacTool, FactCheck-GPT, SAFE and FIRE (with GPT-4o, from the MERMAID
paper's Table 1) are printed beside, with their backbone: they score the datasets' own claims, on a far stronger
model, and only say where the field is.

``--llm`` checks with any model (``openai:gpt-4o-mini`` with ``OPENAI_API_KEY``, or a local server's
``openai:NAME`` with ``OPENAI_BASE_URL``); without it, the settings' default (the offline model where setup
installed it). Rows are appended to ``--output``/rows.jsonl as each answer (or claim) is checked; a second run on
the same folder skips those already there, so a cut run resumes. The model cache is off: every check's calls are
made and timed. The load average is printed, and recorded, as the run begins and as it ends."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import factdebate as fd
from factdebate.eval.datasets import Dataset, Sample
from factdebate.eval.datasets.response_loaders import load_factcheck_bench_responses, load_factool_responses
from factdebate.eval.report.intervals import wilson
from factdebate.methods.kit import common as searches

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_log import ROOT, add_record_flag, record

DATASETS = ROOT.parent / "shared" / "datasets"
FALSE = "REFUTES"  # a dataset answer's label when it holds a false statement (BINARY_LABELS' second)
TRUE = "SUPPORTS"


def load_felm(path: Path) -> Dataset:
    """FELM world knowledge as FIRE keeps it: one answer a line (``claim``), ``label`` false when it holds a
    false statement."""
    samples = []
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        row = json.loads(line) if line.strip() else None
        if isinstance(row, dict) and isinstance(row.get("claim"), str) and isinstance(row.get("label"), bool):
            samples.append(Sample(str(index), row["claim"].strip(), TRUE if row["label"] else FALSE,
                                  meta={"question": None}))
    return Dataset(kind="felm-wk", labels=(TRUE, FALSE), samples=samples, unit="response")


SETS: dict[str, tuple[str, Callable[[Path], Dataset]]] = {
    "factcheck-bench": ("factcheck_bench/factcheck-GPT-benchmark.jsonl", load_factcheck_bench_responses),
    "factool-qa": ("factool_qa/knowledge_qa.jsonl", load_factool_responses),
    "felm-wk": ("felm_wk/fire_data.jsonl", load_felm),
}
CLAIM_SETS = ("factcheck-bench", "factool-qa")  # the sets whose answers' claims carry their own labels
# The MERMAID paper's Table 1 (claim level, the datasets' own claims; GPT-4o): True F1, False F1, macro-F1.
PUBLISHED = {
    "FacTool (GPT-4o)": {"factool-qa": (0.84, 0.58, 0.71), "factcheck-bench": (0.82, 0.64, 0.73)},
    "FactCheck-GPT (GPT-4o)": {"factool-qa": (0.84, 0.60, 0.72), "factcheck-bench": (0.83, 0.65, 0.74)},
    "SAFE (GPT-4o)": {"factool-qa": (0.88, 0.63, 0.76), "factcheck-bench": (0.84, 0.65, 0.74)},
    "FIRE (GPT-4o)": {"factool-qa": (0.89, 0.66, 0.77), "factcheck-bench": (0.85, 0.66, 0.76)},
}


def claims_of(dataset: Dataset) -> Dataset:
    """The answers' claims that carry a true or false label, each a sample with its answer's question."""
    samples = [Sample(f"{answer.id}.{number}", claim, gold,
                      meta={"question": answer.meta.get("question"), "answer": answer.id})
               for answer in dataset.samples
               for number, (claim, gold) in enumerate(zip(answer.meta.get("claims") or [],
                                                          answer.meta.get("claim_golds") or [], strict=False))
               if gold in (TRUE, FALSE) and claim.strip()]
    return Dataset(kind=f"{dataset.kind}-claims", labels=(TRUE, FALSE), samples=samples, unit="claim")


def draw(dataset: Dataset, count: int, seed: int) -> list[Sample]:
    """``count`` samples, half of each gold label where the set has enough, in a seeded order."""
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


@contextlib.contextmanager
def passages_searched() -> Iterator[list[str]]:
    """The texts of every passage a search returned while inside, in full. Every tier's and method's search
    is counted in one place (methods/kit/common.book_tool_call, which search_tool calls with the passages it
    returned), so this wraps that one function for the check's duration: the benchmark reads what the checker
    was given, and the check itself runs unchanged."""
    found: list[str] = []
    booked = searches.book_tool_call

    def keeping(tool: str, query: str, k: int, documents: list[Any], seconds: float, **where: Any) -> None:
        found.extend(d.text for d in documents)
        booked(tool, query, k, documents, seconds, **where)

    searches.book_tool_call = keeping
    try:
        yield found
    finally:
        searches.book_tool_call = booked


def _spaced(text: str) -> str:
    return " ".join(text.split())


def held(quote: str | None, passages: list[str]) -> bool:
    """Whether one of ``passages`` holds ``quote`` word for word (spacing aside)."""
    wanted = _spaced(quote or "")
    return bool(wanted) and any(wanted in _spaced(p) for p in passages)


def claim_row(claim: Any, passages: list[str]) -> dict[str, Any]:
    """A GuardClaim as the table reads it: its verdict, why it is unchecked, the quote its verdict stands on
    (the passage it cites first: the stance step's copied sentence at the fast tier) and whether a passage of
    the check holds that quote."""
    quote = next((e.quote for e in claim.evidence if e.cited), None) if claim.status == "checked" else None
    return {"claim": claim.claim, "label": claim.label, "status": claim.status, "reason": claim.reason,
            "quote": quote, "quote_held": held(quote, passages) if quote else None,
            "cited": [f"{e.title}: {e.quote}" for e in claim.evidence if e.cited]}


async def check(way: str, sample: Sample, args: argparse.Namespace,
                extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """One answer (or claim) checked one way: the row the tables are made of. ``extra``: more keywords for the
    check (a test's scripted model and passages)."""
    # No model cache: an answer checked again must cost its calls again, or a second run measures nothing.
    options: dict[str, Any] = {"cache": False, **({"llm": args.llm} if args.llm else {}), **(extra or {})}
    given = [str(e["text"] if isinstance(e, dict) else e) for e in options.get("evidence") or []]
    question = sample.meta.get("question") if sample.meta else None
    meter, started, cpu = Meter(), time.monotonic(), cpu_seconds()
    claims: list[dict[str, Any]] = []
    skipped: list[str] = []
    error = None
    try:
        if way.startswith("tier:"):
            with passages_searched() as searched:
                result = await fd.aguard(sample.claim, question=question, tier=way[5:],  # type: ignore[arg-type]
                                         deadline_s=args.deadline_s, policy="flag", on_event=meter, **options)
            calls = result.usage.model_calls
            # the words a verdict rests on, kept so that a flag can be read without running the answer again
            claims = [claim_row(c, given + searched) for c in result.claims]
            skipped = [s.reason for s in result.skipped]
            if result.degraded:
                error = result.degraded_reason
        else:
            verdict = await fd.acheck_response(sample.claim, question=question, on_event=meter,
                                               method=way[7:], **options)  # type: ignore[arg-type]
            calls = verdict.usage.llm_calls if verdict.usage else 0
            # no quote: check-response's claims do not say which passage's words they stand on
            claims = [{"claim": c.claim, "label": c.label, "status": "checked" if c.label else "unchecked",
                       "reason": c.error, "quote": None, "quote_held": None} for c in verdict.claims]
            skipped = [u.reason for u in verdict.unchecked]
    except fd.FactDebateError as exc:
        calls, error = 0, str(exc)
    return {"way": way, "id": sample.id, "gold": sample.gold, "claims": claims, "skipped": skipped,
            "error": error, "calls": calls, "tokens": meter.tokens, "seconds": round(time.monotonic() - started, 2),
            "cpu_s": round(cpu_seconds() - cpu, 2), "flagged": any(c["label"] == FALSE for c in claims)}


def stands(claim: dict[str, Any]) -> bool:
    """Whether a reader may be told the claim was checked true: SUPPORTS, status checked, on a quote. A row
    written before quotes were kept has none, and does not count."""
    return claim["label"] == TRUE and claim["status"] == "checked" and bool(claim.get("quote"))


def passed(row: dict[str, Any]) -> bool:
    """Whether the answer passes as checked: not flagged, with claims, every one of them standing."""
    return not row["flagged"] and bool(row["claims"]) and all(stands(c) for c in row["claims"])


def not_passed_why(row: dict[str, Any]) -> str:
    """Why a row that is neither flagged nor passed is not: its first claim that does not stand, or why it
    has none."""
    for claim in row["claims"]:
        if claim["status"] != "checked":
            return str(claim["reason"] or "no reason given")[:90]
        if not stands(claim):
            return f"checked {claim['label']}" + ("" if claim["label"] != TRUE else ", with no quote")
    if row["error"]:
        return f"answer degraded: {str(row['error'])[:80]}"
    return "no claim drawn" + (f": {row['skipped'][0][:70]}" if row.get("skipped") else "")


def per(rows: list[dict[str, Any]], key: str) -> float:
    """``key``'s mean over ``rows``."""
    return sum(r[key] for r in rows) / len(rows)


def ratio(hits: int, total: int) -> tuple[str, float | None]:
    """``hits`` of ``total`` as the table shows it (share, Wilson interval, counts) and the share (None when
    ``total`` is 0: no figure, the table's "–", not 0)."""
    if not total:
        return f"– ({hits}/{total})", None
    low, high = wilson(hits, total)
    return f"{hits / total:.2f} [{low:.2f}, {high:.2f}] ({hits}/{total})", hits / total


def f1(hits: int, predicted: int, actual: int) -> float:
    return 2 * hits / (predicted + actual) if hits else 0.0


def response_table(rows: list[dict[str, Any]]) -> tuple[list[str], dict[str, Any]]:
    """The answer-level table, per set and way, and its figures to record."""
    lines = ["| set | way | answers | precision [95% CI] | recall [95% CI] | F1 | unchecked claims | NEI "
             "claims | s / answer | calls / answer | tokens / answer | CPU-s / answer |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    figures: dict[str, Any] = {}
    for (name, way) in sorted({(r["set"], r["way"]) for r in rows}):
        mine = [r for r in rows if r["set"] == name and r["way"] == way]
        tp = sum(r["flagged"] and r["gold"] == FALSE for r in mine)
        flagged = sum(r["flagged"] for r in mine)
        positives = sum(r["gold"] == FALSE for r in mine)
        shown_p, precision = ratio(tp, flagged)
        shown_r, recall = ratio(tp, positives)
        claims = [c for r in mine for c in r["claims"]]
        unchecked = sum(c["status"] != "checked" for c in claims)
        nei = sum(c["label"] == "NOT ENOUGH INFO" for c in claims)
        lines.append(f"| {name} | {way} | {len(mine)} | {shown_p} | {shown_r} | {f1(tp, flagged, positives):.2f} | "
                     f"{unchecked} of {len(claims)} | {nei} | {per(mine, 'seconds'):.0f} | "
                     f"{per(mine, 'calls'):.1f} | {per(mine, 'tokens'):.0f} | {per(mine, 'cpu_s'):.0f} |")
        key = f"{name}.{way.replace(':', '-')}"
        # a precision with nothing flagged (or a recall with nothing false) is not a figure: left out, not 0
        figures.update({f"{key}.{what}": round(value, 3)
                        for what, value in (("precision", precision), ("recall", recall)) if value is not None})
        figures.update({f"{key}.answers": len(mine), f"{key}.f1": round(f1(tp, flagged, positives), 3),
                        f"{key}.unchecked_claims": unchecked, f"{key}.claims": len(claims),
                        f"{key}.passed": sum(passed(r) for r in mine),
                        f"{key}.seconds_per_answer": round(per(mine, "seconds"), 1),
                        f"{key}.calls_per_answer": round(per(mine, "calls"), 2)})
    return lines, figures


def reader_table(rows: list[dict[str, Any]]) -> list[str]:
    """What a reader of each answer is told, by way and gold, with how many checked claims' quotes a passage
    of their check holds."""
    lines = ["| way | gold | flagged | not passed: a claim unchecked, NOT ENOUGH INFO or without a quote, with "
             "why | passed: every claim SUPPORTS, checked, on a quote | checked claims whose quote a passage "
             "holds |", "|---|---|---|---|---|---|"]
    for way in sorted({r["way"] for r in rows}):
        for false, name in ((True, "holds a false statement"), (False, "correct")):
            mine = [r for r in rows if r["way"] == way and (r["gold"] == FALSE) == false]
            flagged = sum(r["flagged"] for r in mine)
            ok = sum(passed(r) for r in mine)
            quoted = [c for r in mine for c in r["claims"] if c["status"] == "checked" and c.get("quote")]
            kept = sum(bool(c.get("quote_held")) for c in quoted)
            lines.append(f"| {way} | {name} ({len(mine)}) | {flagged} | {len(mine) - flagged - ok} | {ok} | "
                         f"{kept} of {len(quoted)} |")
    return lines


def why_lines(rows: list[dict[str, Any]], title: str) -> list[str]:
    """The reasons claims were left unchecked (or answers not passed), most common first."""
    reasons: Counter[str] = Counter()
    for row in rows:
        reasons.update(str(c["reason"] or "no reason given")[:90] for c in row["claims"] if c["status"] != "checked")
        if row["error"] and not row["claims"]:
            reasons[f"answer degraded: {str(row['error'])[:80]}"] += 1
        elif not row["claims"]:
            reasons[not_passed_why(row)] += 1
    return ["", title, "", *([f"- {count} × {reason}" for reason, count in reasons.most_common(12)] or ["- none"])]


def claim_verdict(row: dict[str, Any]) -> str:
    """A gold claim's outcome: REFUTES (flagged), SUPPORTS (every claim drawn from it stands) or unchecked."""
    if row["flagged"]:
        return FALSE
    return TRUE if passed(row) else "unchecked"


def claim_table(rows: list[dict[str, Any]]) -> tuple[list[str], dict[str, Any]]:
    """The claim-level tables, per set and way: false claims caught and true claims checked SUPPORTS, each with
    precision over what was said and recall over the gold (unchecked counted as missed), then each gold
    label's outcomes."""
    lines = ["| set | way | claims (false / true) | false caught: precision [95% CI] | recall [95% CI] | False F1 | "
             "true checked SUPPORTS: precision [95% CI] | recall [95% CI] | True F1 | unchecked | s / claim |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    by_gold = ["| set | way | gold | claims | flagged REFUTES | checked SUPPORTS on a quote | unchecked |",
               "|---|---|---|---|---|---|---|"]
    figures: dict[str, Any] = {}
    for (name, way) in sorted({(r["set"], r["way"]) for r in rows}):
        mine = [r for r in rows if r["set"] == name and r["way"] == way]
        said = [(r["gold"], claim_verdict(r)) for r in mine]
        false = sum(g == FALSE for g, _ in said)
        true = len(said) - false
        key = f"claims.{name}.{way.replace(':', '-')}"
        shown = []
        for label, gold_count in ((FALSE, false), (TRUE, true)):
            hits = sum(g == label and v == label for g, v in said)
            predicted = sum(v == label for _, v in said)
            shown_p, precision = ratio(hits, predicted)
            shown_r, recall = ratio(hits, gold_count)
            score = f1(hits, predicted, gold_count)
            shown += [shown_p, shown_r, f"{score:.2f}"]
            what = "false" if label == FALSE else "true"
            figures.update({f"{key}.{what}_{m}": round(v, 3)
                            for m, v in (("precision", precision), ("recall", recall)) if v is not None})
            figures[f"{key}.{what}_f1"] = round(score, 3)
        unchecked = sum(v == "unchecked" for _, v in said)
        lines.append(f"| {name} | {way} | {len(said)} ({false} / {true}) | {' | '.join(shown)} | "
                     f"{unchecked} of {len(said)} | {per(mine, 'seconds'):.0f} |")
        for gold, count in ((FALSE, false), (TRUE, true)):
            outcome = Counter(v for g, v in said if g == gold)
            by_gold.append(f"| {name} | {way} | {'false' if gold == FALSE else 'true'} | {count} | "
                           f"{outcome[FALSE]} | {outcome[TRUE]} | {outcome['unchecked']} |")
        figures.update({f"{key}.claims": len(said), f"{key}.false_claims": false, f"{key}.unchecked": unchecked,
                        f"{key}.seconds_per_claim": round(per(mine, "seconds"), 1)})
    return [*lines, "", "Each gold label's outcomes:", "", *by_gold], figures


def published_lines() -> list[str]:
    lines = ["", "Published, claim level on the datasets' own claims (MERMAID paper, Table 1): True F1 / False F1 / "
             "macro-F1", ""]
    for system, sets in PUBLISHED.items():
        lines.append(f"- {system}: " + "; ".join(f"{name} {t:.2f} / {f:.2f} / {m:.2f}"
                                                 for name, (t, f, m) in sets.items()))
    return lines


def table(rows: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The markdown tables and the figures to record: answer level, or claim level where the rows are claims."""
    if rows and rows[0].get("unit") == "claim":
        lines, figures = claim_table(rows)
        reasons = Counter(not_passed_why(r) for r in rows if claim_verdict(r) == "unchecked")
        lines += ["", "Why claims were left unchecked (all ways; the first reason of each):", "",
                  *([f"- {count} × {reason}" for reason, count in reasons.most_common(12)] or ["- none"])]
        return "\n".join([*lines, *published_lines()]), figures
    lines, figures = response_table(rows)
    lines += ["", "What a reader of each answer is told (all sets, by way):", "", *reader_table(rows)]
    lines += why_lines(rows, "Why claims were left unchecked (all ways):")
    return "\n".join([*lines, *published_lines()]), figures


def samples(name: str, args: argparse.Namespace) -> list[Sample]:
    """The set's draw: answers, or with ``--claims-level`` its labelled claims."""
    relative, loader = SETS[name]
    dataset = loader(Path(args.datasets) / relative)
    if args.claims_level:
        return draw(claims_of(dataset), args.claims, args.seed)
    return draw(dataset, args.answers, args.seed)


async def run(args: argparse.Namespace) -> None:
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    rows_file = out / "rows.jsonl"
    rows = [json.loads(line) for line in rows_file.read_text(encoding="utf-8").splitlines()] \
        if rows_file.exists() else []
    unit = "claim" if args.claims_level else "answer"
    if any(r.get("unit", "answer") != unit for r in rows):
        raise SystemExit(f"{rows_file} holds rows of the other level: give this run its own --output")
    done = {(r["set"], r["way"], r["id"]) for r in rows}
    ways = [f"tier:{t}" for t in args.tiers.split(",") if t] + [f"method:{m}" for m in args.methods.split(",") if m]
    for name in args.sets.split(","):
        drawn = samples(name, args)
        for number, sample in enumerate(drawn, 1):
            for way in ways:
                if (name, way, sample.id) in done:
                    continue
                row = {"set": name, "unit": unit, **await check(way, sample, args)}
                rows.append(row)
                with rows_file.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(f"{name} {number}/{len(drawn)} {way}: gold {row['gold']}, flagged {row['flagged']}, "
                      f"{len(row['claims'])} claims, {row['seconds']:.0f} s, {row['calls']} calls"
                      + (f" ({row['error'][:100]})" if row["error"] else ""), file=sys.stderr, flush=True)
    text, figures = table(rows)
    (out / "table.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    after = os.getloadavg()
    print("load average as the run began: " + " ".join(f"{x:.2f}" for x in args.load_all) + "; as it ended: "
          + " ".join(f"{x:.2f}" for x in after), file=sys.stderr)
    if args.record:
        record("real_answers_claims" if args.claims_level else "real_answers",
               {**figures, "llm": args.llm or "default", "deadline_s": args.deadline_s,
                "load_after": round(after[0], 2)}, load=args.load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=None, help="comma-separated (default: every set, or with --claims-level "
                                                     "those whose claims carry labels)")
    parser.add_argument("--answers", type=int, default=6, help="answers per set (default 6)")
    parser.add_argument("--claims-level", action="store_true",
                        help="check the sets' labelled claims one by one, each as its own reply")
    parser.add_argument("--claims", type=int, default=12, help="claims per set with --claims-level (default 12)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tiers", default="fast", help="the guard's tiers, comma-separated ('' for none)")
    parser.add_argument("--methods", default="", help="check-response methods, comma-separated (e.g. madke)")
    parser.add_argument("--llm", default=None, help="the checker model (default: the settings' default)")
    parser.add_argument("--deadline-s", type=float, default=120.0, help="the guard's deadline per answer")
    parser.add_argument("--datasets", default=str(DATASETS))
    parser.add_argument("--output", default=None,
                        help="the rows' folder (default runs/real_answers, or runs/real_answers_claims)")
    add_record_flag(parser)
    args = parser.parse_args()
    args.sets = args.sets or ",".join(CLAIM_SETS if args.claims_level else SETS)
    args.output = args.output or str(ROOT / "runs" / ("real_answers_claims" if args.claims_level else "real_answers"))
    unknown = set(args.sets.split(",")) - set(SETS)
    if unknown:
        parser.error(f"unknown set(s) {', '.join(sorted(unknown))}; the sets: {', '.join(SETS)}")
    unlabelled = set(args.sets.split(",")) - set(CLAIM_SETS)
    if args.claims_level and unlabelled:
        parser.error(f"{', '.join(sorted(unlabelled))}: labelled by answer only; --claims-level takes "
                     f"{', '.join(CLAIM_SETS)}")
    if not Path(args.datasets).is_dir():
        parser.error(f"{args.datasets}: no such folder (the public samples, ../shared/datasets)")
    args.load_all = os.getloadavg()
    args.load = args.load_all[0]
    print("load average as the run begins: " + " ".join(f"{x:.2f}" for x in args.load_all), file=sys.stderr)
    # The benchmark is the operator here: a deadline above the guard's cap (guard.max_deadline_s, 120 s by
    # default) raises the cap, so the deadline asked is the one the checks run under.
    if args.deadline_s > 120:
        os.environ.setdefault("FACTDEBATE_GUARD__MAX_DEADLINE_S", f"{args.deadline_s:g}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
