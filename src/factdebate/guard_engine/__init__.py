"""The fact-checking guard below its faces (the chat proxy, ``factdebate.guard``, the MCP tools): a chat
reply's check-worthy sentences, their claims decided tier by tier within a deadline over the bot's own
evidence and retrieval, each claim's place in the text and a correction, and the operator's policy.
The contract is :mod:`factdebate.guard_engine.types`; the names below are the engine's public ones.

The package is named apart from ``factdebate.guard``, the public function (api.py's), so that importing it
(``import factdebate.guard_engine as g``) never hides the function, and the function never hides it."""

from factdebate.guard_engine.check import check_text
from factdebate.guard_engine.options import evidence_from_messages, resolve_options
from factdebate.guard_engine.stream import StreamingCheck
from factdebate.guard_engine.stream_policy import GuardedStream, StreamOut, guard_stream
from factdebate.guard_engine.types import (
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
    "GuardedStream", "ResolvedGuardOptions", "Reviser", "SkippedSentence", "Span", "StreamOut", "StreamingCheck",
    "check_text", "evidence_from_messages", "guard_stream", "resolve_options",
]

