"""How often an in-process model's flag is right where the guard would let it stand, on claim-evidence pairs in
the mix Factcheck-Bench has them (``factcheck_bench/subtask3_claim_evidence_stance.jsonl``: two thirds of the
passages irrelevant to their claim, one in twenty refuting it).

    .venv/bin/python benchmarks/stance_flags.py [--pairs-asked 120] [--seed 5] [--llm SPEC] [--output DIR]
        [--guard] [--record]

With a model that runs in this process, a REFUTES stands only where the stance step answers ``contradicts`` on
the passage sentence closest to the claim and that sentence writes something in the claim's place
(guard_engine/stance.py: ``writes_against``). benchmarks/stance_step.py draws a quarter of each stance, which
says how the step tells stances apart, not how often a flag is right on passages as they come. Here every pair
whose closest sentence writes against its claim is a candidate (the rule is cheap; the encoder picks the
sentence as the guard does), ``--pairs-asked`` of them are drawn with ``--seed`` and each is asked the stance
call. The table gives the flags' precision (of the pairs answered ``contradicts``, how many the annotators
marked refute) with its Wilson interval, the stances of the candidates and of the flags, and, since only
candidates are asked, the recall of the whole path over the set's refuting pairs as an estimate (flags found
among those asked, scaled to all candidates). With ``--guard``, each pair answered ``contradicts`` is then
checked the way the guard checks a caller's passage (``fd.aguard(claim, evidence=[passage], tier="fast",
evidence_mode="given")``, as benchmarks/stance_pairs.py does): a flag needs the checker's REFUTES as well,
so these are the flags a reader would see (a pair answered ``states`` cannot be one: the stance call is the
same). Rows are appended to ``--output``/rows.jsonl as each pair is
decided; a second run on the same folder skips the pairs already there."""

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
from factdebate.core.types import Document
from factdebate.guard_engine.stance import closest_sentences, passage_sentences, stance_reply, writes_against
from factdebate.run.build import build_resources
from factdebate.settings.load import settings_from

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_log import add_record_flag, record
from benchmarks.stance_pairs import PAIRS
from benchmarks.stance_pairs import _interval as interval


async def run(args: argparse.Namespace) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Counter[str]]:
    lines = args.pairs.read_text(encoding="utf-8").splitlines()
    pairs = [{**json.loads(line), "id": n} for n, line in enumerate(lines) if line.strip()]
    every = Counter(p["stance"] for p in pairs)
    resources = build_resources(settings_from({"llm": args.llm} if args.llm else {}))
    path = args.output / "rows.jsonl"
    done = {r["id"]: r for r in map(json.loads, path.read_text().splitlines())} if path.exists() else {}
    try:
        candidates = []
        for number, pair in enumerate(pairs, 1):
            document = Document(id="p", title="Passage", text=pair["evidence"])
            if not any(writes_against(pair["claim"], s, document.title) for s in passage_sentences(document)):
                continue  # no sentence of it writes against the claim, the closest one included
            quote = await closest_sentences(pair["claim"], [document], resources.encoder)
            if quote is not None and writes_against(pair["claim"], quote.text, document.title):
                candidates.append({**pair, "quote": quote.text})
            if number % 500 == 0:
                print(f"[{number}/{len(pairs)}] pairs read, {len(candidates)} candidates", file=sys.stderr, flush=True)
        asked = random.Random(args.seed).sample(candidates, min(args.pairs_asked, len(candidates)))
        llm = resources.llm("debater")
        for number, pair in enumerate(asked, 1):
            if pair["id"] in done and (not args.guard or "guard" in done[pair["id"]]
                                       or done[pair["id"]]["answer"] != "contradicts"):
                continue
            started = time.monotonic()
            row = done.get(pair["id"])  # asked before, without the guard
            if row is None:
                document = Document(id="p", title="Passage", text=pair["evidence"])
                quote = await closest_sentences(pair["claim"], [document], resources.encoder)
                assert quote is not None
                reply = await stance_reply(pair["claim"], quote, llm)
                row = {"id": pair["id"], "claim": pair["claim"], "stance": pair["stance"], "quote": quote.text,
                       "answer": reply.answer or "unread", "seconds": round(time.monotonic() - started, 1)}
            if args.guard and row["answer"] == "contradicts":
                result = await fd.aguard(pair["claim"], evidence=[{"title": "Passage", "text": pair["evidence"]}],
                                         evidence_mode="given", tier="fast", deadline_s=300, policy="annotate")
                row["guard"] = result.label.value if result.label is not None else None
            done[pair["id"]] = row
            with path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
            print(f"[{number}/{len(asked)}] {pair['stance']:<18} -> {row['answer']:<11} {pair['claim'][:70]}",
                  file=sys.stderr, flush=True)
    finally:
        await resources.aclose()
    return [done[p["id"]] for p in asked if p["id"] in done], candidates, every


def table(rows: list[dict[str, Any]], candidates: list[dict[str, Any]],
          every: Counter[str]) -> tuple[str, dict[str, Any]]:
    flags = [r for r in rows if r["answer"] == "contradicts"]
    right = sum(r["stance"] == "refute" for r in flags)
    found = round(right / len(rows) * len(candidates)) if rows else 0
    lines = [f"{sum(every.values())} pairs ({json.dumps(dict(every))}); the closest sentence writes against the claim "
             f"on {len(candidates)} ({json.dumps(dict(Counter(c['stance'] for c in candidates)))})",
             f"asked: {len(rows)} ({json.dumps(dict(Counter(r['stance'] for r in rows)))}); answers "
             f"{json.dumps(dict(Counter(r['answer'] for r in rows)))}",
             f"flags (contradicts on such a sentence): precision {right}/{len(flags)} {interval(right, len(flags))}; "
             f"given to {json.dumps(dict(Counter(r['stance'] for r in flags)))}",
             f"recall over the set's {every['refute']} refuting pairs, estimated: about {found} "
             f"({found / every['refute']:.2f})" if every["refute"] else "no refuting pairs"]
    guarded = [r for r in flags if "guard" in r]
    if guarded:
        shown = [r for r in guarded if r["guard"] == "REFUTES"]
        hit = sum(r["stance"] == "refute" for r in shown)
        lines.append(f"flags the guard gives (the checker's REFUTES too), of {len(guarded)} pairs answered "
                     f"contradicts: precision {hit}/{len(shown)} {interval(hit, len(shown))}; given to "
                     f"{json.dumps(dict(Counter(r['stance'] for r in shown)))}")
    figures = {"pairs": sum(every.values()), "candidates": len(candidates), "asked": len(rows),
               "flags.precision": f"{right}/{len(flags)}", "recall_estimate": f"{found}/{every['refute']}"}
    return "\n".join(lines), figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs-asked", type=int, default=120)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--llm", default=None, help="the checker model (default: the settings' default)")
    parser.add_argument("--guard", action="store_true", help="check each pair answered contradicts through "
                        "fd.aguard as well, the checker's label included")
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--output", type=Path, default=Path("stance-flags"))
    add_record_flag(parser)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    args.output.mkdir(parents=True, exist_ok=True)
    rows, candidates, every = asyncio.run(run(args))
    text, figures = table(rows, candidates, every)
    print(text)
    if args.record:
        record("stance_flags", {**figures, "llm": args.llm or "default", "seed": args.seed}, load=load)


if __name__ == "__main__":
    main()
