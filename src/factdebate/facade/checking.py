"""The check engine, for the service (see facade/__init__.py): the one call that checks a reply (or an
answer's claims) with its admission, host and clock; the guard's options and result types; what it does to
a stream (the streaming check, the text's policy, the scrub across chunks); a reply the service had no room
to check."""

from factdebate.guard_engine.call import (
    Admission,
    Begun,
    CheckCall,
    Host,
    Reply,
    begin,
    check_replies,
    check_response,
    finish,
    given_resources,
    hidden_claim,
)
from factdebate.guard_engine.chunk_scrub import ChunkScrub
from factdebate.guard_engine.clock import not_counted, request_clock
from factdebate.guard_engine.deadline import default_deadline_s
from factdebate.guard_engine.evidence import passages
from factdebate.guard_engine.options import resolve_options
from factdebate.guard_engine.overload import overloaded_result
from factdebate.guard_engine.policy import no_text_result
from factdebate.guard_engine.response_check import check_one_claim
from factdebate.guard_engine.stream import StreamingCheck
from factdebate.guard_engine.stream_policy import GuardedStream, kept_chars
from factdebate.guard_engine.types import (
    CONVERSATION_ID_PATTERN,
    MAX_EVIDENCE_ITEMS,
    TIERS,
    ClaimEvidence,
    EvidenceMode,
    GuardClaim,
    GuardEvidence,
    GuardOptions,
    GuardResult,
    ResolvedGuardOptions,
    Reviser,
    Tier,
)

__all__ = [
    "CONVERSATION_ID_PATTERN", "MAX_EVIDENCE_ITEMS", "TIERS", "Admission", "Begun", "CheckCall", "ChunkScrub",
    "ClaimEvidence", "EvidenceMode", "GuardClaim", "GuardEvidence", "GuardOptions", "GuardResult",
    "GuardedStream", "Host", "Reply", "ResolvedGuardOptions", "Reviser", "StreamingCheck", "Tier", "begin",
    "check_one_claim", "check_replies", "check_response", "default_deadline_s", "finish", "given_resources",
    "hidden_claim", "kept_chars", "no_text_result", "not_counted", "overloaded_result", "passages",
    "request_clock", "resolve_options",
]
