"""CPU per guard check in one process, the HTTP server left out: the part of a guarded reply's
CPU that checking its claims takes, measured steadily enough to compare two versions of the code, which
benchmarks/guard_vs_litellm.py's whole-process figures (several milliseconds apart from run to run on a shared
machine) cannot.

Each check is ``check_text`` on guard_vs_litellm.py's 6-sentence reply, tier fast, with tests/guard/support.py's
scripted checker (every claim extracted, the Rome one refuted) and three passages, every event going to a
:class:`~factdebate.server.state.kept_calls.CallKeeper` under the service's metrics watcher, as the service
runs it. ``--cold`` empties the caches that remember texts (sentences, stems, short scrubbed texts) before each
check, so the figure counts only what repeats within one reply: the benchmark checks the same reply every time.
``--guard-src`` runs another checkout's src (``git archive`` of an older commit); runs alternate between the
two (``--rounds``), each in a process of its own.

    .venv/bin/python benchmarks/guard_check_cpu.py --checks 200 --rounds 3 --guard-src /tmp/old/src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ANSWER = ("Paris is the capital of France. The Louvre is a museum in Paris. The Eiffel Tower is in Rome. "
          "The Seine flows through Paris. Montmartre is a hill in Paris. The Pantheon stands in Paris.")
CLAIMS = ["Paris is the capital of France.", "The Louvre is a museum in Paris.", "The Eiffel Tower is in Rome.",
          "The Seine flows through Paris.", "Montmartre is a hill in Paris.", "The Pantheon stands in Paris."]
PASSAGE = ("Paris is the capital of France. The Eiffel Tower is a tower in Paris. The Louvre is a museum. "
           "The Seine flows through Paris. It opened in 1889.")
# (module, function) whose lru_cache --cold empties; those an older src lacks (or does not cache) are skipped
CACHES = [("factdebate.response_level.spans", "_remembered_sentences"),
          ("factdebate.response_level.grounding", "stem"), ("factdebate.util.scrub", "_scrubbed_short")]


async def _checks(count: int, cold: bool) -> dict[str, Any]:
    import importlib

    from factdebate.core.types import Document
    from factdebate.guard_engine import GuardOptions, check_text
    from factdebate.server.ops.metrics import Metrics
    from factdebate.server.state.kept_calls import CallKeeper
    from factdebate.util.observe import Watcher
    from tests.guard.support import script
    from tests.helpers import StaticTool, resources_for

    found: list[Any] = [getattr(importlib.import_module(module), name, None) for module, name in CACHES] if cold else []
    caches = [cache for cache in found if hasattr(cache, "cache_clear")]
    docs = [Document(id=f"d{i}", title=f"Paris {i}", text=PASSAGE, source=f"https://example.org/{i}") for i in range(3)]
    tools = {"rag": StaticTool("rag", docs), "search": StaticTool("local", docs)}
    resources, _, _ = resources_for(script(claims=CLAIMS), method="single", tools=tools, guard={}, response={})
    settings: Any = resources.settings  # the tests' RunSettings, which check_text reads as Settings
    async with resources:
        with Watcher.watching([Metrics().watcher()]):
            for _ in range(5):  # warm-up: first-call paths, templates
                await check_text(ANSWER, settings, resources, options=GuardOptions(tier="fast"))
            spent = 0.0
            for _ in range(count):
                for cache in caches:
                    cache.cache_clear()
                keeper = CallKeeper(10**9)
                began = time.process_time()
                result = await check_text(ANSWER, settings, resources, options=GuardOptions(tier="fast"),
                                          sinks=[keeper])
                spent += time.process_time() - began
    return {"ms_per_check": round(spent / count * 1000, 3), "claims": [c.status for c in result.claims],
            "kept_calls": len(keeper.calls)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--guard-src", default="", help="compare with the factdebate of this src folder")
    parser.add_argument("--cold", action="store_true", help="empty the text caches before each check")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        sys.path.insert(1, str(ROOT))
        print(json.dumps(asyncio.run(_checks(args.checks, args.cold))), flush=True)
        return
    sources = {"this": str(ROOT / "src"), **({"other": args.guard_src} if args.guard_src else {})}
    figures: dict[str, list[float]] = {name: [] for name in sources}
    print(json.dumps({"load_average_before": round(os.getloadavg()[0], 1)}), flush=True)
    for number in range(args.rounds):
        for name in (list(sources) if number % 2 == 0 else list(reversed(sources))):
            command = [sys.executable, __file__, "--one", "--checks", str(args.checks), *(["--cold"] * args.cold)]
            out = subprocess.run(command, env={**os.environ, "PYTHONPATH": sources[name]}, capture_output=True,
                                 text=True, check=True, cwd=ROOT).stdout
            figure = json.loads(out.strip().splitlines()[-1])
            figures[name].append(figure["ms_per_check"])
            print(json.dumps({"src": name, **figure}), flush=True)
    print(json.dumps({"median_ms_per_check": {name: statistics.median(values) for name, values in figures.items()},
                      "load_average_after": round(os.getloadavg()[0], 1)}), flush=True)


if __name__ == "__main__":
    main()
