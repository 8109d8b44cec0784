"""The Ray actor: it builds its resources once (models, tools, the encoder) and runs claims or evaluation
samples on its own event loop, many at a time. Imported in worker processes; Ray wraps it lazily."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from factdebate.methods.resources import Resources, RunScope
from factdebate.run.build import build_resources, make_tool, start_run, tools_needed
from factdebate.settings.model import Settings
from factdebate.tools.base import Tool
from factdebate.util.errors import FactDebateError
from factdebate.util.scrub import redact_text

ResourceBuilder = Callable[[Settings, "str | None"], Resources]


def default_resources(settings: Settings, endpoint: str | None, run: RunScope | None = None) -> Resources:
    """The standard resources, a Milvus Lite database searched in a private copy (scale/lite_copy.py)."""
    resources: Resources

    def tool(kind: str) -> Tool:
        if kind == "rag" and settings.scale.lite_copy:
            from factdebate.scale.lite_copy import copied_rag_tool

            copied = copied_rag_tool(settings)
            if copied is not None:
                return copied
        return make_tool(kind, settings, resources.debater)

    resources = build_resources(settings, endpoint=endpoint, tool_factory=tool, run=run)
    return resources


class ClaimWorker:
    def __init__(self, settings_data: dict[str, Any], index: int, builder: ResourceBuilder | None,
                 context: Any, trace: bool, run: RunScope | None = None) -> None:
        self.context = context
        self.trace = trace
        self.start_error: str | None = None
        self.settings = Settings.model_validate(settings_data)
        urls = self.settings.llm.base_urls
        endpoint = urls[index % len(urls)] if urls else None
        try:
            if builder is None:
                self.resources = default_resources(self.settings, endpoint, run)
            else:
                self.resources = builder(self.settings, endpoint)
                start_run(self.resources, run)
            for kind in sorted(tools_needed(self.settings)):  # a missing index or key fails now, not per claim
                self.resources.tool(kind)
        except FactDebateError as exc:  # kept as text: Ray cannot carry every exception class back
            self.start_error = str(exc)
        except Exception as exc:
            self.start_error = redact_text(f"{type(exc).__name__}: {exc}")

    async def ready(self) -> str | None:
        """None once the resources are built, else why they could not be."""
        return self.start_error

    async def pid(self) -> int:
        return os.getpid()

    async def run(self, kind: str, payload: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """One claim (``claim``: a batch ClaimItem) or sample (``sample``: an eval Sample, with the plan as
        context); returns its record and, when the driver writes a trace, the run's events."""
        if self.start_error:  # a replacement worker that could not start
            raise RuntimeError(self.start_error)
        events: list[dict[str, Any]] = []
        sinks = [events.append] if self.trace else []
        if kind == "claim":
            from factdebate.run.batch import claim_record

            record = await claim_record(payload, self.settings, self.resources, sinks)
        else:
            from factdebate.eval.runner import evaluate

            record = await evaluate(payload, self.context, self.resources, sinks)
        return record, events
