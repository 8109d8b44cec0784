"""factdebate: check claims by letting LLM agents debate with evidence they retrieve themselves.

``factdebate.verify(claim, **options)`` and ``await factdebate.averify(...)`` are the entry points; they are
imported lazily so ``import factdebate`` stays light (no model, no connection)."""

from __future__ import annotations

from typing import Any

from factdebate.core.types import Document, JudgeDecision, Judgement, Label, Round, Step, Turn, Usage, Verdict
from factdebate.core.version import __version__ as __version__

__all__ = ["Document", "JudgeDecision", "Judgement", "Label", "Round", "Step", "Turn", "Usage", "Verdict", "averify",
           "verify"]


def __getattr__(name: str) -> Any:
    if name in ("verify", "averify"):
        from factdebate import api

        return getattr(api, name)
    raise AttributeError(f"module 'factdebate' has no attribute {name!r}")
