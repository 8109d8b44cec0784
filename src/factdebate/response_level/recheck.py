"""One claim of a checked response checked again on its own (a claim whose check failed, retried alone), and
the response's verdict as it stands after it: the claim's check in its place, what the new check spent added
to the response's usage, the model cautions stamped once, and the response's label worked out anew from its
claims' labels (response_level/aggregate.py's rules)."""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.types import ClaimCheck, Label, ResponseVerdict, Usage, add_model_usage, add_reply_counts
from factdebate.llm.near_chance import CLAIMS, with_model_warnings
from factdebate.response_level.aggregate import factual, response_label


def relabelled(check: ClaimCheck, labels: Sequence[Label | None]) -> tuple[Label | None, bool | None, str]:
    """The response's label, whether it is factual, and the rule that decided it, from its claims' ``labels``
    (in claim order; empty: the response is this one claim) with ``check``'s label in its place."""
    others = list(labels) or [None]
    others[check.index if labels else 0] = check.label
    label, decided_by = response_label(others)
    return label, factual(label), decided_by


def with_claim(verdict: ResponseVerdict, check: ClaimCheck) -> ResponseVerdict:
    """``verdict`` (changed in place and returned) with ``check`` in its claim's place: the response's label
    worked out anew from its claims' as they stand now, and what the new check spent added to the response's
    usage. The claim's own verdict keeps no settings: the response's record holds them once."""
    stored = check.model_copy(deep=True)
    if stored.verdict is not None:
        stored.verdict.config = {}
        used = stored.verdict
        verdict.usage.add(used.usage)
        for role, usage in used.usage_by_role.items():
            verdict.usage_by_role.setdefault(role, Usage()).add(usage)
        add_model_usage(verdict.usage_by_model, used.usage_by_model)
        add_reply_counts(verdict.parse_counts, used.parse_counts)
        verdict.warnings = with_model_warnings(verdict.warnings, verdict.usage_by_model, CLAIMS)
    verdict.claims = [stored if c.index == check.index else c for c in verdict.claims]
    verdict.label, verdict.decided_by = response_label([c.label for c in verdict.claims],
                                                       extracted=verdict.extraction.parsed)
    verdict.factual = factual(verdict.label)
    return verdict
