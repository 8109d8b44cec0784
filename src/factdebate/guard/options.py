"""A request's guard options with the operator's defaults and caps applied, and the evidence a
conversation already carries (its ``role: "tool"`` messages)."""

from __future__ import annotations

from typing import Any

from factdebate.core.errors import InputError
from factdebate.guard.types import TIERS, GuardEvidence, GuardOptions, ResolvedGuardOptions
from factdebate.settings.model import Settings


def resolve_options(options: GuardOptions, settings: Settings) -> ResolvedGuardOptions:
    """Defaults from ``settings.guard``; a caller may lower the deadline (never past the cap), may not ask
    for a tier above ``guard.max_tier`` (an ``InputError`` says so), and sends at most
    ``guard.max_evidence_items`` passages of ``guard.max_evidence_chars`` characters in all."""
    guard = settings.guard
    deadline = min(options.deadline_s if options.deadline_s is not None else guard.deadline_s, guard.max_deadline_s)
    tier = options.tier or guard.tier
    if TIERS.index(tier) > TIERS.index(guard.max_tier):
        raise InputError(f"tier '{tier}' is above what this server allows (guard.max_tier = {guard.max_tier}); "
                         f"ask for {' or '.join(TIERS[:TIERS.index(guard.max_tier) + 1])}")
    evidence = list(options.evidence or [])
    if len(evidence) > guard.max_evidence_items:
        raise InputError(f"{len(evidence)} evidence passages sent; the limit is {guard.max_evidence_items} "
                         "(guard.max_evidence_items)")
    total = sum(len(item.text) + len(item.title) for item in evidence)
    if total > guard.max_evidence_chars:
        raise InputError(f"the evidence sent is {total} characters long; the limit is {guard.max_evidence_chars} "
                         "(guard.max_evidence_chars): send the passages that matter, they are ranked per claim")
    method = options.method or guard.method or settings.method
    from factdebate.methods.base import all_methods

    if method not in all_methods():
        raise InputError(f"no method named '{method}'; methods: {', '.join(all_methods())}")
    mode = options.evidence_mode or ("both" if evidence else "retrieved")
    if mode == "given" and not evidence:
        raise InputError("evidence_mode 'given' needs evidence: send it as evidence: [{title, text, url}]")
    return ResolvedGuardOptions(policy=options.policy or guard.policy, deadline_s=deadline, tier=tier,
                                max_tier=guard.max_tier, method=method, evidence=evidence, evidence_mode=mode,
                                conversation_id=options.conversation_id,
                                on_unchecked=options.on_unchecked or guard.on_unchecked)


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts (others are not text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content
                         if isinstance(part, dict) and part.get("type") == "text" and part.get("text"))
    return ""


def evidence_from_messages(messages: list[dict[str, Any]]) -> list[GuardEvidence]:
    """The conversation's tool results (``role: "tool"`` messages) as given evidence, in order; each titled by
    its tool call (the ``name`` field, else ``tool result N``). Empty tool results are left out."""
    found: list[GuardEvidence] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "tool":
            continue
        text = text_of(message.get("content")).strip()
        if not text:
            continue
        name = message.get("name") or message.get("tool_call_id")
        title = str(name)[:300] if name else f"tool result {len(found) + 1}"
        found.append(GuardEvidence(title=title, text=text))
    return found
