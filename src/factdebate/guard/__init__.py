"""The fact-checking guard below its faces (the chat proxy, ``factdebate.guard``, the MCP tools): a chat
reply's check-worthy sentences, their claims decided tier by tier within a deadline over the bot's own
evidence and retrieval, each claim's place in the text and a correction, and the operator's policy.
The contract is :mod:`factdebate.guard.types`.

``factdebate.guard`` is also the public function (the name is fixed by issue 37): once this package is
imported it is the package that ``factdebate.guard`` names, so the package itself can be called, with
:func:`factdebate.guard.public.guard`'s arguments."""

import sys
from types import ModuleType as _ModuleType
from typing import Any

from factdebate.guard.check import check_text
from factdebate.guard.options import evidence_from_messages, resolve_options
from factdebate.guard.stream import StreamingCheck
from factdebate.guard.types import (
    ClaimEvidence,
    Correction,
    GuardClaim,
    GuardEvidence,
    GuardOptions,
    GuardResult,
    GuardUsage,
    ResolvedGuardOptions,
    Reviser,
    SkippedSentence,
    Span,
)

__all__ = [
    "ClaimEvidence", "Correction", "GuardClaim", "GuardEvidence", "GuardOptions", "GuardResult", "GuardUsage",
    "ResolvedGuardOptions", "Reviser", "SkippedSentence", "Span", "StreamingCheck", "check_text",
    "evidence_from_messages", "resolve_options",
]


class _CallablePackage(_ModuleType):
    def __call__(self, reply: Any, **options: Any) -> Any:
        from factdebate.guard.public import guard

        return guard(reply, **options)


sys.modules[__name__].__class__ = _CallablePackage
