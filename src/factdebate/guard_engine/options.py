"""A request's guard options with the operator's defaults and caps applied, and a conversation's own evidence.

What a caller sends in ``evidence`` is held to ``guard.max_evidence_items`` and ``guard.max_evidence_chars``
(over them: a 422); the conversation's own tool results are never refused, since refusing a long agent
session broke every later turn: they are ranked per claim and trimmed to what is left (guard_engine/session.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from factdebate.core.errors import InputError
from factdebate.guard_engine.messages import text_of, tool_evidence
from factdebate.guard_engine.types import TIERS, GuardEvidence, GuardOptions, ResolvedGuardOptions
from factdebate.guard_engine.window import turns_of
from factdebate.settings.model import Settings

__all__ = ["evidence_from_messages", "resolve_options", "text_of", "with_conversation"]


def resolve_options(options: GuardOptions, settings: Settings) -> ResolvedGuardOptions:
    """Defaults from ``settings.guard`` (:meth:`GuardOptions.deadline_within` fits an unset deadline); a caller
    may lower the deadline, not raise it past the cap, nor ask for a tier above ``guard.max_tier``."""
    guard = settings.guard
    deadline = options.deadline_within(settings)
    local = reads_in_process(settings)
    tier = options.tier or (guard.tier if "tier" in guard.model_fields_set or not local else "fast")
    if TIERS.index(tier) > TIERS.index(guard.max_tier):
        raise InputError(f"tier '{tier}' is above what this server allows (guard.max_tier = {guard.max_tier}); "
                         f"ask for {' or '.join(TIERS[:TIERS.index(guard.max_tier) + 1])}")
    # A caller's max_tier caps the climb below the operator's (never above it): a tier asked above it is
    # refused, the operator's default tier is lowered to it.
    max_tier = TIERS[min(TIERS.index(options.max_tier or guard.max_tier), TIERS.index(guard.max_tier))]
    if options.tier is not None and TIERS.index(tier) > TIERS.index(max_tier):
        raise InputError(f"tier '{tier}' is above the max_tier '{max_tier}' asked for: ask for a tier at or below it")
    tier = TIERS[min(TIERS.index(tier), TIERS.index(max_tier))]
    if local and options.max_tier is None and "max_tier" not in guard.model_fields_set:
        # An in-process checker's debate round did not end within the deadline, and read the evidence worse than
        # the fast tier (docs/guard.md, "What the guard catches").
        max_tier = tier
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
    conversation = list(options._conversation)
    mode = options.evidence_mode or ("both" if evidence or conversation else "retrieved")
    if mode == "given" and not (evidence or conversation):
        raise InputError("evidence_mode 'given' needs evidence: send it as evidence: [{title, text, url}]")
    return ResolvedGuardOptions(policy=options.policy or guard.policy, deadline_s=deadline, tier=tier,
                                max_tier=max_tier, method=method, evidence=evidence, evidence_mode=mode,
                                conversation_id=options.conversation_id,
                                on_unchecked=options.on_unchecked or guard.on_unchecked,
                                question=options.question, conversation_evidence=conversation,
                                dialogue=list(options._dialogue), on_not_enough_info=guard.on_not_enough_info)


def reads_in_process(settings: Settings) -> bool:
    """Whether the checker is an in-process GGUF model other than the embedded one (which keeps the tiers)."""
    from factdebate.llm.near_chance import EMBEDDED_MODELS

    spec = settings.llm_for("debater")
    provider, _, target = spec.partition(":")
    return provider in ("llama-cpp", "llamacpp", "llama_cpp") and f"llama-cpp:{target}" not in EMBEDDED_MODELS


def evidence_from_messages(messages: list[dict[str, Any]]) -> list[GuardEvidence]:
    """The conversation's non-empty tool results as given evidence, titled by guard_engine/messages.py."""
    return tool_evidence(messages)


def with_conversation(options: GuardOptions, messages: Sequence[Any]) -> GuardOptions:
    """``options`` with the conversation's tool results as evidence and its turns for the extractor; every
    door that has the conversation passes it here."""
    found = tool_evidence(messages)
    turns = turns_of(messages)
    if not found and not turns:
        return options
    out = options.model_copy()
    out._conversation = [*options._conversation, *found]
    out._dialogue = turns
    return out
