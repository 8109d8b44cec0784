"""What each word rule kept beside the guard's stance step does on claim-evidence pairs no one here wrote:
Factcheck-Bench's stance pairs (``factcheck_bench/subtask3_claim_evidence_stance.jsonl``, all of them; no model
is called).

    .venv/bin/python benchmarks/word_rules.py [--pairs FILE] [--record]

A rule that stops a label is worth keeping where it stops that label on pairs whose passage does not say so
more often than on pairs whose passage does. For each rule and each annotated stance, the share of pairs on
which the rule would stop the label:

- ``unseen_numbers`` (guard_engine/fast.py) stops a SUPPORTS of a claim whose number the passage does not write:
  right on completely-support pairs, a loss; on refute and irrelevant pairs, a wrong SUPPORTS stopped.
- ``bears_on`` (guard_engine/fast.py), applied by the stance step to the sentence it copies, stops a REFUTES
  whose sentence says nothing of what the claim states. Here any sentence of the passage may be the copied one
  (the most the rule lets through): right on refute pairs, a loss; on irrelevant pairs, a wrong flag stopped.
- ``writes_claim`` (guard_engine/stance.py), applied to an in-process model's ``states``, stops a SUPPORTS
  whose copied sentence does not write the claim's names, numbers and most of its words; any sentence may be
  the copied one here too: on completely-support pairs, a loss; on the others, a wrong "checked" stopped.
- ``writes_against`` (guard_engine/stance.py), applied to an in-process model's ``contradicts``, stops a
  REFUTES whose copied sentence writes no other number, name or negation in the claim's place: on refute pairs,
  a loss; on the others, a wrong flag stopped.

Shares come with Wilson intervals."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from factdebate.core.types import Document
from factdebate.guard_engine.fast import bears_on, unseen_numbers
from factdebate.response_level.spans import sentences

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_log import add_record_flag, record
from benchmarks.stance_pairs import PAIRS, STANCES
from benchmarks.stance_pairs import _interval as interval
from factdebate.guard_engine.stance import writes_against, writes_claim


def stopped(claim: str, evidence: str) -> dict[str, bool]:
    """Whether each rule stops its label on one pair."""
    passage = Document(id="p", title="Passage", text=evidence)
    quotes = [evidence[a:b] for a, b in sentences(evidence)] or [evidence]
    return {"unseen_numbers": bool(unseen_numbers(claim, [passage])),
            "bears_on": not any(bears_on(claim, q, f"Passage: {evidence}") for q in quotes),
            "writes_claim": not any(writes_claim(claim, q) for q in quotes),
            "writes_against": not any(writes_against(claim, q) for q in quotes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    add_record_flag(parser)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = [json.loads(line) for line in args.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    total: Counter[str] = Counter()
    hits: Counter[tuple[str, str]] = Counter()
    for row in rows:
        total[row["stance"]] += 1
        for rule, stops in stopped(row["claim"], row["evidence"]).items():
            hits[(rule, row["stance"])] += stops
    figures: dict[str, str] = {"pairs": str(len(rows))}
    print(f"{len(rows)} pairs; the share of each stance's pairs on which the rule stops its label")
    print(f"{'rule':<16}" + "".join(f"{s:>28}" for s in STANCES))
    for rule in ("unseen_numbers", "bears_on", "writes_claim", "writes_against"):
        cells = []
        for stance in STANCES:
            hit, of = hits[(rule, stance)], total[stance]
            cells.append(f"{hit}/{of} {interval(hit, of)}")
            figures[f"{rule}.{stance}"] = f"{hit}/{of}"
        print(f"{rule:<16}" + "".join(f"{c:>28}" for c in cells))
    if args.record:
        record("word_rules", figures, load=load)


if __name__ == "__main__":
    main()
