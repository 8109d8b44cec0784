"""The fact-checking guard below its faces (the chat proxy, ``factdebate.guard``, the MCP tools): a chat
reply's check-worthy sentences, their claims decided tier by tier within a deadline over the bot's own
evidence and retrieval, each claim's place in the text and a correction, and the operator's policy.
The contract is :mod:`factdebate.guard.types`.

The name ``factdebate.guard`` is the public function (api.py's), the same object whether
or not this package was imported (factdebate/__init__.py keeps it so); this package is read by its
submodules' names (``from factdebate.guard import GuardResult``)."""

from factdebate.guard.check import check_text
from factdebate.guard.options import evidence_from_messages, resolve_options
from factdebate.guard.stream import StreamingCheck
from factdebate.guard.stream_policy import GuardedStream, StreamOut, guard_stream
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
    "GuardedStream", "ResolvedGuardOptions", "Reviser", "SkippedSentence", "Span", "StreamOut", "StreamingCheck",
    "check_text", "evidence_from_messages", "guard_stream", "resolve_options",
]

