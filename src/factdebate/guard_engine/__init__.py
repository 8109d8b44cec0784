"""The fact-checking guard below its faces: a chat reply's claims decided tier by tier within a deadline, each
placed in the text with a correction, and the operator's policy; the contract is
:mod:`factdebate.guard_engine.types`. Named apart from ``factdebate.guard``, the public function, so that
neither hides the other."""

from factdebate.guard_engine.check import check_text
from factdebate.guard_engine.options import evidence_from_messages
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
    "check_text", "evidence_from_messages", "guard_stream",
]

