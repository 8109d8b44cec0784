"""factdebate: check claims by letting LLM agents debate with evidence they retrieve themselves.

``factdebate.verify(claim, llm=..., ...)`` and ``await factdebate.averify(...)`` are the entry points, with
``verify_many``/``averify_many`` (a batch, with progress and resume), ``check_response``/``acheck_response``
(a long answer), ``guard``/``aguard`` (a chat reply within a deadline) and ``aguard_stream`` (a reply checked
while it streams); they are imported lazily so ``import factdebate`` stays light (no model, no connection).
Every mistake of the caller's raises a :class:`FactDebateError` (a setting, an input, a path, the data folder)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from factdebate.core.errors import DataDirError, EventLoopError
from factdebate.core.types import (
    ClaimCheck,
    Document,
    JudgeDecision,
    Judgement,
    Label,
    ResponseVerdict,
    Round,
    Step,
    Turn,
    Usage,
    Verdict,
)
from factdebate.settings.keywords import MethodName, SearchEngineName
from factdebate.settings.method_keywords import (
    DPDOptions,
    FacToolOptions,
    MADKEOptions,
    MADOptions,
    MERMAIDOptions,
    MethodOptions,
    ReActOptions,
    SelfCheckOptions,
    ToolMADOptions,
    VoteOptions,
    WeCheckOptions,
)
from factdebate.util.errors import ConfigError, FactDebateError, InputError
from factdebate.util.version import __version__ as __version__

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ imports api.py on first use
    from factdebate.api import (
        BatchProgress,
        EvidenceMode,
        GuardKeywords,
        Passage,
        acheck_response,
        aguard,
        aguard_stream,
        averify,
        averify_many,
        check_response,
        guard,
        verify,
        verify_many,
    )
    from factdebate.guard_engine.types import GuardClaim, GuardResult

__all__ = ["BatchProgress", "ClaimCheck", "ConfigError", "DPDOptions", "DataDirError", "Document", "EventLoopError",
           "EvidenceMode", "FacToolOptions", "FactDebateError", "GuardClaim", "GuardKeywords", "GuardResult",
           "InputError", "JudgeDecision", "Judgement", "Label", "MADKEOptions", "MADOptions", "MERMAIDOptions",
           "MethodName", "MethodOptions", "Passage", "ReActOptions", "ResponseVerdict", "Round", "SearchEngineName",
           "SelfCheckOptions", "Step", "ToolMADOptions", "Turn", "Usage", "Verdict", "VoteOptions", "WeCheckOptions",
           "acheck_response", "aguard", "aguard_stream", "averify", "averify_many", "check_response", "guard",
           "verify", "verify_many"]

# api.py imports the run layer (pydantic settings, the method registry): kept off plain ``import factdebate``.
_LAZY = frozenset({"verify", "averify", "verify_many", "averify_many", "check_response", "acheck_response", "guard",
                   "aguard", "aguard_stream", "BatchProgress", "EvidenceMode", "GuardKeywords", "Passage"})
_GUARD_TYPES = frozenset({"GuardResult", "GuardClaim"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from factdebate import api

        return getattr(api, name)
    if name in _GUARD_TYPES:  # the guard's result types (guard_engine/types.py), read when first asked for
        from factdebate.guard_engine import types

        return getattr(types, name)
    raise AttributeError(f"module 'factdebate' has no attribute {name!r}")

