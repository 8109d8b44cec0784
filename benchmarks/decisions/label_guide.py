"""Tool-MAD on the offline model with and without the label guide (``methods.tool-mad.label_guide``): the
verdict, how it was reached, the calls and the seconds for each of the demo's two claims, in one run.

    .venv/bin/python benchmarks/decisions/label_guide.py [--claims "The Eiffel Tower is located in Rome." ...]

Needs the offline model (``factdebate setup``); a claim that goes to the judge takes about 7 minutes here."""

from __future__ import annotations

import argparse
import asyncio
import time

from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import settings_from

MODEL = "llama-cpp:qwen2.5-coder-1.5b"
CLAIMS = ["The Eiffel Tower is located in Rome.", "The Eiffel Tower is located in Paris."]


async def main(claims: list[str]) -> None:
    for guide in (False, True):
        settings = settings_from({"llm": MODEL, "cache": False, "methods": {"tool-mad": {"label_guide": guide}}})
        resources = build_resources(settings)
        for claim in claims:
            started = time.perf_counter()
            verdict = await run_claim(claim, settings, resources)
            labels = " / ".join(",".join(str(t.label) for t in r.turns) for r in verdict.rounds)
            print(f"guide {'on ' if guide else 'off'} {verdict.label} by {verdict.decided_by} "
                  f"({verdict.usage.llm_calls} calls, {time.perf_counter() - started:.0f} s; rounds: {labels}) "
                  f"| {claim}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", nargs="+", default=CLAIMS)
    asyncio.run(main(parser.parse_args().claims))
