"""factdebate: check claims by letting LLM agents debate with evidence they retrieve themselves.

``factdebate.verify(claim, llm=..., ...)`` and ``await factdebate.averify(...)`` are the entry points, with
``check_response``/``acheck_response`` (a long answer) and ``guard``/``aguard`` (a chat reply within a
deadline); they are imported lazily so ``import factdebate`` stays light (no model, no connection)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from factdebate.core.types import Document, JudgeDecision, Judgement, Label, Round, Step, Turn, Usage, Verdict
from factdebate.core.version import __version__ as __version__

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ imports api.py on first use
    from factdebate.api import acheck_response, aguard, averify, check_response, guard, verify

__all__ = ["Document", "JudgeDecision", "Judgement", "Label", "Round", "Step", "Turn", "Usage", "Verdict",
           "acheck_response", "aguard", "averify", "check_response", "guard", "verify"]

# api.py imports the run layer (pydantic settings, the method registry): kept off plain ``import factdebate``.
_LAZY = frozenset({"verify", "averify", "check_response", "acheck_response", "guard", "aguard"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from factdebate import api

        return getattr(api, name)
    raise AttributeError(f"module 'factdebate' has no attribute {name!r}")
