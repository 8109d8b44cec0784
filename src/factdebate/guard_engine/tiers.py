"""One claim decided tier by tier: ``fast`` (one call over the passages), ``standard`` (one round of the
method), ``deep`` (the full method). SUPPORTS settles a claim; anything else goes to the next tier, up to
``guard.max_tier``, whose label (if any) replaces the earlier one. ``Progress`` holds the best verdict so far,
so a claim the deadline cuts keeps a lower tier's, and one with none is ``unchecked``, never labelled."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from factdebate.core.runtime import EventSink, span
from factdebate.core.types import Document, Label, Verdict
from factdebate.guard_engine.citations import cited_texts
from factdebate.guard_engine.correct import correct
from factdebate.guard_engine.evidence import claim_evidence, tier_resources, tier_settings
from factdebate.guard_engine.fast import FastVerdict, decide_fast, unfounded, unquoted_support, unseen_numbers
from factdebate.guard_engine.stance import settled
from factdebate.guard_engine.types import TIERS, ClaimEvidence, GuardClaim, ResolvedGuardOptions, Tier
from factdebate.methods.resources import Resources
from factdebate.run.claim import run_claim
from factdebate.settings.model import Settings
from factdebate.tools.given import given_evidence
from factdebate.util.errors import FactDebateError

UNREADABLE = "no tier's reply could be read"


@dataclass
class Progress:
    """One claim's verdict so far (updated as each tier finishes)."""

    claim: GuardClaim
    tiers_tried: list[Tier] = field(default_factory=list)
    done: bool = False
    # The method's whole verdict from the last debate tier that ran (check-response's records).
    verdict: Verdict | None = None
    # Set once the first tier has spoken (or the claim is settled another way): what ``policy: hold`` waits
    # for before it shows the claim's sentence (guard_engine/hold.py); escalation goes on after it.
    first: asyncio.Event = field(default_factory=asyncio.Event)

    def final(self, timed_out: bool) -> GuardClaim:
        """The claim as reported: checked when some tier gave it a label, else unchecked (or error)."""
        # A shallow copy is enough (a deep one was most of this method's CPU): nothing changes a claim's
        # lists, passages, spans or corrections in place, only assigns new ones.
        out = self.claim.model_copy()
        if out.status == "error":
            return out
        if out.label is not None:
            out.status = "checked"
            if timed_out and not self.done:
                out.reason = (f"decided by the {out.tier} tier; the deadline ended its check at a higher tier "
                              "before that one decided")
            return out
        out.status = "unchecked"
        if timed_out and not self.done:
            out.reason = ("not decided within the deadline" if not self.tiers_tried
                          else f"not decided within the deadline (tried: {', '.join(self.tiers_tried)})")
        elif out.reason is None:
            out.reason = UNREADABLE
        return out


@dataclass
class Context:
    settings: Settings
    resources: Resources
    options: ResolvedGuardOptions
    passages: list[Document]
    sinks: list[EventSink] | None
    scope: str | None
    # The models a debate tier's verdicts were answered by (each ran under its own recorder), for the result.
    models: set[str] = field(default_factory=set)
    # Check-response's policy: the deep tier runs the method as ``factdebate verify`` does (its run directly in
    # the claim's span), and no correction is asked of a refuted claim.
    whole: bool = False


def documents_read(verdict: Verdict) -> list[Document]:
    """What the verdict's agents read, last round first (the evidence the decision rested on)."""
    docs: list[Document] = []
    for rnd in reversed(verdict.rounds):
        for turn in rnd.turns:
            docs += turn.evidence
            for step in turn.steps:
                docs += step.evidence
    return docs


# (label or None, decided_by, evidence, problem, the method's whole verdict: None from the fast tier)
TierOutcome = tuple[Label | None, str, list[ClaimEvidence], str, Verdict | None]


async def _run_tier(claim: str, tier: Tier, ctx: Context) -> TierOutcome:
    """One tier's outcome for ``claim`` (:data:`TierOutcome`)."""
    if ctx.whole and tier == "deep":
        verdict = await run_claim(claim, ctx.settings, ctx.resources, sinks=ctx.sinks)
        return _outcome(claim, verdict, ctx)
    mode = ctx.options.evidence_mode
    settings = tier_settings(ctx.settings, method=ctx.options.method, tier=tier, mode=mode, scope=ctx.scope)
    resources = tier_resources(ctx.resources, settings)
    with given_evidence(ctx.passages if ctx.passages else None), span(f"tier {tier}", "guard_tier", tier=tier):
        if tier == "fast":
            return await fast_outcome(claim, await decide_fast(claim, resources, mode), resources,
                                      stance_step=ctx.settings.guard.stance_step)
        verdict = await run_claim(claim, settings, resources, sinks=ctx.sinks)
    return _outcome(claim, verdict, ctx)


