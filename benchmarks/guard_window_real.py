"""The fast tier's one call per reply window against the calls asked apart, on a real model: do the two ways give
the same verdicts, and the right ones? (The conformance worlds prove it with doubles; a small model may read the
combined prompt worse.)

Each reply below is checked plain at the fast tier with its evidence given (``evidence_mode: given``, so no
search runs), once with ``guard.window_call`` on (the default) and once off, through ``factdebate.guard`` in this
process (the model loaded once; run it on an idle machine: a call cut by the deadline leaves its sentences
without claims). For every sentence the script knows whether it is true; it prints, per way, each
sentence's label (the label of the claims drawn from it, ``-`` when none), the right ones, the calls and seconds.

    FACTDEBATE_DATA_DIR=<a data folder holding the offline model> \\
        .venv/bin/python benchmarks/guard_window_real.py --llm llama-cpp:qwen2.5-coder-1.5b
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

# (reply, its sentences' truth, the evidence given)
REPLIES: list[tuple[str, list[bool], list[str]]] = [
    ("The Eiffel Tower is in Rome. It opened in 1889.", [False, True],
     ["The Eiffel Tower is a wrought-iron tower on the Champ de Mars in Paris, France. It opened to the public "
      "in 1889 for the World's Fair."]),
    ("Paris is the capital of France. The Louvre is a museum in Berlin.", [True, False],
     ["Paris is the capital and largest city of France.", "The Louvre is an art museum in Paris, France, and the "
      "most visited museum in the world."]),
    ("Mount Everest is the highest mountain on Earth. It stands in the Andes.", [True, False],
     ["Mount Everest, in the Mahalangur Himal sub-range of the Himalayas on the border of Nepal and China, is "
      "Earth's highest mountain above sea level."]),
    ("The Titanic sank in 1912. It struck an iceberg in the Pacific Ocean.", [True, False],
     ["RMS Titanic sank in the North Atlantic Ocean on 15 April 1912 after striking an iceberg on her maiden "
      "voyage from Southampton to New York City."]),
    ("The Great Wall of China was built over many centuries. Most of what stands today dates from the Ming "
     "dynasty.", [True, True],
     ["The Great Wall of China was built across the historical northern borders of China over many centuries. "
      "The best-known sections of the wall were built by the Ming dynasty (1368-1644)."]),
    ("Water boils at 100 degrees Celsius at sea level. It freezes at 10 degrees Celsius.", [True, False],
     ["At standard atmospheric pressure (sea level), pure water boils at 100 degrees Celsius and freezes at 0 "
      "degrees Celsius."]),
]


def sentence_labels(result: Any, reply: str) -> list[str]:
    """Each sentence's label: the labels of the claims whose spans lie in it (``-``: no claim, ``?``: unchecked)."""
    bounds, start = [], 0
    for part in reply.split(". "):
        end = start + len(part) + 1
        bounds.append((start, end))
        start = end + 1
    out = []
    for lo, hi in bounds:
        found = [c for c in result.claims if c.span is not None and lo <= c.span.start < hi]
        labels = {(c.label.value if c.label else "?") for c in found}
        out.append("/".join(sorted(labels)) if labels else "-")
    return out


def main() -> None:
    import factdebate as fd

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", required=True)
    args = parser.parse_args()
    # The fast tier alone (a refuted claim does not climb), and room for a slow CPU: a deadline that ends the
    # window's call leaves a reply's sentences without claims, which says nothing of how the model reads.
    os.environ["FACTDEBATE_GUARD__MAX_TIER"] = "fast"
    os.environ["FACTDEBATE_GUARD__MAX_DEADLINE_S"] = "1800"
    totals: dict[str, dict[str, float]] = {}
    for way in ("window", "apart"):
        os.environ["FACTDEBATE_GUARD__WINDOW_CALL"] = "true" if way == "window" else "false"
        right = wrong = missed = calls = 0
        seconds = 0.0
        for reply, truth, passages in REPLIES:
            began = time.perf_counter()
            result = fd.guard(reply, tier="fast", deadline_s=900, policy="annotate", llm=args.llm, cache=False,
                              evidence=[{"title": f"Source {n}", "text": p} for n, p in enumerate(passages, 1)],
                              evidence_mode="given")
            took = time.perf_counter() - began
            labels = sentence_labels(result, reply)
            for label, true in zip(labels, truth, strict=True):
                want = "SUPPORTS" if true else "REFUTES"
                if label == want:
                    right += 1
                elif label in ("-", "?"):
                    missed += 1
                else:
                    wrong += 1
            calls += result.usage.model_calls
            seconds += took
            print(json.dumps({"way": way, "reply": reply, "labels": labels, "truth": truth,
                              "calls": result.usage.model_calls, "seconds": round(took, 1)}), flush=True)
        totals[way] = {"right": right, "wrong": wrong, "unchecked": missed, "calls": calls, "seconds": round(seconds)}
    print(json.dumps({"llm": args.llm, "sentences": sum(len(t) for _, t, _ in REPLIES), **totals}))


if __name__ == "__main__":
    main()
