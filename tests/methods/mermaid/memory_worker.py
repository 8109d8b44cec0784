"""One process of the two-process memory test: verify one claim with memory at PATH, print the verdict's
tool calls and label as JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from factdebate.run.claim import run_claim
from tests.methods.mermaid.policy import capital_policy
from tests.methods.mermaid.support import FactToolset, mermaid_resources

FACTS = {"france": "Paris is the capital of France.", "norway": "Oslo is the capital of Norway."}


async def main(path: str, claim: str) -> None:
    events: list[dict] = []
    resources, _ = await mermaid_resources(capital_policy, FactToolset(FACTS), memory_path=Path(path))
    async with resources:
        verdict = await run_claim(claim, resources.settings, resources, sinks=[events.append])
    recalled = next(e for e in events if e["event"] == "memory_recall")["hits"]
    print(json.dumps({"tool_calls": verdict.usage.tool_calls, "label": verdict.label, "recalled": len(recalled)}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
