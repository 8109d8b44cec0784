"""The walk of one claim through the tree (docs/architecture.md, "One claim through the
tree"): which of factdebate's modules ``factdebate verify`` passes through for one claim, counted with
``sys.setprofile`` as benchmarks/guard_walk.py counts a guarded reply (the same rule: a new call of a function of
a ``factdebate`` module from a function of another one).

The claim runs in this process through the console script's own ``run()``, Tool-MAD with the scripted model
and the built-in corpus's full-text search (``--agents search,search``), no scoring, no cache; a first claim is
run before the measured one, so nothing loads lazily in the walk. Printed: the calls, the modules they reach, the
calls between layers (the first folder under ``factdebate``), and the modules entered most often.

    FACTDEBATE_DATA_DIR=$(mktemp -d) PYTHONPATH=. python benchmarks/claim_walk.py
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from benchmarks.guard_walk import Walk

ARGS = ["verify", "The Eiffel Tower is in Rome.", "--llm", "scripted:agree", "--agents", "search,search",
        "--no-scoring", "--no-cache", "--json"]


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    from factdebate.cli.main import run

    if run(ARGS) != 0:  # the first claim: builds what is missing, loads what loads lazily
        raise SystemExit("the first claim failed")
    walk = Walk()
    sys.setprofile(walk)
    walk.on = True
    code = run(ARGS)
    walk.on = False
    sys.setprofile(None)
    if code != 0:
        raise SystemExit("the measured claim failed")
    reached = {b for _, b in walk.calls}
    print(f"\ncross-module calls for one claim: {len(walk.calls)} over {len(reached)} modules "
          f"in {len({_layer(m) for m in reached})} layers")
    between = Counter((_layer(a), _layer(b)) for a, b in walk.calls if _layer(a) != _layer(b))
    print(f"calls between layers: {sum(between.values())}; the most frequent:")
    for (a, b), count in between.most_common(12):
        print(f"  {count:5d}  {a} -> {b}")
    print("modules entered most often:")
    for module, count in Counter(b for _, b in walk.calls).most_common(12):
        print(f"  {count:5d}  {module}")


if __name__ == "__main__":
    main()
