"""A second (or third) service process for the cross-process tests: it runs one stored batch with the
scripted model, sharing the store with the others, and prints the index of each claim it ran."""

from __future__ import annotations

import asyncio
import sys

from factdebate.methods.resources import Resources
from factdebate.run.build import build_resources
from factdebate.server.routes.batches import BatchRunner
from factdebate.server.state.batch_store import BatchStore
from factdebate.settings.load import settings_from
from factdebate.settings.model import Settings


class Reporting(BatchRunner):
    async def _one(self, batch_id: str, idx: int, *args: object) -> None:
        print(f"start {idx}", flush=True)
        await super()._one(batch_id, idx, *args)  # type: ignore[arg-type]
        print(f"ran {idx}", flush=True)


def resources(settings: Settings) -> Resources:
    return build_resources(settings)


async def main(db: str, batch_id: str) -> None:
    runner = Reporting(BatchStore(db), resources, concurrency=2)
    await runner.resume_all()
    while runner._tasks:
        await asyncio.gather(*list(runner._tasks.values()))


def batch_settings(latency: float) -> Settings:
    return settings_from({"llm": f"scripted:agree@{latency}", "agents": ["none", "none"], "scoring": False,
                          "cache": False})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
