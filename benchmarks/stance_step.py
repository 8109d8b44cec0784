"""How the guard's stance step decides claim-evidence pairs no one here wrote: Factcheck-Bench's stance pairs
(``factcheck_bench/subtask3_claim_evidence_stance.jsonl``: a claim of a ChatGPT answer, a web passage, and the
annotators' stance: completely-support, partially-support, refute, irrelevant).

    .venv/bin/python benchmarks/stance_step.py [--per-stance 15] [--seed 2] [--llm SPEC] [--output DIR]
        [--thresholds-from DIR] [--target 0.9] [--record]

Each pair runs the step as the guard runs it after a fast-tier label (guard_engine/stance.py): the passage's
sentences closest to the claim by the encoder in use are copied as the quote, and one constrained call answers
``states``, ``contradicts`` or ``neither``. The table gives each answer's precision (of the pairs given it, how
many the annotators gave the matching stance: states = completely-support, contradicts = refute, neither =
irrelevant; partially-support is counted apart) and recall, with Wilson intervals, and what the step does to a
SUPPORTS or a REFUTES the checker gave: a SUPPORTS stands only on ``states``, a REFUTES only on
``contradicts``; and of an in-process model, a SUPPORTS only on ``states`` of a quote that writes the claim
(stance.writes_claim), and a REFUTES only on ``contradicts`` of a quote that writes another number, name or
negation in the claim's place (stance.writes_against), which the table gives apart. The quote is the closest
sentence, as the guard copies it for a served model's label (for an in-process model's SUPPORTS the guard
prefers, of the three closest, one that writes the claim). Rows are appended to ``--output``/rows.jsonl as each
pair is decided; a second run on the same folder skips the pairs already there.

Where the backend reads the model's probability of each stance (llama.cpp in process), each row keeps them, and
``--thresholds-from DIR`` chooses on that folder's rows (another draw: its pairs are left out of this one) the
least probability at which ``states`` and ``contradicts`` reach ``--target`` precision there, then gives this
draw's precision and recall with those thresholds beside the answers as written
(guard_engine/stance.py: THRESHOLDS)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from factdebate.core.types import Document
from factdebate.guard_engine.stance import (
    StanceReply,
    closest_sentences,
    decided,
    stance_reply,
    writes_against,
    writes_claim,
)
from factdebate.run.build import build_resources
from factdebate.settings.load import settings_from

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_log import add_record_flag, record
from benchmarks.stance_pairs import PAIRS, STANCES, draw
from benchmarks.stance_pairs import _interval as interval

MATCHING = {"states": "completely-support", "contradicts": "refute", "neither": "irrelevant"}


async def decide(pairs: list[dict[str, Any]], args: argparse.Namespace, path: Path,
                 done: dict[int, dict[str, Any]]) -> None:
    resources = build_resources(settings_from({"llm": args.llm} if args.llm else {}))
    llm = resources.llm("debater")
    try:
        for number, pair in enumerate(pairs, 1):
            if pair["id"] in done:
                continue
            started = time.monotonic()
            quote = await closest_sentences(pair["claim"], [Document(id="p", title="Passage", text=pair["evidence"])],
                                            resources.encoder)
            reply = await stance_reply(pair["claim"], quote, llm) if quote is not None else StanceReply(None)
            row = {"id": pair["id"], "claim": pair["claim"], "stance": pair["stance"],
                   "answer": reply.answer or "unread", "probs": reply.probs,
                   "quote": quote.text if quote else "", "seconds": round(time.monotonic() - started, 1)}
            done[pair["id"]] = row
            with path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
            print(f"[{number}/{len(pairs)}] {pair['stance']:<18} -> {row['answer']:<11} {row['seconds']:>6} s  "
                  f"{pair['claim'][:70]}", file=sys.stderr, flush=True)
    finally:
        await resources.aclose()


def table(rows: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    got = [(r["answer"], r["stance"]) for r in rows]
    lines = [f"the stance step on {len(rows)} pairs", f"{'answer':<12} {'precision':>22} {'recall':>22}  "
             "given to partially-support"]
    figures: dict[str, Any] = {"pairs": len(rows), "unread": sum(a == "unread" for a, _ in got)}
    for answer, stance in MATCHING.items():
        given = [s for a, s in got if a == answer]
        of = [a for a, s in got if s == stance]
        hit_p, hit_r = sum(s == stance for s in given), sum(a == answer for a in of)
        partial = sum(s == "partially-support" for s in given)
        lines.append(f"{answer:<12} {hit_p:>3}/{len(given):<3} {interval(hit_p, len(given)):>14} "
                     f"{hit_r:>3}/{len(of):<3} {interval(hit_r, len(of)):>14}  {partial}")
        figures[f"{answer}.precision"] = f"{hit_p}/{len(given)}"
        figures[f"{answer}.recall"] = f"{hit_r}/{len(of)}"
    lines.append("confusion (stance -> answer): " + json.dumps(
        {s: dict(Counter(a for a, t in got if t == s)) for s in STANCES}))
    # What the step keeps of a label the checker gave, on pairs whose passage does not say so
    wrong_kept = sum(a == "states" for a, s in got if s in ("refute", "irrelevant"))
    wrong = sum(s in ("refute", "irrelevant") for _, s in got)
    lines.append(f"a SUPPORTS on a refute or irrelevant pair stands on {wrong_kept} of {wrong}; on a "
                 f"completely-support pair on {sum(a == 'states' for a, s in got if s == 'completely-support')} of "
                 f"{sum(s == 'completely-support' for _, s in got)}")
    # An in-process model's states stands only on a quote that writes the claim (stance.writes_claim), and its
    # contradicts only on one that writes something in the claim's place (stance.writes_against)
    for key, answer, stance, rule, what in (
            ("written_states", "states", "completely-support", writes_claim,
             "states on a quote that writes the claim (an in-process model's SUPPORTS)"),
            ("against_contradicts", "contradicts", "refute", writes_against,
             "contradicts on a quote that writes against the claim (an in-process model's REFUTES)")):
        kept = [r["stance"] for r in rows if r["answer"] == answer and rule(r["claim"], r["quote"])]
        hit, of = sum(s == stance for s in kept), sum(s == stance for _, s in got)
        lines.append(f"{what}: precision {hit}/{len(kept)} {interval(hit, len(kept))}, recall {hit}/{of} "
                     f"{interval(hit, of)}; given to {json.dumps(dict(Counter(kept)))}")
        figures[f"{key}.precision"] = f"{hit}/{len(kept)}"
        figures[f"{key}.recall"] = f"{hit}/{of}"
    seconds = sorted(r["seconds"] for r in rows)
    if seconds:
        figures["median_s"] = seconds[len(seconds) // 2]
    return "\n".join(lines), figures


def choose(rows: list[dict[str, Any]], target: float) -> dict[str, float]:
    """For ``states`` and ``contradicts``: the least probability at which the pairs at or above it are of the
    matching stance in at least ``target`` of cases (three pairs at least); where none reaches it, the one of
    best precision. Rows without probabilities are left out."""
    scored = [r for r in rows if r.get("probs")]
    chosen: dict[str, float] = {}
    for answer in ("states", "contradicts"):
        best: tuple[float, float] | None = None  # (precision, threshold)
        for cut in sorted({r["probs"][answer] for r in scored}):
            above = [r for r in scored if r["probs"][answer] >= cut]
            if len(above) < 3:
                break
            precision = sum(r["stance"] == MATCHING[answer] for r in above) / len(above)
            if precision >= target:
                best = (precision, cut)
                break
            if best is None or precision > best[0]:
                best = (precision, cut)
        chosen[answer] = round(best[1], 4) if best else 1.0
    return chosen


def with_thresholds(rows: list[dict[str, Any]], thresholds: dict[str, float]) -> list[dict[str, Any]]:
    """``rows`` with each answer decided by ``thresholds`` (stance.decided), the answer as written kept apart."""
    out = []
    for r in rows:
        reply = StanceReply(None if r["answer"] == "unread" else r["answer"], r.get("probs"))
        out.append({**r, "written": r["answer"], "answer": decided(reply, thresholds) or "unread"})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-stance", type=int, default=15)
    parser.add_argument("--seed", type=int, default=2, help="the draw's seed (stance_pairs.py's draw is seed 0)")
    parser.add_argument("--llm", default=None, help="the checker model (default: the settings' default)")
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--output", type=Path, default=Path("stance-step"))
    parser.add_argument("--thresholds-from", type=Path, default=None,
                        help="a folder of another draw's rows, on which the thresholds are chosen")
    parser.add_argument("--target", type=float, default=0.9, help="the precision the thresholds aim at")
    add_record_flag(parser)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    args.output.mkdir(parents=True, exist_ok=True)
    path = args.output / "rows.jsonl"
    done = {row["id"]: row for row in map(json.loads, path.read_text().splitlines())} if path.exists() else {}
    calibration: list[dict[str, Any]] = []
    if args.thresholds_from is not None:
        calibration = [json.loads(x) for x in (args.thresholds_from / "rows.jsonl").read_text().splitlines()]
    pairs = draw(args.pairs, args.per_stance, args.seed, leave_out={r["id"] for r in calibration})
    asyncio.run(decide(pairs, args, path, done))
    rows = [done[p["id"]] for p in pairs if p["id"] in done]
    text, figures = table(rows)
    print(text)
    if calibration:
        thresholds = choose(calibration, args.target)
        print(f"\nthresholds chosen on {len(calibration)} pairs of {args.thresholds_from} (target precision "
              f"{args.target}): {json.dumps(thresholds)}")
        held, held_figures = table(with_thresholds(rows, thresholds))
        print("with them, on this draw:\n" + held)
        figures.update({f"thresholded.{k}": v for k, v in held_figures.items() if "." in k})
        figures.update({f"threshold.{k}": v for k, v in thresholds.items()})
    if args.record:
        record("stance_step", {**figures, "llm": args.llm or "default", "per_stance": args.per_stance,
                               "seed": args.seed}, load=load)


if __name__ == "__main__":
    main()
