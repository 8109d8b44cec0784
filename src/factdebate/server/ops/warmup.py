"""Warm-up: what the guard's check needs, loaded before the service says it is ready, so the first request meets
its deadline (on a fresh server, loading a model and the encoder takes about 14 s, most of a first check's
time, and is none of the check's own work).

What the operator's settings (``guard`` with the configured method) reach, and nothing else: the models of the
extractor, the fast tier's checker and, when ``guard.max_tier`` goes past ``fast``, the roles of the guard's
method (an in-process model is loaded into memory; a remote one costs nothing here); the text encoder that ranks
given evidence; the retrieval engines the tiers search (an index opened). A configuration whose guard models
are all scripted (tests) needs none of it and is ready at once. ``/v1/health`` answers 503 with what is being
loaded until it is done, then 200; a part that failed to load is named there (the check that needs it will say
the same), and does not keep the service from serving everything else.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from factdebate.engine import Method, Resources, Settings

log = logging.getLogger("factdebate.server")
ENGINES = ("search", "rag")  # the engines a tier's agents may search (an MCP tool opens on its first search)


def guard_roles(settings: Settings) -> list[str]:
    """The model roles a guard check asks: extraction and the fast tier (checker, corrections), and the
    guard's method's roles when the operator lets a claim escalate past ``fast``."""
    roles = ["extractor", "debater"]
    if settings.guard.max_tier != "fast":
        roles += [r for r in Method.named(settings.guard.method or settings.method).roles if r not in roles]
    return roles


def guard_engines(settings: Settings) -> list[str]:
    """The retrieval engines the tiers search: the fast tier's ``search``, and the engines the method's
    agents name when a claim may escalate."""
    kinds = ["search"]
    if settings.guard.max_tier != "fast":
        method = settings.guard.method or settings.method
        section = settings.methods.get(method)
        named = getattr(section, "agents", None) or []
        kinds += [k for k in (str(getattr(a, "value", a)) for a in named) if k in ENGINES and k not in kinds]
    return kinds


def needs_warm_up(settings: Settings) -> bool:
    """False when every model the guard asks is scripted (a test configuration: nothing heavy to load)."""
    return not all(settings.llm_for(role).startswith("scripted:") for role in guard_roles(settings))


@dataclass
class WarmUp:
    """Where the warm-up stands: ``ready`` once done (or not needed), ``doing`` what it loads now."""

    ready: bool = False
    doing: str = "starting"
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def reason(self) -> str | None:
        """What a health check is told: what is still loading, or what failed to load."""
        if not self.ready:
            return f"warming up: {self.doing} (what the first check needs is loaded before the service is ready)"
        if self.problems:
            return "warmed up, but " + "; ".join(self.problems)
        return None

    async def run(self, settings: Settings, resources: Callable[[Settings], Resources]) -> None:
        """Load what the guard's checks need under ``settings``; never raises (a failure is a problem said)."""
        began = time.perf_counter()
        try:
            if needs_warm_up(settings):
                await self._load(settings, resources)
        except Exception as exc:  # whatever failed is said; the service serves what does not need it
            self.problems.append(f"{self.doing} failed: {type(exc).__name__}: {exc}")
        finally:
            self.seconds = round(time.perf_counter() - began, 2)
            self.ready = True
            self.doing = "done"
            log.info("warm-up done in %.1f s%s", self.seconds, f" ({'; '.join(self.problems)})" if self.problems
                     else "")

    async def _load(self, settings: Settings, resources_of: Callable[[Settings], Resources]) -> None:
        self.doing = "building the models and tools"
        resources = await asyncio.to_thread(resources_of, settings)
        for role in guard_roles(settings):
            self.doing = f"loading the {role}'s model ({settings.llm_for(role)})"
            await self._step(_load_model(resources, role))
        self.doing = "loading the text encoder"
        await self._step(resources.encoder.aencode(["warm-up"]))
        for kind in guard_engines(settings):
            self.doing = f"opening the {kind} engine"
            await self._step(asyncio.to_thread(resources.tool, kind))

    async def _step(self, work: Awaitable[object]) -> None:
        try:
            await work
        except Exception as exc:  # one part that fails does not keep the others from loading
            self.problems.append(f"{self.doing} failed: {type(exc).__name__}: {exc}")


async def _load_model(resources: Resources, role: str) -> None:
    """An in-process model loaded into memory (a backend with ``load``); a remote one has nothing to load."""
    load = getattr(resources.llm(role).backend, "load", None)
    if load is not None:
        await asyncio.to_thread(load)
