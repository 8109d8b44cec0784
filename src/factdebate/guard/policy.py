"""What the client gets once a reply is checked (``GuardResult.text`` and ``action_taken``).

- ``annotate``: the reply unchanged; the verdicts travel beside it.
- ``flag``: the reply with a footnote list of its refuted claims (with their correction) and the claims
  that could not be checked, when there are any.
- ``rewrite``: the reviser (the face's: the upstream model asked to revise its own answer) gets the refuted
  claims with their evidence and corrections; its answer is checked again (``recheck``: the guard's own check
  at the tier that refuted them) and only then is it what the client gets, with the revision's claims in
  ``revision_claims`` and the original kept in the result. A revision that still states something refuted,
  or that could not be checked again, is not sent; nor is one that never came (no reviser, a failure, no
  text). The reply then gets the operator's ``guard.rewrite_fallback``: ``flag`` (the original with the
  footnote, which says why) or ``block``; ``action_reason`` says why either way. Nothing revised goes out
  unchecked, and nothing goes out as ``rewritten`` that was not revised.
- ``block``: a refusal naming what was refuted.

Independently, ``on_unchecked: block`` refuses a reply with anything unchecked (or a degraded check, whose
text is unchecked as a whole); ``pass`` lets it through, with the unchecked claims said in the result. A
reply with no text to check that is not a tool call either (``content: 12345``, only image parts, nothing) is
such a degraded check (:func:`no_text_result`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from factdebate.core.errors import FactDebateError
from factdebate.core.types import Label
from factdebate.guard.types import TIERS, ActionTaken, GuardClaim, GuardResult, ResolvedGuardOptions, Reviser

NO_TEXT = "the reply holds no text to check (its content was empty, missing or not text) and makes no tool call"
# A revision checked again: the revised text and the claims it was to correct -> that text's check.
Recheck = Callable[[str, list[GuardClaim]], Awaitable[GuardResult]]
Fallback = Literal["flag", "block"]


def refuted(claims: list[GuardClaim]) -> list[GuardClaim]:
    return [c for c in claims if c.status == "checked" and c.label == Label.REFUTES]


def unchecked(claims: list[GuardClaim]) -> list[GuardClaim]:
    return [c for c in claims if c.status != "checked"]


def _quoted(claim: GuardClaim) -> str:
    return f'"{claim.claim}"'


def footnotes(result: GuardResult, note: str | None = None) -> str:
    lines = []
    for claim in refuted(result.claims):
        line = f"- {_quoted(claim)} is contradicted by the evidence"
        if claim.evidence:
            first = claim.evidence[0]
            marked = "; the passage holds an instruction to the model, read as data only" if first.injection else ""
            line += f" ({first.title}: \"{first.quote}\"{marked})"
        if claim.correction is not None:
            line += f". Correction: {claim.correction.text}"
        lines.append(line)
    for claim in unchecked(result.claims):
        lines.append(f"- {_quoted(claim)} could not be checked ({claim.reason or claim.status})")
    if result.degraded:
        lines.append(f"- The answer could not be checked: {result.degraded_reason}")
    if note:
        lines.append(f"- {note}")
    return "\n\n---\nFact check:\n" + "\n".join(lines) if lines else ""


def refusal(result: GuardResult) -> str:
    wrong = refuted(result.claims)
    parts = []
    if wrong:
        parts.append("a fact check found that it says what the evidence contradicts: "
                     + "; ".join(_quoted(c) for c in wrong))
    if result.on_unchecked == "block":
        missing = unchecked(result.claims)
        if result.degraded:
            parts.append(f"it could not be checked ({result.degraded_reason})")
        elif missing:
            parts.append("parts of it could not be checked in time: " + "; ".join(_quoted(c) for c in missing))
    text = "This answer was withheld: " + ", and ".join(parts)
    # A quoted claim ends with its own full stop inside the quotes: no second one after them.
    return text if text.endswith(('."', '!"', '?"')) else text + "."


def must_block(result: GuardResult) -> bool:
    if result.policy == "block" and refuted(result.claims):
        return True
    return result.on_unchecked == "block" and (result.degraded or bool(unchecked(result.claims)))


def apply_policy_unrevised(result: GuardResult) -> GuardResult:
    """:func:`apply_policy` for a result nothing is revised in (no refuted claim, or no reviser asked): what
    a reply with no text to check gets, decided without waiting on anything."""
    text, action = result.original_text, _plain(result)
    if must_block(result):
        text, action = refusal(result), "blocked"
    elif result.policy == "flag":
        extra = footnotes(result)
        text, action = (text + extra, "flagged") if extra else (text, action)
    return result.model_copy(update={"text": text, "action_taken": action})


async def apply_policy(result: GuardResult, reviser: Reviser | None, recheck: Recheck | None = None,
                       fallback: Fallback = "flag") -> GuardResult:
    """``result`` with ``text`` and ``action_taken`` set from its policy (``original_text`` untouched). Under
    ``rewrite`` the revision goes out only when ``recheck`` found nothing refuted or unchecked in it; otherwise
    (and without a reviser or a recheck) the reply gets ``fallback``, said in ``action_reason``."""
    if must_block(result) or not (result.policy == "rewrite" and refuted(result.claims)):
        return apply_policy_unrevised(result)
    if reviser is None:
        return not_revised(result, fallback, "no reviser", note="The answer could not be revised: no reviser.")
    try:
        revised = (await reviser(result.original_text, refuted(result.claims))).strip()
    except (FactDebateError, OSError, ValueError) as exc:
        return not_revised(result, fallback, f"{type(exc).__name__}: {exc}")
    if not revised:
        return not_revised(result, fallback, "the reviser returned no text")
    if recheck is None:
        return not_revised(result, fallback, "the revision could not be checked again: no check was given for it")
    try:
        again = await recheck(revised, refuted(result.claims))
    except (FactDebateError, OSError, ValueError) as exc:
        return not_revised(result, fallback, f"the revision's check failed: {type(exc).__name__}: {exc}")
    problem = revision_problem(again)
    if problem is not None:
        return not_revised(result, fallback, problem, revision=again)
    return result.model_copy(update={"text": revised, "action_taken": "rewritten", "revision_claims": again.claims})


def revision_problem(again: GuardResult) -> str | None:
    """Why a revision's check forbids sending it, or None: it states what the evidence contradicts (the refuted
    claim repeated, or a new one), or it could not be checked whole."""
    if wrong := refuted(again.claims):
        return "the revision still states what the evidence contradicts: " + "; ".join(_quoted(c) for c in wrong)
    if again.degraded:
        return f"the revision could not be checked ({again.degraded_reason})"
    if missing := unchecked(again.claims):
        return "parts of the revision could not be checked: " + "; ".join(
            f"{_quoted(c)} ({c.reason or c.status})" for c in missing)
    return None


def not_revised(result: GuardResult, fallback: Fallback, why: str, *, note: str | None = None,
                revision: GuardResult | None = None) -> GuardResult:
    """A rewrite that sends no revision: the original with the footnote (``flag``) or a refusal (``block``),
    never the revision and never marked ``rewritten``."""
    claims = revision.claims if revision is not None else []
    if fallback == "block":
        return result.model_copy(update={"text": refusal(result), "action_taken": "blocked", "revision_claims": claims,
                                         "action_reason": f"rewrite fell back to block: {why}"})
    text = result.original_text + footnotes(result, note or f"The answer could not be revised ({why}).")
    return result.model_copy(update={"text": text, "action_taken": "flagged", "revision_claims": claims,
                                     "action_reason": f"rewrite fell back to flag: {why}"})


def recheck_options(options: ResolvedGuardOptions, claims: list[GuardClaim]) -> ResolvedGuardOptions:
    """The options a revision is checked again with: at the highest tier that refuted one of ``claims`` (no
    escalation past it: that tier's word is what the revision must satisfy), annotated only (the policy is
    the first check's), with the same evidence, method and deadline."""
    tiers = [c.tier for c in claims if c.tier is not None] or [options.tier]
    tier = max(tiers, key=TIERS.index)
    return options.model_copy(update={"tier": tier, "max_tier": tier, "policy": "annotate", "on_unchecked": "pass"})


def no_text_result(options: ResolvedGuardOptions, passed: list[str], *, called: bool) -> GuardResult:
    """The result of a reply with no text to check, with the policy applied. A tool (or function) call alone
    (``called``) is a turn with nothing to check: passed through, said in ``passed_through``. Anything else
    without text (``content: 12345``, a choice that is not an object, only image or audio parts, null or
    empty content) is a reply the guard could not read: ``degraded``, said, and ``on_unchecked: block``
    refuses it, as it refuses any text that could not be checked."""
    result = GuardResult(passed_through=passed, policy=options.policy, on_unchecked=options.on_unchecked,
                         tier=options.tier, deadline_s=options.deadline_s, degraded=not called,
                         degraded_reason=None if called else NO_TEXT)
    return apply_policy_unrevised(result)


def _plain(result: GuardResult) -> ActionTaken:
    """annotate (or a policy with nothing to act on): the verdicts are beside the unchanged reply."""
    return "annotated" if result.claims or result.degraded else "none"