async def fast_outcome(claim: str, fast: FastVerdict, resources: Resources, *, stance_step: bool) -> TierOutcome:
    """The fast tier's outcome from its verdict of ``claim`` (asked alone, or in the window's call). With
    ``guard.stance_step`` (the default), a SUPPORTS or REFUTES stands only where the passage sentences closest to
    the claim state or contradict it (guard_engine/stance.py), and they are its quote; without it, a SUPPORTS
    without a quote about the claim (fast.unquoted_support) and a REFUTES without a held quote about it
    (fast.unfounded) are none. A SUPPORTS of a number no passage shown writes (fast.unseen_numbers) is none
    either way: on Factcheck-Bench's 3,305 stance pairs that rule holds back a SUPPORTS on 22 % of the refuting
    passages and 13 % of the irrelevant ones, and on 4 % of the supporting ones (benchmarks/word_rules.py)."""
    if fast.label == Label.SUPPORTS and (unseen := unseen_numbers(claim, fast.documents)):
        fast = FastVerdict(None, fast.documents, problem=unseen)
    elif stance_step:
        fast = await settled(claim, fast, resources.llm("debater"), resources.encoder)
    elif fast.label == Label.SUPPORTS and (unquoted := unquoted_support(claim, fast)):
        fast = FastVerdict(None, fast.documents, problem=unquoted)
    elif fast.label == Label.REFUTES and (unheld := unfounded(claim, fast)):
        fast = FastVerdict(None, fast.documents, problem=unheld)
    named = frozenset(d.text for d in fast.documents[:1]) if fast.cited else frozenset[str]()
    evidence = claim_evidence(claim, fast.documents, cited=named)
    if fast.quote and evidence:
        evidence[0] = evidence[0].model_copy(update={"quote": fast.quote})
    return fast.label, "guard-fast", evidence, fast.problem, None


async def window_outcome(claim: str, fast: FastVerdict, ctx: Context) -> TierOutcome:
    """:func:`fast_outcome` of the verdict the window's call gave ``claim``, with the fast tier's resources."""
    mode = ctx.options.evidence_mode
    settings = tier_settings(ctx.settings, method=ctx.options.method, tier="fast", mode=mode, scope=ctx.scope)
    with span("tier fast", "guard_tier", tier="fast"):
        return await fast_outcome(claim, fast, tier_resources(ctx.resources, settings),
                                  stance_step=ctx.settings.guard.stance_step)


def _outcome(claim: str, verdict: Verdict, ctx: Context) -> TierOutcome:
    """A debate tier's outcome from the method's ``verdict`` of ``claim``, the verdict itself with it."""
    ctx.models.update(verdict.usage_by_model)
    problem = "" if verdict.label is not None else f"the {ctx.options.method} verdict had no readable label"
    read = documents_read(verdict)
    cited = cited_texts(verdict, read)
    # The cited passages first, so the three shown are those the verdict rests on where it names any.
    ordered = [d for d in read if d.text in cited] + [d for d in read if d.text not in cited]
    return verdict.label, verdict.decided_by, claim_evidence(claim, ordered, cited=cited), problem, verdict


def tiers_for(options: ResolvedGuardOptions) -> Sequence[Tier]:
    return TIERS[TIERS.index(options.tier):TIERS.index(options.max_tier) + 1]


def begin_fast(claim: str, ctx: Context) -> asyncio.Task[TierOutcome]:
    """The fast tier's outcome for ``claim``, begun before it is known to be one (guard_engine/head_start.py)."""

    async def run() -> TierOutcome:
        with span("fast tier begun before extraction", "guard_head", claim=claim[:300]):
            return await _run_tier(claim, "fast", ctx)

    return asyncio.create_task(run())


async def decide(progress: Progress, ctx: Context, head: asyncio.Future[TierOutcome] | None = None,
                 proposed: str | None = None) -> None:
    """Decide ``progress.claim`` in place, until settled or out of tiers. ``head``: the first tier's outcome,
    begun earlier; ``proposed``: the correction the window's call wrote with it."""
    claim = progress.claim
    for n, tier in enumerate(tiers_for(ctx.options)):
        progress.tiers_tried.append(tier)
        try:
            outcome = await head if n == 0 and head is not None else await _run_tier(claim.claim, tier, ctx)
            label, decided_by, evidence, problem, whole = outcome
            if whole is not None:
                progress.verdict = whole
        except FactDebateError as exc:
            if claim.label is None:
                claim.status, claim.reason = "error", str(exc)
            break
        if label is None:
            if claim.label is None:
                claim.reason = f"{tier} tier: {problem or 'no readable label'}"
            progress.first.set()
            continue
        earlier = claim.evidence
        claim.label, claim.decided_by, claim.tier, claim.evidence = label, decided_by, tier, evidence
        claim.status, claim.reason = "checked", None
        progress.first.set()  # the label is in: a held sentence may go (its correction comes after)
        if label == Label.REFUTES and claim.correction is not None:
            # A lower tier's correction stays only with the passage it quotes, whose source the claim lists.
            source = [e for e in earlier if e.quote == claim.correction.quote_source]
            if source and not any(e.quote == claim.correction.quote_source for e in claim.evidence):
                claim.evidence = [*claim.evidence, source[0]]
        if label == Label.SUPPORTS:
            claim.correction = claim.correction_note = None
            break
        if label == Label.REFUTES and claim.correction is None and evidence and not ctx.whole:
            # Shown only when its quote supports it; otherwise the note says why not (guard_engine/correct.py).
            claim.correction, claim.correction_note = await correct(
                claim.claim, evidence[0], ctx.resources.llm("debater"),
                proposed if n == 0 and head is not None else None, stance_step=ctx.settings.guard.stance_step)
        if label != Label.REFUTES:
            claim.correction = claim.correction_note = None
    progress.done = True
    progress.first.set()
