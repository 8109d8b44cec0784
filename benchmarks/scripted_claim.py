"""What the orchestration benchmarks share: resources on one scripted backend with instant tools and
encoder, and one claim timed on them."""

from __future__ import annotations

import time
from collections.abc import Iterable

from factdebate.core.types import Verdict
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.resources import Resources
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.model import Settings
from tests.helpers import BagOfWordsEncoder, StaticTool

CLAIM = "Paris is the capital of France"
ALL_ROLES = ("debater", "judge", "scorer")


def scripted_resources(settings: Settings, backend: ScriptedBackend, roles: Iterable[str] = ALL_ROLES) -> Resources:
    """``backend`` for ``roles`` (a role left out that uses the debater's model gets it too), static tools."""
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    return build_resources(settings, backends={role: backend for role in roles},
                           tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)


async def timed_claim(settings: Settings, backend: ScriptedBackend,
                      roles: Iterable[str] = ALL_ROLES) -> tuple[float, Verdict]:
    """Seconds to verify :data:`CLAIM` (resources built before the clock starts), and the verdict."""
    resources = scripted_resources(settings, backend, roles)
    started = time.perf_counter()
    verdict = await run_claim(CLAIM, settings, resources)
    return time.perf_counter() - started, verdict
