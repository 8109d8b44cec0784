"""A second (or third) service process for the cross-process tests: it runs one stored batch with the
scripted model, sharing the store with the others, and prints the index of each claim it ran."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from factdebate.methods.resources import Resources
from factdebate.run.build import build_resources
from factdebate.server.routes.batches import BatchRunner
from factdebate.server.state.batch_store import BatchStore
from factdebate.settings.load import settings_from
from factdebate.settings.model import Settings


class Reporting(BatchRunner):
    gate: Path | None = None  # a folder where each process marks its first claim (see _meet)

    async def _one(self, batch_id: str, idx: int, *args: object) -> None:
        print(f"start {idx}", flush=True)
        if self.gate is not None:
            await _meet(self.gate)
        await super()._one(batch_id, idx, *args)  # type: ignore[arg-type]
        print(f"ran {idx}", flush=True)


async def _meet(gate: Path, parties: int = 2) -> None:
    """Hold this process's claims until every process has claimed one: without it, on a loaded machine the
    process that finished importing first could run the whole batch before the other asked for a claim,
    and "both took part" depended on the machine's speed. Waits on the other's mark, not on a
    clock: a process that never claims makes the test's own timeout fail it."""
    (gate / str(os.getpid())).touch()
    while len(list(gate.iterdir())) < parties:
        await asyncio.sleep(0.05)


def resources(settings: Settings) -> Resources:
    return build_resources(settings)


async def main(db: str, batch_id: str, gate: str | None = None) -> None:
    runner = Reporting(BatchStore(db), resources, concurrency=2)
    runner.gate = Path(gate) if gate else None
    await runner.resume_all()
    while runner._tasks:
        await asyncio.gather(*list(runner._tasks.values()))


def batch_settings(latency: float) -> Settings:
    return settings_from({"llm": f"scripted:agree@{latency}", "agents": ["none", "none"], "scoring": False,
                          "cache": False})


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
