"""How the guard's fast tier decides a claim against one passage, on claim-evidence pairs no one here wrote:
Factcheck-Bench's stance pairs (``factcheck_bench/subtask3_claim_evidence_stance.jsonl``: a claim of a ChatGPT
answer, a web passage, and the annotators' stance: completely-support, partially-support, refute, irrelevant).

    .venv/bin/python benchmarks/stance_pairs.py [--per-stance 20] [--llm SPEC] [--deadline-s 300]
        [--output DIR] [--record]

Each pair is checked the way a caller's own passage is (``fd.aguard(claim, evidence=[passage], tier="fast",
evidence_mode="given")``: the extraction and the verdict in the fast tier's calls, no search). ``--per-stance``
pairs are drawn of each stance with a fixed seed. The table gives, for each label the guard can give, its
precision (of the claims given it, how many the annotators gave the matching stance) and recall (of the pairs of
that stance, how many got it), with Wilson intervals, under two readings of the same answers:

- ``checker's label``: the label the checker gave, with every other rule of the fast tier;
- ``quote states it`` (what the guard returns): a SUPPORTS counts only where the checker cited the passage by a
  quote copied from it and the quote with the passage's title is about the claim's subject (what "checked" must
  mean to a reader), else the claim is unchecked.

The matching stance of SUPPORTS is completely-support (partially-support is counted apart: the passage states
part of the claim), of REFUTES refute, and of "unchecked" irrelevant. Rows are appended to ``--output``/rows.jsonl
as each pair is checked; a second run on the same folder skips the pairs already there."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import factdebate as fd
from factdebate.eval.report.intervals import wilson
from factdebate.guard_engine.fast import UNQUOTED, about

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_log import ROOT, add_record_flag, record

PAIRS = ROOT.parent / "shared" / "datasets" / "factcheck_bench" / "subtask3_claim_evidence_stance.jsonl"
STANCES = ("completely-support", "partially-support", "refute", "irrelevant")
MATCHING = {"SUPPORTS": "completely-support", "REFUTES": "refute", "unchecked": "irrelevant"}


def draw(path: Path, per_stance: int, seed: int = 0, leave_out: set[int] | None = None) -> list[dict[str, Any]]:
    """``per_stance`` pairs of each stance, drawn with ``seed``, each with its line number as its id; none of the
    ids in ``leave_out`` (another draw's)."""
    rows = [{**json.loads(line), "id": n} for n, line in enumerate(path.read_text(encoding="utf-8").splitlines())
            if line.strip() and n not in (leave_out or set())]
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for stance in STANCES:
        of = [r for r in rows if r.get("stance") == stance]
        out += rng.sample(of, min(per_stance, len(of)))
    return out


def reading(row: dict[str, Any], strict: bool) -> str:
    """The guard's answer on one pair: SUPPORTS, REFUTES or unchecked (NOT ENOUGH INFO reads as unchecked: no
    passage stated or contradicted the claim). ``strict``: with the rule that a SUPPORTS quotes a passage about
    the claim (guard_engine/fast.py's ``unquoted_support``); without it, a SUPPORTS the rule withheld counts."""
    labels = []
    for claim in row["claims"]:
        label = claim["label"] if claim["status"] == "checked" else None
        if not strict and label is None and _set_aside(claim["reason"] or ""):
            label = "SUPPORTS"  # the checker's own label, which the rule set aside
        if strict and label == "SUPPORTS" and not any(about(row["claim"], f"{c['title']}: {c['quote']}")
                                                      for c in claim["cited"]):
            label = None
        labels.append(label)
    if "REFUTES" in labels:
        return "REFUTES"
    return "SUPPORTS" if labels and all(label == "SUPPORTS" for label in labels) else "unchecked"


def _set_aside(reason: str) -> bool:
    """Whether ``reason`` says the checker answered SUPPORTS and a rule set it aside: the quote rule (with the
    stance step off) or the stance step (guard_engine/stance.py)."""
    return UNQUOTED in reason or "the checker answered SUPPORTS" in reason


async def check(pair: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"cache": False, **({"llm": args.llm} if args.llm else {})}
    started = time.monotonic()
    result = await fd.aguard(pair["claim"], evidence=[{"title": "Passage", "text": pair["evidence"]}],
                             evidence_mode="given", tier="fast", deadline_s=args.deadline_s, policy="annotate",
                             **options)
    claims = [{"claim": c.claim, "label": c.label, "status": c.status, "reason": c.reason,
               "cited": [{"title": e.title, "quote": e.quote} for e in c.evidence if e.cited]}
              for c in result.claims]
    return {"id": pair["id"], "claim": pair["claim"], "stance": pair["stance"], "claims": claims,
            "calls": result.usage.model_calls, "seconds": round(time.monotonic() - started, 1),
            "degraded": result.degraded_reason if result.degraded else None}


def table(rows: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    lines, figures = [], {}
    for name, strict in (("checker's label", False), ("quote states it", True)):
        got = [(reading(r, strict), r["stance"]) for r in rows]
        lines.append(f"\n{name} ({len(got)} pairs)")
        lines.append(f"{'label':<10} {'precision':>22} {'recall':>22}  given to partially-support")
        for label, stance in MATCHING.items():
            given = [s for g, s in got if g == label]
            of = [g for g, s in got if s == stance]
            hit_p, hit_r = sum(s == stance for s in given), sum(g == label for g in of)
            partial = sum(s == "partially-support" for s in given)
            lines.append(f"{label:<10} {hit_p:>3}/{len(given):<3} {_interval(hit_p, len(given)):>14} "
                         f"{hit_r:>3}/{len(of):<3} {_interval(hit_r, len(of)):>14}  {partial}")
            reading_key = "quote_rule" if strict else "checker"  # keys the performance page can show
            figures[f"{reading_key}.{label}.precision"] = f"{hit_p}/{len(given)}"
            figures[f"{reading_key}.{label}.recall"] = f"{hit_r}/{len(of)}"
        lines.append("confusion (stance -> answer): " + json.dumps(
            {s: dict(Counter(g for g, t in got if t == s)) for s in STANCES}))
    return "\n".join(lines), figures


def _interval(k: int, n: int) -> str:
    """k/n with its Wilson interval."""
    if n == 0:
        return "-"
    low, high = wilson(k, n)
    return f"{k / n:.2f} [{low:.2f}, {high:.2f}]"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-stance", type=int, default=20)
    parser.add_argument("--llm", default=None, help="the checker model (default: the settings' default)")
    parser.add_argument("--deadline-s", type=float, default=300.0)
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--output", type=Path, default=Path("stance-pairs"))
    add_record_flag(parser)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    args.output.mkdir(parents=True, exist_ok=True)
    path = args.output / "rows.jsonl"
    done = {json.loads(line)["id"]: json.loads(line) for line in path.read_text().splitlines()} \
        if path.exists() else {}
    pairs = draw(args.pairs, args.per_stance)
    for number, pair in enumerate(pairs, 1):
        if pair["id"] in done:
            continue
        row = await check(pair, args)
        done[pair["id"]] = row
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
        print(f"[{number}/{len(pairs)}] {pair['stance']:<18} -> {reading(row, False):<9} / {reading(row, True):<9} "
              f"{row['seconds']:>6} s  {pair['claim'][:70]}", file=sys.stderr, flush=True)
    rows = [done[p["id"]] for p in pairs if p["id"] in done]
    text, figures = table(rows)
    print(text)
    if args.record:
        record("stance_pairs", {**figures, "llm": args.llm or "default", "per_stance": args.per_stance,
                                "deadline_s": args.deadline_s}, load=load)


if __name__ == "__main__":
    asyncio.run(main())
