"""factdebate: check claims by letting LLM agents debate with evidence they retrieve themselves.

``factdebate.verify(claim, **options)`` and ``await factdebate.averify(...)`` are the entry points, with
``check_response``/``acheck_response`` (a long answer) and ``guard``/``aguard`` (a chat reply within a
deadline); they are imported lazily so ``import factdebate`` stays light (no model, no connection)."""

from __future__ import annotations

from typing import Any

from factdebate.core.types import Document, JudgeDecision, Judgement, Label, Round, Step, Turn, Usage, Verdict
from factdebate.core.version import __version__ as __version__

__all__ = ["Document", "JudgeDecision", "Judgement", "Label", "Round", "Step", "Turn", "Usage", "Verdict",
           "acheck_response", "aguard", "averify", "check_response", "guard", "verify"]


def __getattr__(name: str) -> Any:
    if name in ("verify", "averify", "check_response", "acheck_response", "guard", "aguard"):
        from factdebate import api

        return getattr(api, name)
    raise AttributeError(f"module 'factdebate' has no attribute {name!r}")
